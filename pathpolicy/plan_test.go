package pathpolicy

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/rule"
)

func planTree(t testing.TB) tree {
	tr := newTree(t)
	build(t, tr.root,
		"home/u/proj/sub/.env.local",
		"home/u/proj/.envs/prod",
		"home/u/proj/.env.link -> ../../../outside/data.txt",
		"home/u/proj/.env.dangling -> nowhere",
		"home/u/other/.env",
		"home/u/other/deep/a/b/c/.env.test",
		"outside/.env",
	)
	return tr
}

func plan(t testing.TB, tr tree, o PlanOptions, specs ...string) Plan {
	t.Helper()
	set := rule.NewSet(rules(t, tr, specs...), rule.Env{Home: tr.home, Workspace: tr.ws})
	if o.Home == "" {
		o.Home, o.Workspace = tr.home, tr.ws
	}
	return NewPlan(set, o)
}

func TestPlanRules(t *testing.T) {
	tr := planTree(t)
	tests := []struct {
		name        string
		rule        string
		enforcement Enforcement
		paths       []string
		why         string // a substring of the rule's why
	}{
		{name: "a directory pattern blocks the directory", rule: "deny read(~/.ssh/*)", enforcement: EnforceKernel, paths: []string{"$home/.ssh"}},
		{name: "a literal directory", rule: "deny read(~/.aws)", enforcement: EnforceKernel, paths: []string{"$home/.aws"}},
		{name: "a literal file", rule: "deny read($out/secret.pem)", enforcement: EnforceKernel, paths: []string{"$out/secret.pem"}},
		{name: "a literal file that does not exist", rule: "deny read($out/missing.key)", enforcement: EnforceKernel, paths: []string{"$out/missing.key"}, why: "does not exist"},
		{name: "a literal path through a symlink blocks its target", rule: "deny read(./sshdir)", enforcement: EnforceKernel, paths: []string{"$home/.ssh"}},
		{name: "a pattern under a missing directory", rule: "deny read(~/nothing/*)", enforcement: EnforceKernel, why: "does not exist"},
		{name: "ask rules block too", rule: "ask read(./sub/*)", enforcement: EnforceKernel, paths: []string{"$ws/sub"}},
		{name: "anywhere pattern searches home and workspace", rule: "ask read(*/.env*)", enforcement: EnforceKernelInRoots,
			paths: []string{"$home/other/.env", "$home/other/deep/a/b/c/.env.test", "$ws/.env", "$ws/.envs", "$ws/sub/.env.local", "$out/data.txt"}, why: "elsewhere only the gate"},
		{name: "a glob in a directory", rule: "deny read(./src/*.go)", enforcement: EnforceKernel, paths: []string{"$ws/src/main.go"}},
		{name: "a glob across directories", rule: "deny read(~/other/*.test)", enforcement: EnforceKernel, paths: []string{"$home/other/deep/a/b/c/.env.test"}},
		{name: "a glob matching nothing", rule: "deny read(./src/*.rs)", enforcement: EnforceKernel, why: "nothing matches"},
		{name: "bare read is too broad", rule: "deny read", enforcement: EnforceGate, why: "every path"},
		{name: "star is too broad", rule: "deny read(*)", enforcement: EnforceGate, why: "every path"},
		{name: "the root is too broad", rule: "deny read(/*)", enforcement: EnforceGate, why: "every command needs"},
		{name: "system programs cannot be blocked", rule: "deny read(/usr/bin/*)", enforcement: EnforceGate, why: "/usr/bin"},
		{name: "home holds the workspace", rule: "deny read(~)", enforcement: EnforceGate, why: "workspace"},
		{name: "the workspace itself", rule: "deny read(./*)", enforcement: EnforceGate, why: "workspace"},
		{name: "a single system file can be blocked", rule: "deny read(/etc/shadow)", enforcement: EnforceKernel, paths: []string{"/etc/shadow"}},
		{name: "a descriptor cannot be planned", rule: "deny read(/dev/fd/3)", enforcement: EnforceGate, why: "descriptors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rule == "deny read(/etc/shadow)" && !exists("/etc/shadow") {
				t.Skip("no /etc/shadow here")
			}
			pl := plan(t, tr, PlanOptions{}, tc.rule)
			if len(pl.Rules) != 1 {
				t.Fatalf("%d rule plans, want 1", len(pl.Rules))
			}
			rp := pl.Rules[0]
			if rp.Enforcement != tc.enforcement {
				t.Errorf("enforcement = %s, want %s (%s)", rp.Enforcement, tc.enforcement, rp.Why)
			}
			var want []string
			for _, p := range tc.paths {
				want = append(want, tr.expand(p))
			}
			if !reflect.DeepEqual(rp.Paths, want) {
				t.Errorf("paths = %q\nwant %q", rp.Paths, want)
			}
			if !strings.Contains(rp.Why, tc.why) {
				t.Errorf("why = %q, want it to say %q", rp.Why, tc.why)
			}
			var blocked []string
			for _, b := range pl.Blocked {
				blocked = append(blocked, b.Path)
				if st, err := lstat(b.Path); (err == nil) != b.Exists || err == nil && st.dir != b.Dir {
					t.Errorf("blocked %s: dir %v exists %v, but lstat says %+v, %v", b.Path, b.Dir, b.Exists, st, err)
				}
			}
			if !reflect.DeepEqual(blocked, want) {
				t.Errorf("blocked = %q\nwant %q", blocked, want)
			}
		})
	}
}

