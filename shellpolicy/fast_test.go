package shellpolicy

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// The short ways of reading (quickLiteral, plainSource) must give what the
// long ways give. These tests hold them to the long ways and to the shell
// library's own expansion.

// TestQuickLiteral pins which words are read the short way, and their value.
func TestQuickLiteral(t *testing.T) {
	cases := []struct {
		name  string
		word  string
		value string
		quick bool
	}{
		{"plain text", `status`, "status", true},
		{"option with a value", `--type=go`, "--type=go", true},
		{"single-quoted", `'TODO|FIXME'`, "TODO|FIXME", true},
		{"double-quoted plain text", `"a b"`, "a b", true},
		{"empty single quotes", `''`, "", true},
		{"empty double quotes", `""`, "", true},
		{"quotes joined to text", `--format="%h %s"`, "--format=%h %s", true},
		{"quoted parts of a name", `'r'"m"`, "rm", true},
		{"a lone dollar", `$`, "$", true},
		{"a glob in quotes", `'*.go'`, "*.go", true},
		{"a tilde in quotes", `"~"`, "~", true},
		{"a brace in quotes", `'{a,b}'`, "{a,b}", true},
		{"an escape is read the long way", `r\m`, "", false},
		{"a backslash in double quotes is read the long way", `"a\"b"`, "", false},
		{"a tilde is read the long way", `~/x`, "", false},
		{"a tilde after = is read the long way", `a=~/x`, "", false},
		{"a glob is read the long way", `*.go`, "", false},
		{"a bracket is read the long way", `a[1]`, "", false},
		{"a brace is read the long way", `{a,b}`, "", false},
		{"ansi-c quoting is read the long way", `$'\x72m'`, "", false},
		{"locale quoting is read the long way", `$"x"`, "", false},
		{"an expansion is read the long way", `"$x"`, "", false},
		{"a substitution is read the long way", `$(x)`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "echo " + tc.word
			file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
			if err != nil {
				t.Fatal(err)
			}
			args := file.Stmts[0].Cmd.(*syntax.CallExpr).Args
			if len(args) != 2 {
				t.Fatalf("%q parses into %d words", src, len(args))
			}
			v, ok := quickLiteral(args[1], &frame{src: src})
			if ok != tc.quick || v != tc.value {
				t.Fatalf("quickLiteral(%s) = %q, %v; want %q, %v", tc.word, v, ok, tc.value, tc.quick)
			}
			checkQuickLiteral(t, src, args[1])
		})
	}
}

// checkQuickLiteral holds a word read the short way to the long way (as an
// argument and as an assignment's value, and the quoted text it marks) and
// to the shell library's expansion with an empty environment.
func checkQuickLiteral(t *testing.T, src string, x *syntax.Word) {
	t.Helper()
	quickFrame := &frame{src: src, ctrl: true}
	v, ok := quickLiteral(x, quickFrame)
	if !ok {
		return
	}
	for _, assignValue := range []bool{false, true} {
		w := newWalker(Options{})
		longFrame := &frame{src: src, ctrl: true}
		long := w.readWord(x, &cmdCtx{f: longFrame}, assignValue)
		if long.Split || long.tildeHome || !sameText(long.Text, rule.Known(v)) {
			t.Fatalf("%q: word %q: read the short way %q, the long way %#v (assignment value: %v)",
				src, src[x.Pos().Offset():x.End().Offset()], v, long, assignValue)
		}
		if !slices.Equal(quickFrame.quoted, longFrame.quoted) {
			t.Fatalf("%q: the short way marks %v quoted, the long way %v", src, quickFrame.quoted, longFrame.quoted)
		}
		quickFrame.quoted = nil
		quickLiteral(x, quickFrame)
	}
	fields, err := expand.Fields(&expand.Config{}, x)
	if err != nil || !(slices.Equal(fields, []string{v}) || v == "" && len(fields) == 0) {
		t.Fatalf("%q: word read the short way as %q; the shell library expands it to %q (%v)", src, v, fields, err)
	}
}

