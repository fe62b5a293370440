package rule

import (
	"strings"
	"sync"
)

// anchorIndex finds the rules whose anchor occurs in a target. A few rules
// (the usual settings file has tens) are found by looking for each anchor
// in turn, which costs less than building an automaton for one run of
// guard; past maxLinearAnchors the automaton is built, once, on the first
// search.
type anchorIndex struct {
	anchors []string
	ids     []int32
	once    sync.Once
	ac      *automaton
}

// maxLinearAnchors is the most anchors looked for one by one: past it, one
// pass of the automaton over the target costs less than a search per anchor.
const maxLinearAnchors = 32

func (x *anchorIndex) add(anchor string, id int32) {
	x.anchors = append(x.anchors, anchor)
	x.ids = append(x.ids, id)
}

// scan calls found for every rule whose anchor occurs in s (possibly more
// than once for one rule).
func (x *anchorIndex) scan(s string, found func(id int32)) {
	if len(x.anchors) <= maxLinearAnchors {
		for i, a := range x.anchors {
			if strings.Contains(s, a) {
				found(x.ids[i])
			}
		}
		return
	}
	x.once.Do(func() {
		x.ac = newAutomaton()
		for i, a := range x.anchors {
			x.ac.add(a, x.ids[i])
		}
		x.ac.build()
	})
	x.ac.scan(s, found)
}

// automaton is an Aho-Corasick matcher over the rules' anchors: for each
// rule, the longest literal run of its pattern, which every target it matches
// must contain. One pass over a target finds every rule whose anchor occurs in
// it, whatever the number of rules; only those are then matched as globs.
type automaton struct {
	next map[uint64]int32 // (state<<8 | byte) → state
	fail []int32
	out  [][]int32 // per state, the compiled rules whose anchor ends here
	// dict is the nearest state down the fail chain with output, or -1.
	dict []int32
}

func newAutomaton() *automaton {
	return &automaton{next: map[uint64]int32{}, fail: []int32{0}, out: [][]int32{nil}, dict: []int32{-1}}
}

func (a *automaton) add(anchor string, id int32) {
	s := int32(0)
	for i := 0; i < len(anchor); i++ {
		k := uint64(s)<<8 | uint64(anchor[i])
		n, ok := a.next[k]
		if !ok {
			n = int32(len(a.fail))
			a.next[k] = n
			a.fail = append(a.fail, 0)
			a.out = append(a.out, nil)
			a.dict = append(a.dict, -1)
		}
		s = n
	}
	a.out[s] = append(a.out[s], id)
}

// build computes the fail links breadth first.
func (a *automaton) build() {
	children := make([][]struct {
		c byte
		s int32
	}, len(a.fail))
	for k, n := range a.next {
		p := int32(k >> 8)
		children[p] = append(children[p], struct {
			c byte
			s int32
		}{byte(k), n})
	}
	queue := []int32{0}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, ch := range children[p] {
			n := ch.s
			queue = append(queue, n)
			if p == 0 {
				a.fail[n] = 0
			} else {
				f := a.fail[p]
				for {
					if t, ok := a.next[uint64(f)<<8|uint64(ch.c)]; ok {
						a.fail[n] = t
						break
					}
					if f == 0 {
						a.fail[n] = 0
						break
					}
					f = a.fail[f]
				}
			}
			if f := a.fail[n]; len(a.out[f]) > 0 {
				a.dict[n] = f
			} else {
				a.dict[n] = a.dict[f]
			}
		}
	}
}

// scan calls found for every rule whose anchor occurs in s (possibly more
// than once for one rule).
func (a *automaton) scan(s string, found func(id int32)) {
	st := int32(0)
	for i := 0; i < len(s); i++ {
		k := uint64(s[i])
		for {
			if n, ok := a.next[uint64(st)<<8|k]; ok {
				st = n
				break
			}
			if st == 0 {
				break
			}
			st = a.fail[st]
		}
		for o := st; o > 0; o = a.dict[o] {
			for _, id := range a.out[o] {
				found(id)
			}
		}
	}
}
