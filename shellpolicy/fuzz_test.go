package shellpolicy

import (
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// fuzzSeeds are starting points: every case of the verdict table and the
// hide attempts, but for the huge ones that test the limits (the fuzzing
// engine slows to a crawl mutating them).
func fuzzSeeds(f *testing.F) {
	for _, c := range append(caughtCases, allowedCases...) {
		if len(c.cmd) < 4096 {
			f.Add(c.cmd)
		}
	}
	for _, a := range hideAttempts {
		f.Add(a)
	}
}

// FuzzParse: the parser never panics, whatever the input, and what it
// returns is consistent.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		s := Parse(src, testOpts)
		if len(s.Segments) > MaxSegments {
			t.Fatalf("%d segments, past the limit", len(s.Segments))
		}
		for _, seg := range s.Segments {
			if seg.Pos.Line < 1 || seg.Pos.Col < 0 {
				t.Fatalf("segment %q at %s", seg.Text, seg.Pos)
			}
		}
		if _, err := Segments(src); (err != nil) != (len(s.Problems) > 0) {
			t.Fatalf("Segments error %v, problems %v", err, s.Problems)
		}
	})
}

// FuzzEvaluate: judging never panics, and deny is monotonic: when a plain
// simple command at the top level of the input (its words wholly literal)
// matches a deny rule, the command is denied, whatever surrounds it.
func FuzzEvaluate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		base := testPolicy(t, stdRules...)
		start := time.Now()
		Evaluate(src, base) // never panics
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%q took %v", src, d)
		}
		for _, text := range topLevelLiteralCommands(src) {
			r, err := rule.New(rule.Deny, "shell("+text+")")
			if err != nil {
				continue // not expressible as a rule (a control character)
			}
			r.Source = rule.SourceGlobal
			p := base
			p.Rules = rule.NewSet([]rule.Rule{r}, rule.Env{Home: testHome, Workspace: testWS})
			v := Evaluate(src, p)
			if v.Decision != rule.Deny && !overLimit(v) {
				t.Fatalf("%q holds the command %q, but with deny %s guard says %s", src, text, r, describe(v))
			}
		}
	})
}

// overLimit reports whether guard stopped reading the command at a limit;
// the monotonicity holds for commands within the limits.
func overLimit(v *Verdict) bool {
	for _, p := range v.Problems {
		if p.Reason == ReasonLimit {
			return true
		}
	}
	return false
}

// topLevelLiteralCommands finds, with the parser alone, the simple commands
// at the top level of src (in lists and pipelines too) whose words are all
// plain literals, as text.
func topLevelLiteralCommands(src string) []string {
	if len(src) > MaxInputBytes || len(src) > 1<<14 {
		return nil
	}
	r := &depthReader{s: src}
	file, err := syntax.NewParser().Parse(r, "")
	if err != nil {
		return nil
	}
	var out []string
	var visit func(s *syntax.Stmt, depth int)
	visit = func(s *syntax.Stmt, depth int) {
		if depth > 100 {
			return
		}
		switch x := s.Cmd.(type) {
		case *syntax.BinaryCmd:
			visit(x.X, depth+1)
			visit(x.Y, depth+1)
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return
			}
			words := make([]string, 0, len(x.Args))
			for _, a := range x.Args {
				w, ok := plainWord(a)
				if !ok || w == "" {
					return
				}
				words = append(words, w)
			}
			out = append(out, strings.Join(words, " "))
		}
	}
	for _, s := range file.Stmts {
		visit(s, 0)
	}
	return out
}

// FuzzSed: the sed script readers never panic.
func FuzzSed(f *testing.F) {
	for _, s := range []string{"1,20p", "s/a/b/g", "s/[/]/x/w f", "1e zap", "/x/{p;q}", "y/ab/cd/", "a\\", ":a;N;ba"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sc string) {
		sedScriptNotPrintOnly(sc)
		sedExec(sc)
	})
}
