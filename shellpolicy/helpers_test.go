package shellpolicy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/rule"
)

// testPaths is a small real Paths: the path made absolute against its
// directory and cleaned by filepath.Abs, then matched by the file rules.
// (pathpolicy also resolves symbolic links; these tests need no links.)
type testPaths struct{ set *rule.Set }

func (p testPaths) MatchPath(op rule.Kind, pth, dir string) (rule.Matches, error) {
	if !filepath.IsAbs(pth) {
		pth = filepath.Join(dir, pth)
	}
	abs, err := filepath.Abs(pth)
	if err != nil {
		return rule.Matches{}, err
	}
	return p.set.Match(op, rule.Known(abs)), nil
}

const (
	testHome = "/home/u"
	testWS   = "/w"
)

// rules builds rules from "deny shell(rm *)"-style lines.
func rules(t testing.TB, lines ...string) []rule.Rule {
	t.Helper()
	var out []rule.Rule
	for _, l := range lines {
		action, text, ok := strings.Cut(l, " ")
		if !ok {
			t.Fatalf("bad rule line %q", l)
		}
		r, err := rule.New(rule.Action(action), text)
		if err != nil {
			t.Fatalf("rule %q: %v", l, err)
		}
		r.Source = rule.SourceGlobal
		out = append(out, r)
	}
	return out
}

// testPolicy is a policy over the given rules, in the workspace /w, with the
// read-only defaults on.
func testPolicy(t testing.TB, lines ...string) Policy {
	set := rule.NewSet(rules(t, lines...), rule.Env{Home: testHome, Workspace: testWS})
	return Policy{Rules: set, ReadOnlyDefaults: true, Paths: testPaths{set}, Dir: testWS, Workspace: testWS, Home: testHome}
}

// describe renders a verdict for a failure message.
func describe(v *Verdict) string {
	var b strings.Builder
	b.WriteString(string(v.Decision) + " " + v.Reason)
	if v.Rule != nil {
		b.WriteString(" by " + v.Rule.String())
	}
	if v.MustAsk {
		b.WriteString(" (must ask)")
	}
	b.WriteString(": " + v.Detail)
	for _, s := range v.Segments {
		b.WriteString("\n    " + s.Pos.String() + " [" + s.Via + "] " + s.Command + " -> " + string(s.Decision) + " " + s.Reason)
		if s.Rule != nil {
			b.WriteString(" " + s.Rule.String())
		}
		if s.Detail != "" {
			b.WriteString(" (" + s.Detail + ")")
		}
	}
	for _, p := range v.Problems {
		b.WriteString("\n    problem " + p.Reason + " " + p.String())
	}
	return b.String()
}
