package shellpolicy

import (
	"strings"

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
	err string
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
func (s optSpec) parse(words []Word, stop, strict bool) optResult {
	var r optResult
	fail := func(why string) {
		if strict && r.err == "" {
			r.err = why
		}
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
			r.operands = append(r.operands, i)
			continue
		}
		if head == "" && !whole {
			// The word begins with a part known only at run time: it could
			// be an option.
			fail("the word " + wd.String() + " is known only at run time and could be an option")
			if stop {
				r.end = i
				return r
			}
			r.operands = append(r.operands, i)
			continue
		}
		if wd.Split && !whole && strings.HasPrefix(head, "-") {
			fail("the word " + wd.String() + " may expand to several options")
		}
		switch {
		case head == "--" && whole:
			r.end = i + 1
			for j := i + 1; j < len(words); j++ {
				r.operands = append(r.operands, j)
			}
			return r
		case strings.HasPrefix(head, "--") && len(head) > 2:
			i = s.longOption(words, i, head, whole, &r, fail)
		case len(head) > 1 && (head[0] == '-' || head[0] == '+' && s.plus):
			if s.numeric && isDigits(head[1:]) {
				r.opts = append(r.opts, parsedOpt{name: "-N", value: known(head[1:]), has: true, at: i})
				continue
			}
			i = s.shortOptions(words, i, head, whole, &r, fail)
		default:
			if stop {
				r.end = i
				return r
			}
			r.operands = append(r.operands, i)
		}
	}
	r.end = i
	return r
}

func (s optSpec) longOption(words []Word, i int, head string, whole bool, r *optResult, fail func(string)) int {
	body := head[2:]
	name, val, hasEq := strings.Cut(body, "=")
	if !whole && !hasEq {
		fail("the option " + words[i].String() + " is known only in part")
	}
	full, kind := s.resolveLong(name)
	if kind == 0 {
		fail("unknown option --" + name)
		full, kind = name, 'f'
	}
	o := parsedOpt{name: "--" + full, at: i}
	switch {
	case hasEq:
		o.value = Word{Text: sliceText(words[i].Text, 2+len(name)+1), Split: words[i].Split}
		_ = val
		o.has = true
	case kind == 'a':
		if i+1 < len(words) {
			i++
			o.value, o.has = words[i], true
		} else {
			fail("the option --" + full + " lacks its argument")
		}
	}
	r.opts = append(r.opts, o)
	return i
}

// resolveLong finds a long option by its full name or, unless exact, by an
// unambiguous prefix. kind is 'f' (no argument), 'a' (argument), 'o'
// (optional argument) or 0 (unknown or ambiguous).
func (s optSpec) resolveLong(name string) (string, byte) {
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

func (s optSpec) shortOptions(words []Word, i int, head string, whole bool, r *optResult, fail func(string)) int {
	sign := head[:1]
	cluster := head[1:]
	for j := 0; j < len(cluster); j++ {
		ch := cluster[j]
		name := sign + string(ch)
		switch {
		case strings.IndexByte(s.args, ch) >= 0:
			o := parsedOpt{name: name, at: i, has: true}
			if j+1 < len(cluster) || !whole {
				o.value = Word{Text: sliceText(words[i].Text, 1+j+1), Split: words[i].Split}
			} else if i+1 < len(words) {
				i++
				o.value = words[i]
			} else {
				o.has = false
				fail("the option " + name + " lacks its argument")
			}
			r.opts = append(r.opts, o)
			return i
		case strings.IndexByte(s.optArgs, ch) >= 0:
			o := parsedOpt{name: name, at: i}
			if j+1 < len(cluster) || !whole {
				o.value = Word{Text: sliceText(words[i].Text, 1+j+1), Split: words[i].Split}
				o.has = true
			}
			r.opts = append(r.opts, o)
			return i
		case strings.IndexByte(s.flags, ch) >= 0:
			r.opts = append(r.opts, parsedOpt{name: name, at: i})
		default:
			fail("unknown option " + name)
			r.opts = append(r.opts, parsedOpt{name: name, at: i})
		}
	}
	if !whole {
		fail("the option " + words[i].String() + " is known only in part")
	}
	return i
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
