package presets

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

func TestNames(t *testing.T) {
	want := []string{"go", "java", "node", "python", "rust"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	if _, err := TOML("cobol"); err == nil || !strings.Contains(err.Error(), "go, java, node, python, rust") {
		t.Fatalf("an unknown preset: %v", err)
	}
}

// TestEveryPresetLoadsCleanly: each preset's TOML is settings guard loads
// without a warning, and holds exactly its rules.
func TestEveryPresetLoadsCleanly(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			p, _ := Get(name)
			text, err := TOML(name)
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			ws := filepath.Join(home, "proj")
			os.MkdirAll(ws, 0o755)
			file := filepath.Join(home, "settings.toml")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := config.Load(config.LoadOptions{Home: home, Workspace: ws, ConfigFile: file, SystemManagedFile: filepath.Join(home, "none.toml")})
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if len(s.Warnings) > 0 {
				t.Fatalf("warnings: %v\n%s", s.Warnings, text)
			}
			counts := map[rule.Action]int{}
			for _, r := range s.Rules {
				counts[r.Action]++
			}
			if counts[rule.Allow] != len(p.Allow) || counts[rule.Ask] != len(p.Ask) || counts[rule.Deny] != len(p.Deny) {
				t.Fatalf("loaded %v rules, want allow %d ask %d deny %d", counts, len(p.Allow), len(p.Ask), len(p.Deny))
			}
			if len(s.Sandbox.NetworkFor) != len(p.NetworkFor) || len(p.NetworkFor) == 0 {
				t.Fatalf("allow_network_for: loaded %d, want %d", len(s.Sandbox.NetworkFor), len(p.NetworkFor))
			}
			if s.Sandbox.Network || s.Sandbox.ShareCaches {
				t.Fatal("a preset turns the network on or shares the caches")
			}
		})
	}
}

// TestPresetRules: every entry parses as a rule of its kind and says why,
// and no preset lets a publishing command run without asking.
func TestPresetRules(t *testing.T) {
	for _, name := range Names() {
		p, _ := Get(name)
		lists := map[rule.Action][]Rule{rule.Allow: p.Allow, rule.Ask: p.Ask, rule.Deny: p.Deny}
		for action, rs := range lists {
			for _, r := range rs {
				parsed, err := rule.New(action, r.Rule)
				if err != nil {
					t.Errorf("%s: %s: %v", name, r.Rule, err)
				}
				if r.Why == "" {
					t.Errorf("%s: %s has no reason", name, r.Rule)
				}
				if action == rule.Allow && (strings.Contains(r.Rule, "publish") || strings.Contains(r.Rule, "deploy") || strings.Contains(r.Rule, "upload")) {
					t.Errorf("%s: %s allows publishing", name, r.Rule)
				}
				if action == rule.Deny && parsed.Kind != rule.Read {
					t.Errorf("%s: deny %s: presets only block credentials", name, r.Rule)
				}
			}
		}
		for _, r := range p.NetworkFor {
			if parsed, err := rule.New(rule.Allow, r.Rule); err != nil || parsed.Kind != rule.Shell {
				t.Errorf("%s: allow_network_for %s: want a shell rule (%v)", name, r.Rule, err)
			}
		}
	}
}