// FuzzQuickLiteral: every word that quickLiteral reads, it reads as the long
// way and as the shell library's expansion do.
func FuzzQuickLiteral(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{`a'b'"c" "" '' x`, `--format="%h %s"`, `"a""b"'c'd`, `$ a$ = a=b`, "\"a\nb\" 'c\nd'", `"é" 'ü' 日本`,
		`"a\"b" "a\\b" "a\$b" "a\b" 'a\b'`, `r\m \* ~/x a=~/x:~/y *.go a[1] {a,b} $'\x72m' $"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<12 {
			return
		}
		for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
			file, err := syntax.NewParser(syntax.Variant(lang)).Parse(&depthReader{s: src}, "")
			if err != nil {
				continue
			}
			syntax.Walk(file, func(n syntax.Node) bool {
				if x, ok := n.(*syntax.Word); ok {
					checkQuickLiteral(t, src, x)
				}
				return true
			})
		}
	})
}

// TestSegmentTextFromSource pins the text of segments of plain words, which
// is taken from the source where the source reads as the text.
func TestSegmentTextFromSource(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{"single blanks: the source", `git status --short`, "git status --short"},
		{"one word", `ls`, "ls"},
		{"two blanks between words", `git  status`, "git status"},
		{"a tab between words", "git\tstatus", "git status"},
		{"a line continuation between words", "git \\\nstatus", "git status"},
		{"a line continuation in a word", "gi\\\nt status", "git status"},
		{"a NUL in a word", "echo a\x00b c", "echo ab c"},
		{"blanks before and after", "  ls -la  ", "ls -la"},
		{"a redirection after the words", `ls -la > /dev/null`, "ls -la"},
		{"a redirection between the words", `ls >/dev/null -la`, "ls -la"},
		{"a quoted word", `echo 'a b'`, "echo a b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Parse(tc.src, testOpts)
			if len(s.Segments) != 1 {
				t.Fatalf("%q: %d segments", tc.src, len(s.Segments))
			}
			if got := s.Segments[0].Text; !sameText(got, rule.Known(tc.want)) {
				t.Fatalf("%q reads %#v, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// guardWordsToTry are words that hit guards or come near: every guard's
// words and options, their prefixes, with values, in clusters, and the odd
// forms getopt_long reads ("--", "--=x").
func guardWordsToTry() []string {
	words := []string{"-", "--", "--=", "--=x", "-=", "x", "", "---", "-" + "\xff"}
	for _, g := range guardTable {
		words = append(words, g.words...)
		for _, l := range g.longs {
			for i := 1; i <= len(l); i++ {
				words = append(words, "--"+l[:i], "--"+l[:i]+"=v", "--"+l[:i]+"x")
			}
		}
		for _, l := range g.exact {
			words = append(words, "--"+l, "--"+l+"=v")
		}
		for i := 0; i < len(g.shorts); i++ {
			c := string(g.shorts[i])
			words = append(words, "-"+c, "-x"+c, "-"+c+"x", "+"+c)
		}
	}
	return words
}

// TestGuardFilterSound: where a guard of a command hits a word, the
// command's filter lets the word through to the guards.
func TestGuardFilterSound(t *testing.T) {
	words := guardWordsToTry()
	entries := indexedReadOnly()
	for _, e := range entries {
		if len(e.guards) > 0 && e.filter == nil {
			t.Errorf("%s has guards but no filter", e.Pattern)
		}
		for _, w := range words {
			checkGuardFilter(t, e, w)
		}
	}
}

// indexedReadOnly are the read-only entries of the command index, each
// with the filter it made.
func indexedReadOnly() []*roEntry {
	var out []*roEntry
	for i := range readOnlyTable {
		ro := lookupCommand(readOnlyTable[i].name).readOnly
		for j := range ro {
			if ro[j].ReadOnlyCommand == &readOnlyTable[i] {
				out = append(out, &ro[j])
			}
		}
	}
	return out
}

// FuzzGuardFilter: the filter of every read-only command lets through every
// word that one of its guards hits.
func FuzzGuardFilter(f *testing.F) {
	for _, w := range guardWordsToTry() {
		f.Add(w)
	}
	entries := indexedReadOnly()
	f.Fuzz(func(t *testing.T, w string) {
		for _, e := range entries {
			checkGuardFilter(t, e, w)
		}
	})
}

func checkGuardFilter(t *testing.T, e *roEntry, w string) {
	t.Helper()
	if len(e.guards) == 0 {
		return
	}
	gw := readGuardWord(w)
	f := e.filter
	for _, id := range e.guards {
		if g := id.guard(); g.hits(gw) && !f.mayHit(gw) {
			t.Fatalf("guard %s of %s hits %q, but the filter turns it away", g.ID, e.Pattern, w)
		}
	}
}
