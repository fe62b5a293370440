package rule

import "strings"

// Text is a target to match, some of whose spans may be unknown until the
// shell runs (a $VAR, an unquoted glob, a $(...) substitution). A Text with no
// unknown span is an ordinary string.
type Text []Span

// Span is a run of a Text: literal characters, or a part whose value is not
// known before the command runs (Unknown; Lit then holds its source, for
// display only).
type Span struct {
	Lit     string
	Unknown bool
}

// Known returns the Text of a string with no unknown part.
func Known(s string) Text { return Text{{Lit: s}} }

// HasUnknown reports whether any span of t is unknown.
func (t Text) HasUnknown() bool {
	for _, s := range t {
		if s.Unknown {
			return true
		}
	}
	return false
}

// String renders t for display: unknown spans appear as their source.
func (t Text) String() string {
	if len(t) == 1 {
		return t[0].Lit
	}
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.Lit)
	}
	return b.String()
}

// literalPrefix is the text before the first unknown span, and whether the
// whole of t is literal.
func (t Text) literalPrefix() (string, bool) {
	if len(t) == 1 && !t[0].Unknown {
		return t[0].Lit, true
	}
	var b strings.Builder
	for _, s := range t {
		if s.Unknown {
			return b.String(), false
		}
		b.WriteString(s.Lit)
	}
	return b.String(), true
}

// maxGlobWork bounds the product of pattern and target lengths that the
// matcher walks for a target with unknown spans. Past it the answer is the
// safe one: an unknown target matches every deny and ask rule and no allow rule.
const maxGlobWork = 1 << 22

// Glob is a compiled pattern: '*' matches any run of characters, '/'
// included; every other character is literal; the whole target must match.
type Glob struct {
	src   string
	parts []string // the literal runs between stars; len(parts)-1 stars
}

// CompileGlob compiles a pattern. Every string is a valid pattern.
func CompileGlob(pattern string) Glob {
	return Glob{src: pattern, parts: strings.Split(pattern, "*")}
}

// String is the pattern as compiled.
func (g Glob) String() string { return g.src }

// HasStar reports whether the pattern holds a '*'.
func (g Glob) HasStar() bool { return len(g.parts) > 1 }

// literalPrefix is the pattern's text before its first star.
func (g Glob) literalPrefix() string { return g.parts[0] }

// MatchString reports whether s matches the whole pattern. With only '*'
// wildcards, matching each literal run at its leftmost place is exact, so this
// is linear in len(s) for each run.
func (g Glob) MatchString(s string) bool {
	n := len(g.parts)
	if n == 1 {
		return s == g.parts[0]
	}
	first, last := g.parts[0], g.parts[n-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	mid := s[len(first) : len(s)-len(last)]
	for _, p := range g.parts[1 : n-1] {
		i := strings.Index(mid, p)
		if i < 0 {
			return false
		}
		mid = mid[i+len(p):]
	}
	return true
}

// MatchSome reports whether some value of t's unknown spans makes t match:
// the reading for deny and ask rules, where an unknown part may be anything.
func (g Glob) MatchSome(t Text) bool {
	if s, ok := t.literalPrefix(); ok {
		return g.MatchString(s)
	}
	return g.simulate(t, true)
}

// MatchAll reports whether t matches for every value of its unknown spans,
// judged soundly: each unknown span must fall inside a '*' of the pattern.
// This is the reading for allow rules, where an unknown part must never be
// what makes a command allowed.
func (g Glob) MatchAll(t Text) bool {
	if s, ok := t.literalPrefix(); ok {
		return g.MatchString(s)
	}
	return g.simulate(t, false)
}

// simulate runs the pattern as an automaton over t. States are byte offsets
// in the pattern (a '*' is one byte). An unknown span, read existentially
// (some), can produce any text, so it reaches every position at or after the
// earliest state; read universally, it can only be absorbed by a state that
// sits on a '*'.
func (g Glob) simulate(t Text, some bool) bool {
	p := g.src
	total := 0
	for _, s := range t {
		total += len(s.Lit) + 1
	}
	if (len(p)+1)*total > maxGlobWork {
		return some
	}
	cur := make([]bool, len(p)+1)
	next := make([]bool, len(p)+1)
	cur[0] = true
	closeStars(p, cur)
	for _, s := range t {
		if s.Unknown {
			clear(next)
			if some {
				lo := -1
				for i, on := range cur {
					if on {
						lo = i
						break
					}
				}
				if lo < 0 {
					return false
				}
				for i := lo; i <= len(p); i++ {
					next[i] = true
				}
			} else {
				for i := 0; i < len(p); i++ {
					next[i] = cur[i] && p[i] == '*'
				}
			}
			cur, next = next, cur
			closeStars(p, cur)
			continue
		}
		for k := 0; k < len(s.Lit); k++ {
			c := s.Lit[k]
			clear(next)
			any := false
			for i := 0; i < len(p); i++ {
				if !cur[i] {
					continue
				}
				switch p[i] {
				case '*':
					next[i] = true
					any = true
				case c:
					next[i+1] = true
					any = true
				}
			}
			if !any {
				return false
			}
			cur, next = next, cur
			closeStars(p, cur)
		}
	}
	return cur[len(p)]
}

// closeStars adds the states reached by letting a '*' match nothing.
func closeStars(p string, set []bool) {
	for i := 0; i < len(p); i++ {
		if set[i] && p[i] == '*' {
			set[i+1] = true
		}
	}
}
