package pathpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/rule"
)

// benchRules makes n path rules of every shape: literal files and
// directories, directory globs, anywhere patterns, workspace-relative
// patterns, over the three path kinds and the three actions.
func benchRules(tb testing.TB, n int) []rule.Rule {
	tb.Helper()
	shapes := []string{
		"deny read(~/.secret%d/*)",
		"ask read(*/.env%d*)",
		"allow read(/srv/data%d/*)",
		"deny write(~/dir%d/file)",
		"allow write(./build%d/*)",
		"ask delete(./keep%d/*.go)",
		"deny read(/etc/app%d/*/key*)",
		"allow delete(./tmp%d/*)",
		"deny read(~/.cache%d)",
		"allow read(./docs%d/*.md)",
	}
	var out []rule.Rule
	for i := 0; len(out) < n; i++ {
		spec := fmt.Sprintf(shapes[i%len(shapes)], i)
		action, text, _ := cut(spec)
		r, err := rule.New(rule.Action(action), text)
		if err != nil {
			tb.Fatal(err)
		}
		r.Source = rule.SourceGlobal
		out = append(out, r)
	}
	return out
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// BenchmarkCheck1000Rules is one Check against 1,000 path rules, including
// the resolution of the path (an lstat per component), for a file in the
// workspace, a symlink out of it, and a path that does not exist yet.
// Target: under 20 µs per check.
func BenchmarkCheck1000Rules(b *testing.B) {
	tr := newTree(b)
	build(b, tr.root, "home/u/proj/internal/pkg/server/handler.go")
	env := rule.Env{Home: tr.home, Workspace: tr.ws}
	p, err := New(rule.NewSet(benchRules(b, 1000), env), Options{Home: tr.home, Workspace: tr.ws, GuardPaths: []string{tr.cfg, tr.state}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		op   rule.Kind
		path string
	}{
		{"read-in-workspace", rule.Read, "internal/pkg/server/handler.go"},
		{"read-through-symlink", rule.Read, "ok.txt"},
		{"write-new-file", rule.Write, "internal/pkg/server/new_test.go"},
		{"delete-absolute", rule.Delete, tr.ws + "/internal/pkg/server/handler.go"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := p.Check(c.op, c.path, tr.ws); d.Decision == "" {
					b.Fatal("no decision")
				}
			}
		})
	}
	b.Run("MatchPath", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.MatchPath(rule.Read, "internal/pkg/server/handler.go", tr.ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The rules alone, on a path already resolved: what the number of
	// rules costs, without the lstat of each component.
	for _, op := range []rule.Kind{rule.Read, rule.Write} {
		rp, err := p.Resolve("internal/pkg/server/handler.go", tr.ws)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("rules-only-"+string(op), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.evaluate(op, rp)
			}
		})
	}
}

// BenchmarkPlanHome100k plans read(~/.ssh/*), read(~/.aws/*) and
// read(*/.env*) over a generated home of 100,000 files (and the workspace
// inside it). Target: under 100 ms per plan.
func BenchmarkPlanHome100k(b *testing.B) {
	root := b.TempDir()
	home := filepath.Join(root, "home")
	const projects, dirs, files = 100, 20, 50 // 100,000 files in 2,100 directories
	for p := 0; p < projects; p++ {
		for d := 0; d < dirs; d++ {
			dir := filepath.Join(home, fmt.Sprintf("p%03d", p), fmt.Sprintf("d%02d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := 0; f < files; f++ {
				name := fmt.Sprintf("f%02d.txt", f)
				if f == 0 && d == 0 {
					name = ".env"
				}
				if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	build(b, home, ".ssh/id_ed25519", ".ssh/config", ".aws/credentials")
	ws := filepath.Join(home, "p000")
	set := rule.NewSet(rules(b, tree{}, "deny read(~/.ssh/*)", "deny read(~/.aws/*)", "deny read(*/.env*)"), rule.Env{Home: home, Workspace: ws})
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		var pl Plan
		for b.Loop() {
			pl = NewPlan(set, PlanOptions{Home: home, Workspace: ws})
		}
		if len(pl.Blocked) != 2+projects || pl.Rules[2].Enforcement != EnforceKernelInRoots {
			b.Fatalf("plan: %d blocked, %+v", len(pl.Blocked), pl.Rules)
		}
		b.ReportMetric(float64(pl.Visited), "entries")
	})
}
