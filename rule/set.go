package rule

import (
	"path"
	"sort"
	"strings"
	"sync"
)

// MatchKind says how a rule matched, for the user reading a verdict.
type MatchKind string

// How a rule can match.
const (
	MatchAny    MatchKind = "any"    // a bare kind, or the pattern "*"
	MatchExact  MatchKind = "exact"  // no wildcard
	MatchPrefix MatchKind = "prefix" // only a trailing "*" (or " *", which also matches the bare command)
	MatchGlob   MatchKind = "glob"   // a "*" elsewhere
	MatchHost   MatchKind = "host"   // a web rule's host glob
	MatchName   MatchKind = "name"   // an mcp rule's server:tool glob
)

// Env is what path patterns are expanded against.
type Env struct {
	Home      string // "~" in a pattern
	Workspace string // relative patterns
}

// ExpandPath turns a normalized path pattern into an absolute one: "~" is the
// home directory and a relative pattern is relative to the workspace. A
// pattern that begins with "*" is left as it is (it matches anywhere).
func (e Env) ExpandPath(pattern string) string {
	switch {
	case pattern == "~":
		return path.Clean(e.Home)
	case strings.HasPrefix(pattern, "~/"):
		return path.Clean(e.Home) + pattern[1:]
	case pattern == ".":
		return path.Clean(e.Workspace)
	case strings.HasPrefix(pattern, "./"):
		return strings.TrimSuffix(path.Clean(e.Workspace), "/") + pattern[1:]
	}
	return pattern
}

// Hit is a rule that matched, and how.
type Hit struct {
	Rule  *Rule
	Match MatchKind
	order int // the rule's place in its Set
}

// Matches holds, for each action, the first rule of that action that matched
// (nil when none did). Rules are consulted in the order the Set was given, so
// the first is the one from the most authoritative source.
type Matches struct {
	Deny, Ask, Allow *Hit
}

// Strictest returns the action that decides (deny, then ask, then allow) and
// its hit; ok is false when no rule matched.
func (m Matches) Strictest() (Action, *Hit, bool) {
	switch {
	case m.Deny != nil:
		return Deny, m.Deny, true
	case m.Ask != nil:
		return Ask, m.Ask, true
	case m.Allow != nil:
		return Allow, m.Allow, true
	}
	return "", nil, false
}

type compiled struct {
	idx   int
	rule  *Rule
	glob  Glob
	match MatchKind
}

// kindIndex holds the compiled rules of one kind, indexed two ways.
//
// For a target that is wholly known (the common case), every rule is filed
// under its anchor, the longest literal run of its pattern, in an
// Aho-Corasick automaton: one pass over the target yields the few rules whose
// anchor it contains, and only those are matched as globs. Patterns with no
// literal at all ("*", a bare kind) are always candidates.
//
// For a target with unknown spans, an unknown span could supply any anchor, so
// deny and ask rules are found by their literal prefix instead: those whose
// prefix agrees with the target's known beginning.
type kindIndex struct {
	rules   []*compiled
	anchors anchorIndex
	all     []int32 // rules with no literal text

	// The prefix index, made on the first target with unknown spans: most
	// runs of guard match none.
	prefixOnce sync.Once
	byPrefix   map[string][]int32
	lens       []int    // the distinct prefix lengths, ascending
	prefixes   []string // the distinct prefixes, sorted
}

// Set is a compiled, indexed collection of rules.
type Set struct {
	rules []Rule
	kinds map[Kind]*kindIndex
	env   Env
}

// NewSet compiles rules. Their order is kept: when several rules of one
// action match, the earliest is reported. Path patterns are expanded against
// env.
func NewSet(rules []Rule, env Env) *Set {
	s := &Set{rules: append([]Rule(nil), rules...), kinds: map[Kind]*kindIndex{}, env: env}
	for i := range s.rules {
		r := &s.rules[i]
		ix := s.kinds[r.Kind]
		if ix == nil {
			ix = &kindIndex{}
			s.kinds[r.Kind] = ix
		}
		for _, c := range compileRule(i, r, env) {
			ix.add(c)
		}
	}
	return s
}

// Rules returns the rules of the set, in order.
func (s *Set) Rules() []Rule { return s.rules }

// Env returns what the set's path patterns were expanded against.
func (s *Set) Env() Env { return s.env }

// compileRule returns the globs a rule matches by. A shell pattern ending in
// " *" yields a second glob without it, so that "git *" matches "git".
func compileRule(i int, r *Rule, env Env) []*compiled {
	if r.Bare {
		return []*compiled{{idx: i, rule: r, glob: CompileGlob("*"), match: MatchAny}}
	}
	pat := r.Pattern
	if r.Kind.IsPath() {
		pat = env.ExpandPath(pat)
	}
	g := CompileGlob(pat)
	mk := classify(r.Kind, pat)
	out := []*compiled{{idx: i, rule: r, glob: g, match: mk}}
	if r.Kind == Shell {
		if bare, ok := strings.CutSuffix(pat, " *"); ok && bare != "" {
			out = append(out, &compiled{idx: i, rule: r, glob: CompileGlob(bare), match: mk})
		}
	}
	return out
}

