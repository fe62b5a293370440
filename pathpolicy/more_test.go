package pathpolicy

import (
	"testing"

	"github.com/guard-sh/guard/rule"
)

// TestMoreSensitive: the places the user's own configuration names (given
// by Options.Sensitive, as guard gives what git's configuration names) are
// sensitive like the list's entries: a write or delete there asks even
// under a broad allow rule, and is allowed only by a rule that names it.
// They are asked for only when a write or delete is checked.
func TestMoreSensitive(t *testing.T) {
	tr := newTree(t)
	build(t, tr.root, "home/u/proj/.githooks/pre-commit", "home/u/proj/tools/git.conf", "home/u/proj/tools/other")
	calls := 0
	newP := func(specs ...string) *Policy {
		env := rule.Env{Home: tr.home, Workspace: tr.ws}
		p, err := New(rule.NewSet(rules(t, tr, specs...), env), Options{
			Home: tr.home, Workspace: tr.ws, GuardPaths: []string{tr.cfg, tr.state},
			Sensitive: func() []Location {
				calls++
				return []Location{
					{Path: tr.ws + "/.githooks", Dir: true, Why: "core.hooksPath in .git/config:3: git runs the hooks here"},
					{Path: tr.ws + "/tools/git.conf", Why: "include.path in .git/config:5: git reads this configuration file"},
					{Path: "relative/ignored", Why: "not absolute"},
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	broad := newP("allow write(./*)", "allow delete(./*)")
	if d := broad.Check(rule.Read, ".githooks/pre-commit", tr.ws); d.Decision != rule.Allow || calls != 0 {
		t.Fatalf("a read: %s (%s); the places were asked for %d times", d.Decision, d.Why, calls)
	}
	cases := []struct {
		name     string
		p        *Policy
		op       rule.Kind
		path     string
		decision rule.Action
		reason   Reason
	}{
		{"a hook under a broad allow", broad, rule.Write, ".githooks/pre-commit", rule.Ask, ReasonSensitive},
		{"a new hook", broad, rule.Write, ".githooks/post-checkout", rule.Ask, ReasonSensitive},
		{"the hooks directory itself", broad, rule.Delete, ".githooks", rule.Ask, ReasonSensitive},
		{"an included file", broad, rule.Write, "tools/git.conf", rule.Ask, ReasonSensitive},
		{"compared without case, as the list is", broad, rule.Write, ".GITHOOKS/x", rule.Ask, ReasonSensitive},
		{"its neighbour", broad, rule.Write, "tools/other", rule.Allow, ReasonRuleAllow},
		{"a name that only starts alike", broad, rule.Write, ".githooks2/x", rule.Allow, ReasonRuleAllow},
		{"a rule that names the hooks", newP("allow write(./*)", "allow write(./.githooks/*)"), rule.Write, ".githooks/pre-commit", rule.Allow, ReasonRuleAllow},
		{"a rule that names the included file", newP("allow write(./tools/git.conf)"), rule.Write, "tools/git.conf", rule.Allow, ReasonRuleAllow},
		{"a relative place is not taken", broad, rule.Write, "relative/ignored", rule.Allow, ReasonRuleAllow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.p.Check(tc.op, tc.path, tr.ws)
			if d.Decision != tc.decision || d.Reason != tc.reason {
				t.Fatalf("%s %s: %s %s (%s), want %s %s", tc.op, tc.path, d.Decision, d.Reason, d.Why, tc.decision, tc.reason)
			}
			if tc.reason == ReasonSensitive && (!d.Sensitive || d.SensitiveWhy == "") {
				t.Fatalf("not marked sensitive with its reason: %+v", d)
			}
		})
	}
}
