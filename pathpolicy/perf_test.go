package pathpolicy

import (
	"encoding/json"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/rule"
)

// Tests of what guard does to be fast: each shortcut must give the answer
// of the long way round.

// skipTree is a home whose workspace has the trees the walk skips, each
// holding a file a rule that matches anywhere would otherwise block.
func skipTree(t testing.TB) tree {
	tr := planTree(t)
	build(t, tr.root,
		"home/u/proj/node_modules/pkg/.env",
		"home/u/proj/web/node_modules/pkg/.env",
		"home/u/proj/.git/objects/ab/.env",
		"home/u/proj/.git/refs/.env",
		"home/u/.cache/app/.env",
		"home/u/.rustup/toolchains/.env",
		"home/u/go/pkg/mod/x/.env",
		"home/u/go/src/.env",
		"home/u/other/.cache/.env", // only ~/.cache is skipped, not every .cache
	)
	return tr
}

func TestPlanSkipsTrees(t *testing.T) {
	tr := skipTree(t)
	pl := plan(t, tr, PlanOptions{}, "ask read(*/.env*)")
	rp := pl.Rules[0]
	if rp.Enforcement != EnforceKernelInRoots {
		t.Fatalf("enforcement %s: %s", rp.Enforcement, rp.Why)
	}
	skipped := []string{
		tr.home + "/.cache", tr.home + "/.rustup", tr.home + "/go/pkg/mod",
		tr.ws + "/.git/objects", tr.ws + "/node_modules", tr.ws + "/web/node_modules",
	}
	if rp.Skipped != len(skipped) || !reflect.DeepEqual(rp.SkippedDirs, sortedCopy(skipped)) {
		t.Errorf("skipped %d: %q\nwant %q", rp.Skipped, rp.SkippedDirs, sortedCopy(skipped))
	}
	if !strings.Contains(rp.Why, "except inside 6 directories the walk skips") {
		t.Errorf("why does not say what was skipped: %s", rp.Why)
	}
	blocked := map[string]bool{}
	for _, p := range rp.Paths {
		blocked[p] = true
	}
	for _, p := range []string{tr.ws + "/.git/refs/.env", tr.home + "/go/src/.env", tr.home + "/other/.cache/.env", tr.ws + "/.env"} {
		if !blocked[p] {
			t.Errorf("%s, outside the skipped trees, is not blocked", p)
		}
	}
	for p := range blocked {
		for _, s := range skipped {
			if within(s, p) {
				t.Errorf("%s is inside the skipped %s, yet was walked", p, s)
			}
		}
	}
}

// TestPlanSkipsOnlyForAnywhereRules: a rule whose pattern names a directory
// walks it whole, skip list or not; so does a rule whose directory is
// inside a skipped tree, even while another rule skips that tree in the
// same walk.
func TestPlanSkipsOnlyForAnywhereRules(t *testing.T) {
	tr := skipTree(t)
	pl := plan(t, tr, PlanOptions{}, "deny read(./*.env)", "deny read(~/.cache/*.env)", "ask read(*/.env*)")
	want := map[string][]string{
		"read(./*.env)":        {tr.ws + "/.env", tr.ws + "/.git/objects/ab/.env", tr.ws + "/.git/refs/.env", tr.ws + "/node_modules/pkg/.env", tr.ws + "/web/node_modules/pkg/.env"},
		"read(~/.cache/*.env)": {tr.home + "/.cache/app/.env"},
	}
	for _, rp := range pl.Rules[:2] {
		if rp.Enforcement != EnforceKernel || rp.Skipped != 0 {
			t.Errorf("%s: %s, %d skipped: %s", rp.Rule, rp.Enforcement, rp.Skipped, rp.Why)
		}
		if !reflect.DeepEqual(rp.Paths, want[rp.Rule]) {
			t.Errorf("%s blocks %q\nwant %q", rp.Rule, rp.Paths, want[rp.Rule])
		}
	}
	if pl.Rules[2].Skipped == 0 {
		t.Errorf("the anywhere rule skipped nothing: %s", pl.Rules[2].Why)
	}
}

// TestPlanNeverSkipsTheWorkspace: a workspace inside a skipped tree (a
// package being worked on in node_modules, a project under ~/.cache) is
// searched all the same.
func TestPlanNeverSkipsTheWorkspace(t *testing.T) {
	tr := skipTree(t)
	for _, ws := range []string{tr.home + "/.cache/app", tr.ws + "/node_modules/pkg"} {
		t.Run(path.Base(path.Dir(ws)), func(t *testing.T) {
			set := rule.NewSet(rules(t, tr, "ask read(*/.env*)"), rule.Env{Home: tr.home, Workspace: ws})
			pl := NewPlan(set, PlanOptions{Home: tr.home, Workspace: ws})
			if !contains(pl.Rules[0].Paths, ws+"/.env") {
				t.Errorf("the workspace's .env is not blocked: %q (skipped %q)", pl.Rules[0].Paths, pl.Rules[0].SkippedDirs)
			}
		})
	}
}