func TestPlanMerges(t *testing.T) {
	tr := planTree(t)
	build(t, tr.root, "home/u/.ssh-old", "home/u/.ssh/keys/old")
	pl := plan(t, tr, PlanOptions{},
		"deny read(~/.ssh/*)", "deny read(~/.ssh/id_rsa)", "ask read(*/.env*)", "deny read(./.envs/prod)", "allow read(~/notes.txt)",
		"deny read(~/.ssh-old)", "deny read(~/.ssh/keys/old)")
	got := map[string][]string{}
	for _, b := range pl.Blocked {
		got[b.Path] = b.Rules
	}
	for _, inside := range []string{"/.ssh/id_rsa", "/.ssh/keys/old"} {
		if _, ok := got[tr.home+inside]; ok {
			t.Errorf("%s, inside a blocked directory, is listed on its own", inside)
		}
	}
	if _, ok := got[tr.home+"/.ssh-old"]; !ok {
		t.Error("~/.ssh-old, beside a blocked directory, is not listed")
	}
	if want := []string{"read(~/.ssh/*)", "read(~/.ssh/id_rsa)", "read(~/.ssh/keys/old)"}; !reflect.DeepEqual(got[tr.home+"/.ssh"], want) {
		t.Errorf("~/.ssh blocked for %q, want %q", got[tr.home+"/.ssh"], want)
	}
	if want := []string{"read(*/.env*)", "read(./.envs/prod)"}; !reflect.DeepEqual(got[tr.ws+"/.envs"], want) {
		t.Errorf(".envs blocked for %q, want %q", got[tr.ws+"/.envs"], want)
	}
	if len(pl.Rules) != 6 {
		t.Errorf("%d rule plans; allow rules have none, want 6", len(pl.Rules))
	}
	for _, b := range pl.Blocked {
		if b.Path == tr.outside+"/data.txt" && b.Via != tr.ws+"/.env.link" {
			t.Errorf("data.txt is blocked via %q, want the link", b.Via)
		}
	}
}

