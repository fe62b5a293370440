package shellpolicy

import (
	"strings"
	"sync"

	"github.com/guard-sh/guard/rule"
)

// optSpec describes a command's options as its own parser reads them
// (getopt_long for the GNU tools).
type optSpec struct {
	flags   string   // short options that take no argument
	args    string   // short options that take an argument, attached or as the next word
	optArgs string   // short options whose argument is optional and only attached (xargs -i[R])
	long    []string // long options that take no argument
	longArg []string // long options that take an argument: --opt=v or --opt v
	longOpt []string // long options whose argument is optional: only --opt=v
	plus    bool     // +x is an option too (the shells, set)
	// exact: long options must be written in full. getopt_long accepts any
	// unambiguous prefix (--out for --output), so by default prefixes are
	// resolved as the tool would.
	exact bool
	// numeric: -N (a number) is an option (nice -10).
	numeric bool
}

// noOptions is the spec of a command that takes no options: a nil *optSpec
// reads as it.
var noOptions optSpec

// parsedOpt is one option found in a command's words.
type parsedOpt struct {
	name  string // "-c", or the long option's full name ("--command")
	value Word
	has   bool // it has a value
	at    int  // the index of the word it starts in
}

// optResult is how a command's words split into options and operands.
type optResult struct {
	opts     []parsedOpt
	operands []int // the indexes of the operands
	// end is the index of the first word after the options, when reading
	// stopped there.
	end int
	// err says why the options cannot be read with certainty: an option
	// the spec does not know, or a word known only at run time where an
	// option may be. Only set in strict mode.
	err    string
	strict bool
}

// optScratch is room for the options and operands of one parse, on the
// caller's stack: most commands have a few of each, and where the results
// do not outlive the caller, they need not be allocated. More than this
// spills to the heap.
type optScratch struct {
	opts     [6]parsedOpt
	operands [8]int
}

func (r optResult) has(names ...string) bool {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (r optResult) values(names ...string) []parsedOpt {
	var out []parsedOpt
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o)
			}
		}
	}
	return out
}

// parse reads words as options and operands. With stop, reading ends at the
// first operand, which begins the command being run (env, sudo, timeout ...
// read their options so). Otherwise options may follow operands, as the GNU
// tools allow. With strict, an unknown option or a word known only at run
// time in the options makes err say so.
func (s *optSpec) parse(words []Word, stop, strict bool) optResult {
	return s.parseIn(nil, words, stop, strict)
}

// parseIn is parse with room for its results in sc (nil: allocated), for a
// caller that keeps neither r.opts nor r.operands past its own return.
func (s *optSpec) parseIn(sc *optScratch, words []Word, stop, strict bool) optResult {
	if s == nil {
		s = &noOptions
	}
	r := optResult{strict: strict}
	if sc != nil {
		r.opts, r.operands = sc.opts[:0], sc.operands[:0]
	}
	i := 0
	for ; i < len(words); i++ {
		wd := words[i]
		head, whole := literalHead(wd)
		if wd.tildeHome {
			// ~ or ~/...: the home directory, a path, never an option.
			if stop {
				r.end = i
				return r
			}
			r.operands = addOperand(r.operands, i, len(words))
			continue
		}
		if head == "" && !whole {
			// The word begins with a part known only at run time: it could
			// be an option.
			if r.failing() {
				r.err = "the word " + wd.String() + " is known only at run time and could be an option"
			}
			if stop {
				r.end = i
				return r
			}
			r.operands = addOperand(r.operands, i, len(words))
			continue
		}
		if wd.Split && !whole && strings.HasPrefix(head, "-") && r.failing() {
			r.err = "the word " + wd.String() + " may expand to several options"
		}
		switch {
		case head == "--" && whole:
			r.end = i + 1
			for j := i + 1; j < len(words); j++ {
				r.operands = addOperand(r.operands, j, len(words))
			}
			return r
		case strings.HasPrefix(head, "--") && len(head) > 2:
			o, next, err := s.longOption(words, i, head, whole, r.failing())
			if err != "" {
				r.err = err
			}
			r.opts = addOpt(r.opts, o, len(words))
			i = next
		case len(head) > 1 && (head[0] == '-' || head[0] == '+' && s.plus):
			if s.numeric && isDigits(head[1:]) {
				r.opts = addOpt(r.opts, parsedOpt{name: "-N", value: known(head[1:]), has: true, at: i}, len(words))
				continue
			}
			// A cluster: each letter is an option, up to one that takes
			// a value.
			valued := false
			for j := 1; j < len(head) && !valued; j++ {
				o, next, took, err := s.shortOption(words, i, head, j, whole, r.failing())
				if err != "" {
					r.err = err
				}
				r.opts = addOpt(r.opts, o, len(words))
				i, valued = next, took
			}
			if !valued && !whole && r.failing() {
				r.err = "the option " + words[i].String() + " is known only in part"
			}
		default:
			if stop {
				r.end = i
				return r
			}
			r.operands = addOperand(r.operands, i, len(words))
		}
	}
	r.end = i
	return r
}

// addOperand records the operand at index i of n words. The first takes
// room for all that may follow, rather than growing a word at a time. (It
// takes and returns the slice, rather than a *optResult, so that room on
// parseIn's caller's stack stays there: a store through a pointer counts as
// one to the heap.)
func addOperand(operands []int, i, n int) []int {
	if operands == nil {
		operands = make([]int, 0, n-i)
	}
	return append(operands, i)
}