func classify(k Kind, pat string) MatchKind {
	switch {
	case pat == "*":
		return MatchAny
	case k == Web:
		return MatchHost
	case k == MCP:
		return MatchName
	case !strings.Contains(pat, "*"):
		return MatchExact
	case strings.Index(pat, "*") == len(pat)-1:
		return MatchPrefix
	}
	return MatchGlob
}

func (ix *kindIndex) add(c *compiled) {
	id := int32(len(ix.rules))
	ix.rules = append(ix.rules, c)
	anchor := ""
	for _, p := range c.glob.parts {
		if len(p) > len(anchor) {
			anchor = p
		}
	}
	if anchor == "" {
		ix.all = append(ix.all, id)
	} else {
		ix.anchors.add(anchor, id)
	}
}

// prefixIndex makes the prefix index, once.
func (ix *kindIndex) prefixIndex() {
	ix.prefixOnce.Do(ix.indexPrefixes)
}

func (ix *kindIndex) indexPrefixes() {
	ix.byPrefix = map[string][]int32{}
	for id, c := range ix.rules {
		p := c.glob.literalPrefix()
		ix.byPrefix[p] = append(ix.byPrefix[p], int32(id))
	}
	seen := map[int]bool{}
	for p := range ix.byPrefix {
		ix.prefixes = append(ix.prefixes, p)
		if !seen[len(p)] {
			seen[len(p)] = true
			ix.lens = append(ix.lens, len(p))
		}
	}
	sort.Ints(ix.lens)
	sort.Strings(ix.prefixes)
}

// Match returns, for each action, the first rule of kind k that matches t.
// Deny and ask rules match when some value of t's unknown spans would match;
// allow rules only when every value would (see [Glob.MatchAll]).
//
// Path kinds match a target or any of its parent directories, so that a rule
// naming a directory covers what is inside it. Web targets are compared
// without regard to case.
func (s *Set) Match(k Kind, t Text) Matches {
	var m Matches
	ix := s.kinds[k]
	if ix == nil {
		return m
	}
	if k == Web {
		t = lowerText(t)
	}
	if known, whole := t.literalPrefix(); whole {
		ix.matchKnown(&m, known, k.IsPath())
	} else {
		ix.matchUnknown(&m, t, known)
	}
	return m
}

// MatchString is Match for a target with no unknown part.
func (s *Set) MatchString(k Kind, target string) Matches { return s.Match(k, Known(target)) }

func (ix *kindIndex) matchKnown(m *Matches, target string, ancestors bool) {
	try := func(id int32) {
		c := ix.rules[id]
		h := m.slot(c.rule.Action)
		if !better(*h, c) {
			return
		}
		// An anchor found in a path is found in the path of every parent
		// that holds it, so one scan serves the whole chain of parents.
		for p := target; ; {
			if c.glob.MatchString(p) {
				*h = &Hit{Rule: c.rule, Match: c.match, order: c.idx}
				return
			}
			parent := path.Dir(p)
			if !ancestors || parent == p || p == "" {
				return
			}
			p = parent
		}
	}
	for _, id := range ix.all {
		try(id)
	}
	ix.anchors.scan(target, try)
}

func (ix *kindIndex) matchUnknown(m *Matches, t Text, known string) {
	try := func(id int32) {
		c := ix.rules[id]
		h := m.slot(c.rule.Action)
		if !better(*h, c) {
			return
		}
		var ok bool
		if c.rule.Action == Allow {
			ok = c.glob.MatchAll(t)
		} else {
			ok = c.glob.MatchSome(t)
		}
		if ok {
			*h = &Hit{Rule: c.rule, Match: c.match, order: c.idx}
		}
	}
	// Allow rules: every literal run of the pattern must lie in a known span.
	for _, id := range ix.all {
		try(id)
	}
	for _, sp := range t {
		if !sp.Unknown {
			ix.anchors.scan(sp.Lit, func(id int32) {
				if ix.rules[id].rule.Action == Allow {
					try(id)
				}
			})
		}
	}
	// Deny and ask rules: those whose literal prefix agrees with the known
	// beginning of t, either way round.
	ix.prefixIndex()
	denyOrAsk := func(id int32) {
		if ix.rules[id].rule.Action != Allow {
			try(id)
		}
	}
	for _, n := range ix.lens {
		if n > len(known) {
			break
		}
		for _, id := range ix.byPrefix[known[:n]] {
			denyOrAsk(id)
		}
	}
	i := sort.SearchStrings(ix.prefixes, known)
	for ; i < len(ix.prefixes) && strings.HasPrefix(ix.prefixes[i], known); i++ {
		if len(ix.prefixes[i]) > len(known) {
			for _, id := range ix.byPrefix[ix.prefixes[i]] {
				denyOrAsk(id)
			}
		}
	}
}

func (m *Matches) slot(a Action) **Hit {
	switch a {
	case Deny:
		return &m.Deny
	case Ask:
		return &m.Ask
	}
	return &m.Allow
}

// better reports whether c comes before the rule already found.
func better(h *Hit, c *compiled) bool { return h == nil || c.idx < h.order }

func lowerText(t Text) Text {
	out := make(Text, len(t))
	for i, s := range t {
		out[i] = Span{Lit: strings.ToLower(s.Lit), Unknown: s.Unknown}
	}
	return out
}
