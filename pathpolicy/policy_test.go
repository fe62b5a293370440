package pathpolicy

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/guard-sh/guard/rule"
)

// rules parses "action rule" specs, each from global settings at line i+1.
func rules(t testing.TB, tr tree, specs ...string) []rule.Rule {
	t.Helper()
	var out []rule.Rule
	for i, s := range specs {
		action, text, _ := strings.Cut(tr.expand(s), " ")
		r, err := rule.New(rule.Action(action), text)
		if err != nil {
			t.Fatalf("rule %q: %v", s, err)
		}
		r.Source, r.File, r.Line = rule.SourceGlobal, "settings.toml", i+1
		out = append(out, r)
	}
	return out
}

func newPolicy(t testing.TB, tr tree, specs ...string) *Policy {
	t.Helper()
	env := rule.Env{Home: tr.home, Workspace: tr.ws}
	p, err := New(rule.NewSet(rules(t, tr, specs...), env), Options{
		Home: tr.home, Workspace: tr.ws,
		GuardPaths: []string{tr.cfg, tr.state},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ruleSpecs is the policy most tests run under.
var ruleSpecs = []string{
	"deny read(~/.ssh/*)",
	"deny read(~/.aws)",
	"ask read(*/.env*)",
	"allow read($out/data.txt)",
	"allow read(./ok.txt)",
	"deny read(./secrets/*)",
	"allow write(./*)",
	"allow write(./.vscode/*)",
	"deny delete(./README.md)",
	"allow delete(./*)",
}

type checkCase struct {
	name      string
	op        rule.Kind
	path, dir string
	decision  rule.Action
	reason    Reason
	rule      string // "" when no rule decides
	on        string // the form the rule matched, when it matters
	sensitive bool
}

func runChecks(t *testing.T, tr tree, p *Policy, tests []checkCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := ""
			if tc.dir != "" {
				dir = tr.expand(tc.dir)
			}
			d := p.Check(tc.op, tr.expand(tc.path), dir)
			if d.Decision != tc.decision || d.Reason != tc.reason {
				t.Fatalf("%s %s: got %s (%s), want %s (%s)\nwhy: %s", tc.op, tc.path, d.Decision, d.Reason, tc.decision, tc.reason, d.Why)
			}
			if want := tr.expand(tc.rule); d.Rule != want {
				t.Errorf("rule = %q, want %q", d.Rule, want)
			}
			if tc.on != "" && d.MatchedOn != tc.on {
				t.Errorf("matched on %q, want %q", d.MatchedOn, tc.on)
			}
			if d.Sensitive != tc.sensitive {
				t.Errorf("sensitive = %v, want %v", d.Sensitive, tc.sensitive)
			}
			if d.Why == "" {
				t.Error("no why")
			}
			// MatchPath agrees with Check on the rules.
			m, err := p.MatchPath(tc.op, tr.expand(tc.path), dir)
			if tc.reason == ReasonBadPath {
				if err == nil {
					t.Error("MatchPath accepted a path Check refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			action, hit, ok := m.Strictest()
			switch tc.reason {
			case ReasonRuleDeny, ReasonRuleAsk, ReasonRuleAllow:
				if !ok || action != tc.decision || hit.Rule.String() != d.Rule {
					t.Errorf("MatchPath = %v %v, want %s %s", action, hit, tc.decision, d.Rule)
				}
			case ReasonProtected:
				if !ok || action != rule.Deny {
					t.Errorf("MatchPath of a protected path = %v, want a built-in deny", action)
				}
			}
		})
	}
}

func TestCheckRules(t *testing.T) {
	tr := newTree(t)
	build(t, tr.root,
		"home/u/proj/secrets/key",
		"home/u/proj/sub/.env.local",
		"home/u/proj/.vscode/settings.json",
	)
	p := newPolicy(t, tr, ruleSpecs...)
	runChecks(t, tr, p, []checkCase{
		{name: "deny a secret by its path", op: rule.Read, path: "~/.ssh/id_rsa", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormCanonical},
		{name: "symlink named ok.txt into a denied dir is denied, not allowed", op: rule.Read, path: "ok.txt", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormCanonical},
		{name: "symlink chain", op: rule.Read, path: "chain1", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "symlinked directory", op: rule.Read, path: "sshdir/config", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "dotdot after a symlink leaves the workspace", op: rule.Read, path: "sshdir/../.aws/credentials", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.aws)"},
		{name: "literal dir rule covers its files", op: rule.Read, path: "~/.aws/credentials", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.aws)"},
		{name: "literal dir rule covers the dir", op: rule.Read, path: "~/.aws", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.aws)"},
		{name: "dir rule is not a string prefix", op: rule.Read, path: "~/.awsx", decision: rule.Ask, reason: ReasonOutside},
		{name: "proc self root", op: rule.Read, path: "/proc/self/root$home/.ssh/id_rsa", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "proc self cwd", op: rule.Read, path: "/proc/self/cwd/id_rsa", dir: "$home/.ssh", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "a descriptor may be a secret", op: rule.Read, path: "/dev/fd/3/.ssh/id_rsa", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormUnknown},
		{name: "another process's root may be anything", op: rule.Read, path: "/proc/1/root/etc/hostname", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormUnknown},
		{name: "nonexistent file under a symlinked denied dir", op: rule.Read, path: "sshdir/not_yet", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "trailing slash", op: rule.Read, path: "~/.aws/", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.aws)"},
		{name: "doubled slashes", op: rule.Read, path: "$home//.ssh///id_rsa", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)"},
		{name: "anywhere pattern inside the workspace", op: rule.Read, path: "sub/.env.local", decision: rule.Ask, reason: ReasonRuleAsk, rule: "read(*/.env*)"},
		{name: "anywhere pattern outside", op: rule.Read, path: "$out/.env", decision: rule.Ask, reason: ReasonRuleAsk, rule: "read(*/.env*)"},
		{name: "allow outside by rule", op: rule.Read, path: "$out/data.txt", decision: rule.Allow, reason: ReasonRuleAllow, rule: "read($out/data.txt)"},
		{name: "workspace-relative pattern inside", op: rule.Read, path: "secrets/key", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(./secrets/*)"},
		{name: "workspace-relative pattern is not anywhere", op: rule.Read, path: "$out/secrets/key", decision: rule.Ask, reason: ReasonOutside},
		{name: "workspace-relative pattern from another dir", op: rule.Read, path: "../secrets/key", dir: "$ws/sub", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(./secrets/*)"},
		{name: "case matters in rules", op: rule.Read, path: "~/.SSH/id_rsa", decision: rule.Ask, reason: ReasonOutside},

		{name: "write allowed by a rule", op: rule.Write, path: "src/new.go", decision: rule.Allow, reason: ReasonRuleAllow, rule: "write(./*)"},
		{name: "broad allow does not reach git hooks", op: rule.Write, path: ".git/hooks/pre-commit", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "broad allow does not reach git config", op: rule.Write, path: ".git/config", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "sensitive through a symlink", op: rule.Write, path: "hooks/post-checkout", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "sensitive names fold case", op: rule.Write, path: ".GIT/Hooks/pre-commit", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "sensitive in a nested repository", op: rule.Write, path: "vendor/lib/.git/hooks/pre-commit", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "an allow rule naming the sensitive path applies", op: rule.Write, path: ".vscode/settings.json", decision: rule.Allow, reason: ReasonRuleAllow, rule: "write(./.vscode/*)", sensitive: true},
		{name: "write through a link out of the workspace is not allowed", op: rule.Write, path: "notes", decision: rule.Ask, reason: ReasonNotWritable},
		{name: "write through a link to a secret is sensitive", op: rule.Write, path: "ok.txt", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "protected: the project's guard settings", op: rule.Write, path: ".guard/settings.toml", decision: rule.Deny, reason: ReasonProtected, rule: "write($ws/.guard)"},
		{name: "protected: a new file in .guard", op: rule.Write, path: ".guard/settings.local.toml", decision: rule.Deny, reason: ReasonProtected, rule: "write($ws/.guard)"},
		{name: "protected: a nested project's .guard", op: rule.Write, path: "sub/.guard/settings.toml", decision: rule.Deny, reason: ReasonProtected, rule: "write(*/.guard)"},
		{name: "protected: .guard in another case", op: rule.Write, path: ".GUARD/settings.toml", decision: rule.Deny, reason: ReasonProtected, rule: "write(*/.guard)"},
		{name: "protected: approvals through a symlink", op: rule.Write, path: "cfglink/approvals.json", decision: rule.Deny, reason: ReasonProtected, rule: "write($home/.config/guard)"},
		{name: "protected: the audit log", op: rule.Write, path: "~/.local/state/guard/audit.jsonl", decision: rule.Deny, reason: ReasonProtected, rule: "write($home/.local/state/guard)"},
		{name: "protected: a write through an unknown descriptor", op: rule.Write, path: "/dev/fd/7", decision: rule.Deny, reason: ReasonUnknown, rule: "write(/proc/self/fd/7)"},

		{name: "delete denied by a rule beats allow", op: rule.Delete, path: "README.md", decision: rule.Deny, reason: ReasonRuleDeny, rule: "delete(./README.md)"},
		{name: "delete allowed by a rule", op: rule.Delete, path: "src/main.go", decision: rule.Allow, reason: ReasonRuleAllow, rule: "delete(./*)"},
		{name: "delete of the workspace holding .guard", op: rule.Delete, path: ".", decision: rule.Deny, reason: ReasonProtected, rule: "delete($ws/.guard)"},
		{name: "delete of a directory holding guard's config", op: rule.Delete, path: "~/.config", decision: rule.Deny, reason: ReasonProtected, rule: "delete($home/.config/guard)"},
		{name: "delete of home", op: rule.Delete, path: "~", decision: rule.Deny, reason: ReasonProtected, rule: "delete($home/.config/guard)"},
		{name: "delete of guard's approvals", op: rule.Delete, path: "~/.config/guard/approvals.json", decision: rule.Deny, reason: ReasonProtected, rule: "delete($home/.config/guard)"},

		{name: "bad path: loop", op: rule.Read, path: "loop1", decision: rule.Deny, reason: ReasonBadPath},
		{name: "bad path: NUL", op: rule.Write, path: "a\x00b", decision: rule.Deny, reason: ReasonBadPath},
		{name: "bad path: too long", op: rule.Read, path: strings.Repeat("x/", 2048), decision: rule.Deny, reason: ReasonBadPath},
	})
}

func TestCheckDefaults(t *testing.T) {
	tr := newTree(t)
	p := newPolicy(t, tr)
	runChecks(t, tr, p, []checkCase{
		{name: "read inside the workspace", op: rule.Read, path: "README.md", decision: rule.Allow, reason: ReasonWorkspace},
		{name: "read of the workspace itself", op: rule.Read, path: ".", decision: rule.Allow, reason: ReasonWorkspace},
		{name: "read of a new file in the workspace", op: rule.Read, path: "src/none.go", decision: rule.Allow, reason: ReasonWorkspace},
		{name: "read outside asks", op: rule.Read, path: "~/notes.txt", decision: rule.Ask, reason: ReasonOutside},
		{name: "read through a workspace link to outside asks", op: rule.Read, path: "ok.txt", decision: rule.Ask, reason: ReasonOutside},
		{name: "read lexically inside but really outside asks", op: rule.Read, path: "sshdir/../notes.txt", decision: rule.Ask, reason: ReasonOutside},
		{name: "read of guard's own settings", op: rule.Read, path: "~/.config/guard/settings.toml", decision: rule.Allow, reason: ReasonGuardFile},
		{name: "read of /dev/null", op: rule.Read, path: "/dev/null", decision: rule.Allow, reason: ReasonDevice},
		{name: "read of stdin", op: rule.Read, path: "/dev/stdin", decision: rule.Allow, reason: ReasonDevice},
		{name: "read of an unknown descriptor asks", op: rule.Read, path: "/proc/self/fd/9", decision: rule.Ask, reason: ReasonUnknown},
		{name: "read of a system file asks", op: rule.Read, path: "/etc/passwd", decision: rule.Ask, reason: ReasonOutside},
		{name: "write to stderr", op: rule.Write, path: "/dev/stderr", decision: rule.Allow, reason: ReasonDevice},
		{name: "write to /dev/null", op: rule.Write, path: "/dev/null", decision: rule.Allow, reason: ReasonDevice},
		{name: "delete of /dev/null is not a device use", op: rule.Delete, path: "/dev/null", decision: rule.Ask, reason: ReasonNotWritable},
		{name: "write inside the workspace follows the mode", op: rule.Write, path: "src/new.go", decision: rule.Ask, reason: ReasonWritable},
		{name: "write outside the writable roots", op: rule.Write, path: "$out/x", decision: rule.Ask, reason: ReasonNotWritable},
		{name: "write through a workspace link to outside", op: rule.Write, path: "notes", decision: rule.Ask, reason: ReasonNotWritable},
		{name: "delete of a link acts on the link", op: rule.Delete, path: "notes", decision: rule.Ask, reason: ReasonWritable},
		{name: "delete of a link with a trailing slash acts on the target", op: rule.Delete, path: "sshdir/", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "write of a sensitive file asks as sensitive", op: rule.Write, path: ".envrc", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "write of a shell startup file", op: rule.Write, path: "~/.bashrc", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "write of a home-only entry", op: rule.Write, path: "~/.local/bin/git", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
		{name: "home-only entry is not sensitive in the workspace", op: rule.Write, path: "bin/tool", decision: rule.Ask, reason: ReasonWritable},
		{name: "an agent's MCP servers", op: rule.Write, path: ".mcp.json", decision: rule.Ask, reason: ReasonSensitive, sensitive: true},
	})
}

func TestWritableRoots(t *testing.T) {
	tr := newTree(t)
	p, err := New(nil, Options{Home: tr.home, Workspace: tr.ws, WritableRoots: []string{tr.outside}})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Check(rule.Write, tr.outside+"/new", ""); d.Reason != ReasonWritable {
		t.Errorf("write in an allow_write root: %s (%s)", d.Reason, d.Why)
	}
	if d := p.Check(rule.Write, tr.home+"/notes.txt", ""); d.Reason != ReasonNotWritable {
		t.Errorf("write in home: %s (%s)", d.Reason, d.Why)
	}
}

// TestHomeBehindSymlink: /home may be a link (/home -> /var/home on
// Fedora's atomic desktops). Rules written with ~ still match canonical
// paths, so a link to a secret is denied.
func TestHomeBehindSymlink(t *testing.T) {
	root := t.TempDir()
	build(t, root,
		"var/home/u/.ssh/id_rsa",
		"var/home/u/proj/x",
		"home -> var/home",
		"var/home/u/proj/key -> ../.ssh/id_rsa",
	)
	home, ws := root+"/home/u", root+"/home/u/proj"
	set := rule.NewSet(rules(t, tree{}, "deny read(~/.ssh/*)", "allow write(./*)"), rule.Env{Home: home, Workspace: ws})
	p, err := New(set, Options{Home: home, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	for _, pth := range []string{ws + "/key", home + "/.ssh/id_rsa", root + "/var/home/u/.ssh/id_rsa"} {
		if d := p.Check(rule.Read, pth, ""); d.Decision != rule.Deny {
			t.Errorf("read %s: %s (%s), want deny", pth, d.Decision, d.Why)
		}
	}
	if d := p.Check(rule.Write, ws+"/x", ""); d.Decision != rule.Allow {
		t.Errorf("write in the workspace: %s (%s), want allow by write(./*)", d.Decision, d.Why)
	}
	if d := p.Check(rule.Read, ws+"/x", ""); d.Reason != ReasonWorkspace {
		t.Errorf("read in the workspace: %s", d.Reason)
	}
}

// TestHardLink: a hard link is a second name of the same file, which no
// path pattern sees. A rule that names a file, or a directory whose file
// has more than one link, catches it by identity.
func TestHardLink(t *testing.T) {
	tr := newTree(t)
	if err := os.Link(tr.home+"/.ssh/id_rsa", tr.outside+"/innocent"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tr.home+"/.aws/credentials", tr.ws+"/creds"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tr.cfg+"/approvals.json", tr.outside+"/approvals-link"); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, tr, "deny read(~/.ssh/*)", "deny read(~/.aws/credentials)")
	runChecks(t, tr, p, []checkCase{
		{name: "hard link to a file in a denied dir", op: rule.Read, path: "$out/innocent", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormSameFile},
		{name: "hard link into the workspace to a denied file", op: rule.Read, path: "creds", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.aws/credentials)", on: FormSameFile},
		{name: "hard link to guard's approvals", op: rule.Write, path: "$out/approvals-link", decision: rule.Deny, reason: ReasonProtected, rule: "write($home/.config/guard)"},
	})
}

// TestUnicodeNames: Linux compares names as bytes. A rule in NFC matches
// the NFC name; the NFD spelling is another name, and not the same file, so
// it is no way around the rule.
func TestUnicodeNames(t *testing.T) {
	tr := newTree(t)
	nfc, nfd := "caf\u00e9.key", "cafe\u0301.key"
	build(t, tr.root, "home/u/proj/"+nfc)
	p := newPolicy(t, tr, "deny read(./"+nfc+")")
	if d := p.Check(rule.Read, nfc, ""); d.Decision != rule.Deny {
		t.Errorf("NFC name: %s (%s)", d.Decision, d.Why)
	}
	d := p.Check(rule.Read, nfd, "")
	if d.Decision == rule.Deny {
		t.Errorf("NFD name matched the NFC rule: %s", d.Why)
	}
	if d.Resolved.Exists {
		t.Errorf("the NFD spelling opens a file here; a rule written in NFC does not cover it")
	}
	if _, err := os.Stat(tr.ws + "/" + nfd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the kernel opens the NFD spelling: %v", err)
	}
}

func TestMatchPathForms(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name      string
		rules     []string
		op        rule.Kind
		path      string
		deny, ask string
		allow     string
	}{
		{name: "deny matches the path as written", rules: []string{"deny read(./ok.txt)"}, op: rule.Read, path: "ok.txt", deny: "read(./ok.txt)"},
		{name: "deny matches the canonical path", rules: []string{"deny read(~/.ssh/id_rsa)"}, op: rule.Read, path: "ok.txt", deny: "read(~/.ssh/id_rsa)"},
		{name: "allow needs the canonical path", rules: []string{"allow read(./ok.txt)"}, op: rule.Read, path: "ok.txt"},
		{name: "allow on the canonical path", rules: []string{"allow read(~/.ssh/id_rsa)"}, op: rule.Read, path: "ok.txt", allow: "read(~/.ssh/id_rsa)"},
		{name: "write allow needs the link and its target", rules: []string{"allow write(~/.ssh/*)"}, op: rule.Write, path: "ok.txt"},
		{name: "deny on the link itself", rules: []string{"deny delete(./ok.txt)"}, op: rule.Delete, path: "$ws/sub/../ok.txt", deny: "delete(./ok.txt)"},
		{name: "ask reaches through an unknown descriptor", rules: []string{"ask read(/etc/shadow)"}, op: rule.Read, path: "/dev/fd/4", ask: "read(/etc/shadow)"},
		{name: "allow everything covers an unknown descriptor", rules: []string{"allow read"}, op: rule.Read, path: "/dev/fd/4", allow: "read"},
		{name: "allow of a prefix does not cover an unknown descriptor", rules: []string{"allow read(/proc/*)"}, op: rule.Read, path: "/dev/fd/4"},
		{name: "earliest deny wins", rules: []string{"deny read(~/.ssh)", "deny read(~/.ssh/*)"}, op: rule.Read, path: "ok.txt", deny: "read(~/.ssh)"},
		{name: "rules of another kind do not match", rules: []string{"deny write(~/.ssh/*)"}, op: rule.Read, path: "ok.txt"},
		{name: "protected is a built-in deny", op: rule.Write, path: ".guard/x", deny: "write($ws/.guard)"},
		{name: "sensitive suppresses a broad allow", rules: []string{"allow write(./*)"}, op: rule.Write, path: ".git/config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPolicy(t, tr, tc.rules...)
			m, err := p.MatchPath(tc.op, tr.expand(tc.path), tr.ws)
			if err != nil {
				t.Fatal(err)
			}
			name := func(h *rule.Hit) string {
				if h == nil {
					return ""
				}
				return h.Rule.String()
			}
			if got, want := name(m.Deny), tr.expand(tc.deny); got != want {
				t.Errorf("deny = %q, want %q", got, want)
			}
			if got, want := name(m.Ask), tr.expand(tc.ask); got != want {
				t.Errorf("ask = %q, want %q", got, want)
			}
			if got, want := name(m.Allow), tr.expand(tc.allow); got != want {
				t.Errorf("allow = %q, want %q", got, want)
			}
		})
	}
}

func TestMatchPathErrors(t *testing.T) {
	tr := newTree(t)
	p := newPolicy(t, tr)
	for _, tc := range []struct {
		name string
		op   rule.Kind
		path string
	}{
		{"not a path kind", rule.Shell, "x"},
		{"loop", rule.Read, "loop1"},
		{"NUL", rule.Read, "x\x00"},
		{"~user", rule.Read, "~root/x"},
		{"empty", rule.Write, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := p.MatchPath(tc.op, tc.path, ""); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestDecisionJSON(t *testing.T) {
	tr := newTree(t)
	p := newPolicy(t, tr, ruleSpecs...)
	d := p.Check(rule.Read, tr.ws+"/ok.txt", "")
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"op": "read", "decision": "deny", "reason": "rule-deny", "rule": "read(~/.ssh/*)", "source": "global",
		"where": "settings.toml:1", "match": "prefix", "matched_on": "canonical",
		"path": tr.ws + "/ok.txt", "absolute": tr.ws + "/ok.txt", "canonical": tr.home + "/.ssh/id_rsa",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["why"] == "" {
		t.Error("no why")
	}
}

func TestNewErrors(t *testing.T) {
	tr := newTree(t)
	for _, o := range []Options{
		{Home: "relative", Workspace: tr.ws},
		{Home: tr.home, Workspace: ""},
		{Home: tr.home, Workspace: tr.ws, WritableRoots: []string{"x"}},
		{Home: tr.home, Workspace: tr.ws, GuardPaths: []string{tr.ws + "/loop1"}},
	} {
		if _, err := New(nil, o); err == nil {
			t.Errorf("New(%+v): no error", o)
		}
	}
}

func TestLocations(t *testing.T) {
	tr := newTree(t)
	p := newPolicy(t, tr)
	prot := map[string]Location{}
	for _, l := range p.ProtectedPaths() {
		prot[l.Path] = l
	}
	for _, want := range []string{tr.cfg, tr.state, tr.ws + "/.guard"} {
		l, ok := prot[want]
		if !ok || !l.Exists || !l.Dir || l.Why == "" {
			t.Errorf("protected %s: %+v", want, l)
		}
	}
	sens := map[string]Location{}
	for _, l := range p.SensitivePaths() {
		sens[l.Path] = l
	}
	for path, exists := range map[string]bool{
		tr.ws + "/.git/hooks": true, tr.ws + "/.git/config": true, tr.ws + "/.vscode": false,
		tr.home + "/.bashrc": true, tr.home + "/.ssh": true, tr.home + "/.local/bin": false,
	} {
		l, ok := sens[path]
		if !ok || l.Exists != exists || l.Why == "" {
			t.Errorf("sensitive %s: %+v (listed %v), want exists %v", path, l, ok, exists)
		}
	}
	if _, ok := sens[tr.ws+"/.local/bin"]; ok {
		t.Error("a home-only entry is listed in the workspace")
	}
	for _, e := range Sensitive() {
		if e.Why == "" || e.Path == "" || strings.HasPrefix(e.Path, "/") {
			t.Errorf("entry %+v: every entry needs a relative path and a reason", e)
		}
	}
}

// TestSensitiveDocumented: docs/pathpolicy.md lists every sensitive entry.
func TestSensitiveDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/pathpolicy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Sensitive() {
		name := "`" + e.Path + "`"
		if e.Dir {
			name = "`" + e.Path + "/`"
		}
		if !strings.Contains(string(doc), name) {
			t.Errorf("docs/pathpolicy.md does not list %s", name)
		}
	}
}