// addOpt records an option found at index o.at of n words, as addOperand
// does.
func addOpt(opts []parsedOpt, o parsedOpt, n int) []parsedOpt {
	if opts == nil {
		opts = make([]parsedOpt, 0, n-o.at)
	}
	return append(opts, o)
}

// failing reports whether a reason the options cannot be read is to be
// recorded: in strict mode, the first one. The reason is built only then,
// since most parses are not strict.
func (r *optResult) failing() bool { return r.strict && r.err == "" }

// longOption reads the long option that head, the known start of
// words[i], begins: the option, the index of its last word, and, when
// failing (see optResult.failing), the first reason it cannot be read with
// certainty. (The options and operands are gathered by parseIn alone, so
// that room for them on its caller's stack stays there.)
func (s *optSpec) longOption(words []Word, i int, head string, whole, failing bool) (o parsedOpt, next int, err string) {
	body := head[2:]
	name, _, hasEq := strings.Cut(body, "=")
	if !whole && !hasEq && failing {
		err = "the option " + words[i].String() + " is known only in part"
	}
	full, kind := s.resolveLong(name)
	if kind == 0 {
		if failing && err == "" {
			err = "unknown option --" + name
		}
		full, kind = name, 'f'
	}
	o = parsedOpt{at: i}
	if full == name {
		o.name = head[:2+len(name)] // "--name", as written
	} else {
		o.name = "--" + full // an abbreviation, by its full name
	}
	switch {
	case hasEq:
		o.value = Word{Text: sliceText(words[i].Text, 2+len(name)+1), Split: words[i].Split}
		o.has = true
	case kind == 'a':
		if i+1 < len(words) {
			i++
			o.value, o.has = words[i], true
		} else if failing && err == "" {
			err = "the option --" + full + " lacks its argument"
		}
	}
	return o, i, err
}

// resolveLong finds a long option by its full name or, unless exact, by an
// unambiguous prefix. kind is 'f' (no argument), 'a' (argument), 'o'
// (optional argument) or 0 (unknown or ambiguous).
func (s *optSpec) resolveLong(name string) (string, byte) {
	lists := []struct {
		names []string
		kind  byte
	}{{s.long, 'f'}, {s.longArg, 'a'}, {s.longOpt, 'o'}}
	for _, l := range lists {
		for _, n := range l.names {
			if n == name {
				return n, l.kind
			}
		}
	}
	if s.exact || name == "" {
		return "", 0
	}
	found, kind := "", byte(0)
	for _, l := range lists {
		for _, n := range l.names {
			if strings.HasPrefix(n, name) {
				if found != "" {
					return "", 0
				}
				found, kind = n, l.kind
			}
		}
	}
	return found, kind
}

// shortOption reads the short option at head[j] of a cluster (head is the
// known start of words[i]): the option, the index of its last word, whether
// it took a value (which ends the cluster), and as longOption, the reason
// it cannot be read with certainty.
func (s *optSpec) shortOption(words []Word, i int, head string, j int, whole, failing bool) (o parsedOpt, next int, valued bool, err string) {
	ch := head[j]
	name := shortOptionName(head[0], ch)
	switch {
	case strings.IndexByte(s.args, ch) >= 0:
		o = parsedOpt{name: name, at: i, has: true}
		if j+1 < len(head) || !whole {
			o.value = Word{Text: sliceText(words[i].Text, j+1), Split: words[i].Split}
		} else if i+1 < len(words) {
			i++
			o.value = words[i]
		} else {
			o.has = false
			if failing {
				err = "the option " + name + " lacks its argument"
			}
		}
		return o, i, true, err
	case strings.IndexByte(s.optArgs, ch) >= 0:
		o = parsedOpt{name: name, at: i}
		if j+1 < len(head) || !whole {
			o.value = Word{Text: sliceText(words[i].Text, j+1), Split: words[i].Split}
			o.has = true
		}
		return o, i, true, ""
	case strings.IndexByte(s.flags, ch) >= 0:
		return parsedOpt{name: name, at: i}, i, false, ""
	}
	if failing {
		err = "unknown option " + name
	}
	return parsedOpt{name: name, at: i}, i, false, err
}

// shortOptionNames holds "-" and "+" followed by every byte, so that the
// name of a short option ("-c", "+o") is a slice of it rather than a new
// string for every option read. It is made on first use.
var shortOptionNames = sync.OnceValue(func() string {
	b := make([]byte, 0, 2*2*256)
	for _, sign := range []byte{'-', '+'} {
		for c := 0; c < 256; c++ {
			b = append(b, sign, byte(c))
		}
	}
	return string(b)
})

// shortOptionName is sign followed by ch: "-c".
func shortOptionName(sign, ch byte) string {
	i := 2 * int(ch)
	if sign == '+' {
		i += 2 * 256
	} else if sign != '-' {
		return string([]byte{sign, ch})
	}
	return shortOptionNames()[i : i+2]
}

// literalHead is the known text at the start of a word, and whether that is
// the whole word.
func literalHead(w Word) (string, bool) {
	if len(w.Text) == 0 {
		return "", true
	}
	if w.Text[0].Unknown {
		return "", false
	}
	return w.Text[0].Lit, len(w.Text) == 1
}

// sliceText is t from byte off of its first (known) span on.
func sliceText(t rule.Text, off int) rule.Text {
	if len(t) == 0 {
		return nil
	}
	first := t[0]
	if off >= len(first.Lit) {
		return append(rule.Text(nil), t[1:]...)
	}
	out := make(rule.Text, 0, len(t))
	out = append(out, rule.Span{Lit: first.Lit[off:], Unknown: first.Unknown})
	return append(out, t[1:]...)
}