func TestPlanLimits(t *testing.T) {
	tr := planTree(t)
	for i := 0; i < 50; i++ {
		build(t, tr.root, fmt.Sprintf("home/u/proj/many/f%02d.env", i))
	}
	t.Run("walk limit", func(t *testing.T) {
		pl := plan(t, tr, PlanOptions{MaxWalkEntries: 20}, "deny read(./many/*.env)")
		rp := pl.Rules[0]
		if rp.Enforcement != EnforcePartial || !strings.Contains(rp.Why, "MaxWalkEntries") {
			t.Errorf("enforcement %s: %s", rp.Enforcement, rp.Why)
		}
		if pl.Visited != 20 || len(rp.Paths) != 20 {
			t.Errorf("visited %d, blocked %d; want 20 each", pl.Visited, len(rp.Paths))
		}
	})
	t.Run("walk limit before any match", func(t *testing.T) {
		pl := plan(t, tr, PlanOptions{MaxWalkEntries: 2}, "deny read(./many/*.nothing)", "deny read(~/.ssh/*)")
		if rp := pl.Rules[0]; rp.Enforcement != EnforceGate {
			t.Errorf("enforcement %s: %s", rp.Enforcement, rp.Why)
		}
		if rp := pl.Rules[1]; rp.Enforcement != EnforceKernel {
			t.Errorf("a rule that needs no walk: %s: %s", rp.Enforcement, rp.Why)
		}
	})
	t.Run("blocked limit", func(t *testing.T) {
		pl := plan(t, tr, PlanOptions{MaxBlockedPaths: 10}, "deny read(./many/*.env)")
		rp := pl.Rules[0]
		if rp.Enforcement != EnforcePartial || !strings.Contains(rp.Why, "MaxBlockedPaths") || len(pl.Blocked) != 10 {
			t.Errorf("enforcement %s, %d blocked: %s", rp.Enforcement, len(pl.Blocked), rp.Why)
		}
	})
	t.Run("limits cannot be raised", func(t *testing.T) {
		pl := plan(t, tr, PlanOptions{MaxWalkEntries: MaxWalkEntries * 2}, "deny read(./many/*.env)")
		if pl.Rules[0].Enforcement != EnforceKernel {
			t.Errorf("%s", pl.Rules[0].Why)
		}
	})
}

func TestPlanHardLinks(t *testing.T) {
	tr := planTree(t)
	if err := os.Link(tr.outside+"/secret.pem", tr.outside+"/copy"); err != nil {
		t.Fatal(err)
	}
	pl := plan(t, tr, PlanOptions{}, "deny read($out/*.pem)")
	if len(pl.Blocked) != 1 || pl.Blocked[0].Links != 2 {
		t.Errorf("blocked %+v: want secret.pem with 2 links", pl.Blocked)
	}
}

func TestPlanDeterministic(t *testing.T) {
	tr := planTree(t)
	specs := []string{"ask read(*/.env*)", "deny read(~/.ssh/*)", "deny read(~/other/*)", "deny read($out/*.pem)"}
	a, err := json.Marshal(plan(t, tr, PlanOptions{}, specs...))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		b, _ := json.Marshal(plan(t, tr, PlanOptions{}, specs...))
		if string(a) != string(b) {
			t.Fatalf("two plans differ:\n%s\n%s", a, b)
		}
	}
}

// TestPlanWalkDoesNotFollowLinks: a symlinked directory is not entered, so
// a link to / cannot make the walk cover the machine; what it leads to is
// blocked only if the link itself matches.
func TestPlanWalkDoesNotFollowLinks(t *testing.T) {
	tr := planTree(t)
	build(t, tr.root, "home/u/proj/rootlink -> /", "home/u/proj/loop -> loop")
	pl := plan(t, tr, PlanOptions{}, "deny read(./*passwd)")
	if len(pl.Blocked) != 0 || pl.Rules[0].Enforcement != EnforceKernel {
		t.Errorf("plan followed a link: %+v %+v", pl.Blocked, pl.Rules)
	}
}

// TestPlanWalksOnce: a pattern that matches anywhere searches home and
// the workspace inside it in one walk, each entry once.
func TestPlanWalksOnce(t *testing.T) {
	tr := planTree(t)
	pl := plan(t, tr, PlanOptions{}, "ask read(*/.env*)")
	if want := []string{tr.home, tr.ws}; !reflect.DeepEqual(pl.Rules[0].Searched, want) {
		t.Errorf("searched %q, want %q", pl.Rules[0].Searched, want)
	}
	entries := 0
	err := filepath.WalkDir(tr.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != tr.home {
			entries++
		}
		if d.IsDir() && p == tr.ws+"/.envs" {
			return filepath.SkipDir // blocked whole: not entered
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Visited != entries {
		t.Errorf("visited %d entries, the tree has %d", pl.Visited, entries)
	}
}
