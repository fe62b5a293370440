package rule

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// reference is the textbook dynamic program over bytes: '*' matches any run,
// everything else itself.
func reference(pattern, s string) bool {
	// m[j] reports whether pattern[:i] matches s[:j], for the current i.
	m := make([]bool, len(s)+1)
	m[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(s)+1)
		if pattern[i] == '*' {
			seen := false
			for j := range m {
				seen = seen || m[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(s); j++ {
				next[j] = m[j-1] && s[j-1] == pattern[i]
			}
		}
		m = next
	}
	return m[len(s)]
}

func TestGlobMatchString(t *testing.T) {
	tests := []struct {
		name, pattern, s string
		want             bool
	}{
		{"exact", "git status", "git status", true},
		{"exact is whole string", "git status", "git status -s", false},
		{"case-sensitive", "git status", "Git status", false},
		{"trailing star", "git *", "git push origin", true},
		{"star matches empty", "git*", "git", true},
		{"star crosses slash", "/home/*", "/home/u/.ssh/id_rsa", true},
		{"leading star", "*/.env*", "/w/app/.env.local", true},
		{"leading star needs slash", "*/.env*", ".env", false},
		{"middle star", "rm * -rf", "rm x y -rf", true},
		{"overlapping runs", "a*aa", "aa", false},
		{"overlapping runs ok", "a*aa", "aaa", true},
		{"star only", "*", "", true},
		{"stars in a row", "**", "anything", true},
		{"suffix must be at end", "*.go", "a.go.txt", false},
		{"unicode literal", "cat résumé*", "cat résumé.txt", true},
		{"empty pattern", "", "", true},
		{"empty pattern non-empty string", "", "x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := CompileGlob(tc.pattern)
			if got := g.MatchString(tc.s); got != tc.want {
				t.Fatalf("%q.MatchString(%q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
			}
			if ref := reference(tc.pattern, tc.s); ref != tc.want {
				t.Fatalf("reference disagrees with the table for %q %q", tc.pattern, tc.s)
			}
		})
	}
}

func u(src string) Span   { return Span{Lit: src, Unknown: true} }
func lit(s string) Span   { return Span{Lit: s} }
func text(s ...Span) Text { return Text(s) }

func TestGlobUnknownSpans(t *testing.T) {
	tests := []struct {
		name          string
		pattern       string
		t             Text
		some, allOfIt bool
	}{
		{"deny catches variable target", "rm -rf *", text(lit("rm -rf "), u("$DIR")), true, true},
		{"variable could be the flags", "rm -rf *", text(lit("rm "), u("$FLAGS"), lit(" /")), true, false},
		{"exact allow does not cover a variable", "git status", text(lit("git "), u("$SUB")), true, false},
		{"prefix allow covers a variable argument", "git *", text(lit("git "), u("$SUB")), true, true},
		{"variable command name can be anything", "rm *", text(u("$CMD"), lit(" -rf x")), true, false},
		{"literal mismatch before the unknown", "git *", text(lit("npm "), u("$X")), false, false},
		{"literal mismatch after the unknown", "*.go", text(u("$X"), lit(".txt")), false, false},
		{"unknown between literals", "a*b", text(lit("a"), u("$X"), lit("b")), true, true},
		{"unknown must sit in a star", "ab*", text(lit("a"), u("$X"), lit("b")), true, false},
		{"two unknowns one star", "cp * /tmp/x", text(lit("cp "), u("$A"), lit(" "), u("$B"), lit(" /tmp/x")), true, true},
		{"unknown cannot hide a literal for allow", "cp * /safe/*", text(lit("cp "), u("$A"), lit(" "), u("$B")), true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := CompileGlob(tc.pattern)
			if got := g.MatchSome(tc.t); got != tc.some {
				t.Errorf("MatchSome = %v, want %v", got, tc.some)
			}
			if got := g.MatchAll(tc.t); got != tc.allOfIt {
				t.Errorf("MatchAll = %v, want %v", got, tc.allOfIt)
			}
		})
	}
}

// instantiate replaces each unknown span with a random string over alphabet.
func instantiate(r *rand.Rand, t Text, alphabet string) string {
	var b strings.Builder
	for _, s := range t {
		if !s.Unknown {
			b.WriteString(s.Lit)
			continue
		}
		n := r.IntN(4)
		for i := 0; i < n; i++ {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
	}
	return b.String()
}

// textFrom reads '?' in s as an unknown span.
func textFrom(s string) Text {
	var t Text
	for i, part := range strings.Split(s, "?") {
		if i > 0 {
			t = append(t, u("$X"))
		}
		if part != "" {
			t = append(t, lit(part))
		}
	}
	return t
}

func FuzzGlob(f *testing.F) {
	for _, seed := range [][2]string{
		{"git *", "git push"}, {"*/.env*", "/a/.env"}, {"a*aa", "aaa"}, {"*", ""},
		{"rm -rf *", "rm ?"}, {"a*b*c", "a?c"}, {"ab", "a?b"},
	} {
		f.Add(seed[0], seed[1], uint64(1))
	}
	f.Fuzz(func(t *testing.T, pattern, target string, seed uint64) {
		if len(pattern) > 64 || len(target) > 64 {
			return
		}
		g := CompileGlob(pattern)
		plain := strings.ReplaceAll(target, "?", "")
		// A target with no unknown span: all three readings agree with the reference.
		want := reference(pattern, plain)
		k := Known(plain)
		if g.MatchString(plain) != want || g.MatchSome(k) != want || g.MatchAll(k) != want {
			t.Fatalf("%q vs %q: MatchString=%v MatchSome=%v MatchAll=%v, reference %v",
				pattern, plain, g.MatchString(plain), g.MatchSome(k), g.MatchAll(k), want)
		}
		// With unknown spans: MatchAll is sound and MatchSome complete against
		// random values of the unknowns, drawn from the pattern's own characters.
		tx := textFrom(target)
		all, some := g.MatchAll(tx), g.MatchSome(tx)
		if all && !some {
			t.Fatalf("%q vs %v: MatchAll without MatchSome", pattern, tx)
		}
		r := rand.New(rand.NewPCG(seed, 7))
		alphabet := pattern + "xy/ "
		for i := 0; i < 20; i++ {
			s := instantiate(r, tx, alphabet)
			m := reference(pattern, s)
			if all && !m {
				t.Fatalf("%q: MatchAll(%v) but the value %q does not match", pattern, tx, s)
			}
			if m && !some {
				t.Fatalf("%q: the value %q matches but MatchSome(%v) is false", pattern, s, tx)
			}
		}
	})
}