func TestWalkSkipsHaveReasons(t *testing.T) {
	doc, err := os.ReadFile("../docs/pathpolicy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range WalkSkips() {
		if s.Why == "" || s.Path == "" || strings.HasPrefix(s.Path, "/") || strings.Contains(s.Path, "*") {
			t.Errorf("entry %+v: every entry needs a relative path without '*' and a reason", s)
		}
		name := "`" + s.Path + "`"
		if s.Home {
			name = "`~/" + s.Path + "`"
		}
		if !strings.Contains(string(doc), name) {
			t.Errorf("docs/pathpolicy.md does not list %s", name)
		}
	}
}

// TestPlanWalkOrder: the walk takes entries as the kernel lists them, and
// its plan is the one of a walk in name order; where the order could
// matter (a limit, a path reached through two links) NewPlan walks in name
// order.
func TestPlanWalkOrder(t *testing.T) {
	tr := skipTree(t)
	build(t, tr.root, "home/u/proj/l1.env -> ../other/.env", "home/u/proj/l2.env -> ../other/.env")
	for i := 0; i < 40; i++ {
		build(t, tr.root, "home/u/proj/many/f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".env")
	}
	cases := []struct {
		name    string
		o       PlanOptions
		specs   []string
		matters bool
	}{
		{"anywhere", PlanOptions{}, []string{"ask read(*/.env*)", "deny read(~/.ssh/*)"}, false},
		{"globs", PlanOptions{}, []string{"deny read(./many/*.env)", "deny read(~/other/*)", "deny read($out/*.pem)"}, false},
		{"two links to one file", PlanOptions{}, []string{"deny read(./l*.env)"}, true},
		{"a walk limit", PlanOptions{MaxWalkEntries: 25}, []string{"deny read(./many/*.env)"}, true},
		{"a blocked-path limit", PlanOptions{MaxBlockedPaths: 7}, []string{"deny read(./many/*.env)"}, true},
	}
	lim := func(v, max int) int {
		if v > 0 && v < max {
			return v
		}
		return max
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Home, o.Workspace = tr.home, tr.ws
			set := rule.NewSet(rules(t, tr, tc.specs...), rule.Env{Home: tr.home, Workspace: tr.ws})
			fast := newPlan(set, o, lim, false)
			if fast.orderMatters != tc.matters {
				t.Errorf("orderMatters = %v, want %v", fast.orderMatters, tc.matters)
			}
			sorted, _ := json.Marshal(newPlan(set, o, lim, true).finish())
			got, _ := json.Marshal(NewPlan(set, o))
			if string(got) != string(sorted) {
				t.Errorf("NewPlan differs from the plan of a sorted walk:\n%s\n%s", got, sorted)
			}
			if !tc.matters {
				if unsorted, _ := json.Marshal(fast.finish()); string(unsorted) != string(sorted) {
					t.Errorf("the unsorted walk's plan differs:\n%s\n%s", unsorted, sorted)
				}
			}
		})
	}
}

// TestSensitivePathsListing: SensitivePaths examines only the entries whose
// first name its listing of home and the workspace shows, and says what
// examining every entry says, whatever the case of the names.
func TestSensitivePathsListing(t *testing.T) {
	tr := newTree(t)
	build(t, tr.root, "home/u/.VSCODE/", "home/u/.Zshrc", "home/u/proj/.IDEA/x", "home/u/proj/.mcp.json", "home/u/.config/fish/config.fish")
	check := func(t *testing.T, p *Policy) {
		t.Helper()
		for _, l := range p.SensitivePaths() {
			st, err := lstat(l.Path)
			exists := err == nil
			if l.Exists != exists || exists && l.Dir != st.dir {
				t.Errorf("%s: exists %v dir %v; lstat says %v %+v", l.Path, l.Exists, l.Dir, exists, st)
			}
		}
	}
	t.Run("plain names", func(t *testing.T) { check(t, newPolicy(t, tr)) })
	t.Run("a name that is not ASCII: every entry examined", func(t *testing.T) {
		build(t, tr.root, "home/u/.ſsh", "home/u/proj/café")
		if listedNames(tr.home) != nil || listedNames(tr.ws) != nil {
			t.Fatal("a listing with a name that is not ASCII is relied on")
		}
		check(t, newPolicy(t, tr))
	})
	t.Run("a directory that cannot be listed", func(t *testing.T) {
		if listedNames(tr.root+"/nowhere") != nil {
			t.Fatal("a missing directory has a listing")
		}
	})
}

// TestIdentityIndexOnFirstUse: the identity index is made by the first
// check that needs it, from the files as they are then; a hard link made
// after New is caught like one made before.
func TestIdentityIndexOnFirstUse(t *testing.T) {
	tr := newTree(t)
	p := newPolicy(t, tr, "deny read(~/.ssh/*)", "deny read(~/.aws)")
	if err := os.Link(tr.home+"/.ssh/id_rsa", tr.outside+"/late-link"); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(rule.Read, tr.outside+"/late-link", ""); d.Decision != rule.Deny || d.Match != MatchSameFile {
		t.Errorf("a hard link to a denied file: %s %s (%s)", d.Decision, d.Match, d.Why)
	}
	if d := p.Check(rule.Read, tr.outside+"/data.txt", ""); d.Decision == rule.Deny {
		t.Errorf("a file with one link is denied: %s", d.Why)
	}
	if d := p.Check(rule.Write, tr.cfg+"/settings.toml", ""); d.Decision != rule.Deny || d.Reason != ReasonProtected {
		t.Errorf("guard's settings: %s %s", d.Decision, d.Reason)
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
