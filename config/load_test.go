package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guard-sh/guard/rule"
)

func TestLoadNoFilesIsDefaults(t *testing.T) {
	f := newFixture(t)
	s := f.load()
	if s.Mode != ModeDefault || s.ModeFrom != "default" {
		t.Errorf("mode %s from %s; want default from default", s.Mode, s.ModeFrom)
	}
	if len(s.Rules) != 0 || len(s.Warnings) != 0 {
		t.Errorf("rules %v, warnings %v; want none", s.Rules, s.Warnings)
	}
	if !s.ReadOnlyDefaults || s.Sandbox.Network || s.Sandbox.ShareCaches || s.UI.DiffLines != 120 {
		t.Errorf("defaults wrong: read_only_defaults %v, network %v, share_caches %v, diff_lines %d",
			s.ReadOnlyDefaults, s.Sandbox.Network, s.Sandbox.ShareCaches, s.UI.DiffLines)
	}
	if !slices.Equal(s.Sandbox.EnvDeny, DefaultEnvDeny()) {
		t.Errorf("env_deny %v; want the default list", s.Sandbox.EnvDeny)
	}
	if s.Project.Trust != TrustNone {
		t.Errorf("project trust %s; want none", s.Project.Trust)
	}
}

func TestPaths(t *testing.T) {
	f := newFixture(t)
	p := f.paths()
	home := f.home()
	want := map[string]string{
		"ConfigDir":     filepath.Join(home, ".config", "guard"),
		"StateDir":      filepath.Join(home, ".local", "state", "guard"),
		"GlobalFile":    filepath.Join(home, ".config", "guard", "settings.toml"),
		"ApprovalsFile": filepath.Join(home, ".config", "guard", "approvals.json"),
		"TrustFile":     filepath.Join(home, ".config", "guard", "trust.json"),
		"AuditFile":     filepath.Join(home, ".local", "state", "guard", "audit.jsonl"),
		"SessionsDir":   filepath.Join(home, ".local", "state", "guard", "sessions"),
		"ManagedFile":   f.managed,
	}
	got := map[string]string{
		"ConfigDir": p.ConfigDir, "StateDir": p.StateDir, "GlobalFile": p.GlobalFile,
		"ApprovalsFile": p.ApprovalsFile, "TrustFile": p.TrustFile, "AuditFile": p.AuditFile,
		"SessionsDir": p.SessionsDir, "ManagedFile": p.ManagedFile,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paths\n got %v\nwant %v", got, want)
	}
	if !strings.HasPrefix(p.WorkspaceFile, filepath.Join(p.ConfigDir, "workspaces", "proj-")) || !strings.HasSuffix(p.WorkspaceFile, ".toml") {
		t.Fatalf("workspace file %s", p.WorkspaceFile)
	}
	if !slices.Equal(p.ProjectFiles, []string{filepath.Join(f.workspace(), ".guard", "settings.toml"), filepath.Join(f.workspace(), ".guard", "settings.local.toml")}) {
		t.Fatalf("project files %v", p.ProjectFiles)
	}
	f.opts.ConfigHome = filepath.Join(f.root, "xdg")
	f.opts.StateHome = filepath.Join(f.root, "xstate")
	f.opts.ConfigFile = filepath.Join(f.root, "other.toml")
	p = f.paths()
	if p.ConfigDir != filepath.Join(f.root, "xdg", "guard") || p.StateDir != filepath.Join(f.root, "xstate", "guard") || p.GlobalFile != f.opts.ConfigFile {
		t.Fatalf("XDG and --config not honoured: %+v", p)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{
		"HOME":                   "/home/u",
		"XDG_CONFIG_HOME":        "relative/cfg", // not absolute: ignored, as XDG says
		"XDG_STATE_HOME":         "/st",
		"GUARD_MANAGED_SETTINGS": "/m.toml",
	}
	o, err := OptionsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if o.Home != "/home/u" || o.ConfigHome != "" || o.StateHome != "/st" || o.ManagedFile != "/m.toml" {
		t.Fatalf("options %+v", o)
	}
	env["HOME"] = "rel"
	if _, err := OptionsFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("relative HOME accepted")
	}
}

func TestWorkspaceFileNames(t *testing.T) {
	tests := []struct {
		name, ws, prefix string
	}{
		{"plain", "/home/u/proj", "proj-"},
		{"newline and brackets", "/home/u/x\n[permissions]", "x__permissions_-"},
		{"dot-dot cannot climb", "/home/u/..", "_.-"},
		{"leading dot kept out", "/home/u/.hidden", "_hidden-"},
		{"root", "/", "_-"},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := WorkspaceFile("/c/guard", tc.ws)
			dir, base := filepath.Split(p)
			if dir != "/c/guard/workspaces/" || !strings.HasPrefix(base, tc.prefix) || len(base) != len(tc.prefix)+12+len(".toml") {
				t.Fatalf("WorkspaceFile(%q) = %q", tc.ws, p)
			}
			if seen[p] {
				t.Fatalf("two workspaces share %s", p)
			}
			seen[p] = true
		})
	}
	if WorkspaceFile("/c", "/a/proj") == WorkspaceFile("/c", "/b/proj") {
		t.Fatal("workspaces of the same name share a file")
	}
}

func TestResolveWorkspace(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo/.git")
	deep := mk("repo/a/b")
	wt := mk("worktree")
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /x\n"), 0o644)
	wtSub := mk("worktree/src")
	plain := mk("plain/sub")
	os.Symlink(repo, filepath.Join(root, "link"))
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)

	tests := []struct {
		name, flag, cwd, want, err string
	}{
		{"top of the git repository", "", deep, repo, ""},
		{"a .git file (worktree) counts", "", wtSub, wt, ""},
		{"no repository: the current directory", "", plain, plain, ""},
		{"symlinks resolved", "", filepath.Join(root, "link", "a"), repo, ""},
		{"flag wins over the repository", plain, deep, plain, ""},
		{"relative flag is relative to cwd", "b", filepath.Join(repo, "a"), deep, ""},
		{"flag through a symlink", filepath.Join(root, "link"), plain, repo, ""},
		{"flag that does not exist", filepath.Join(root, "nope"), plain, "", "no such file"},
		{"flag that is a file", file, plain, "", "not a directory"},
		{"root is refused", "/", plain, "", "whole file system"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveWorkspace(tc.flag, tc.cwd)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestRuleOrderAndPositions(t *testing.T) {
	f := newFixture(t)
	f.write("managed", "[permissions]\ndeny = [\"shell(sudo *)\"]\n")
	f.write("global", "# mine\n[permissions]\nallow = [\n  \"shell(git *)\", # git is fine\n\n  'shell(go test *)',\n]\nask = [\"shell(git push *)\"]\n")
	f.write("workspace", "[permissions]\ndeny = ['Bash(curl:*)']\n")
	f.write("project", "[permissions]\n\n\ndeny = [\"read(~/.ssh/*)\"]\n")
	f.write("project-local", "permissions.ask = [\"web\"]\n")
	f.opts.Flags = Flags{Deny: []string{"shell(rm -rf *)"}, Allow: []string{"shell(make *)"}}
	s := f.load()
	type pos struct {
		action, rule string
		source       rule.Source
		file         string
		line         int
	}
	var got []pos
	for _, r := range s.Rules {
		got = append(got, pos{string(r.Action), r.String(), r.Source, r.File, r.Line})
	}
	want := []pos{
		{"deny", "shell(sudo *)", rule.SourceManaged, f.file("managed"), 2},
		{"deny", "shell(rm -rf *)", rule.SourceFlag, "", 0},
		{"allow", "shell(make *)", rule.SourceFlag, "", 0},
		{"ask", "shell(git push *)", rule.SourceGlobal, f.file("global"), 8},
		{"allow", "shell(git *)", rule.SourceGlobal, f.file("global"), 4},
		{"allow", "shell(go test *)", rule.SourceGlobal, f.file("global"), 6},
		{"deny", "shell(curl *)", rule.SourceWorkspace, f.file("workspace"), 2},
		{"deny", "read(~/.ssh/*)", rule.SourceProject, f.file("project"), 4},
		{"ask", "web", rule.SourceProject, f.file("project-local"), 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rules\n got %v\nwant %v", got, want)
	}
	if s.Rules[6].Written != "Bash(curl:*)" {
		t.Errorf("Written = %q; the rule as the user wrote it is kept", s.Rules[6].Written)
	}
}

func TestBrokenTOML(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"unclosed array", "[permissions]\ndeny = [\"a\"\nallow = []\n", 3, 1, "invalid TOML"},
		{"duplicate key", "a = 1\na = 2\n", 2, 1, "already been defined"},
		{"bad table header", "[permissions\n", 1, 13, "invalid TOML"}, // at the end of the line
		{"unterminated string", "[guard]\npermission_mode = \"plan\n", 2, 24, "strings cannot contain newlines"},
		{"nested too deep", "a = " + strings.Repeat("[", 17) + strings.Repeat("]", 17) + "\n", 1, 21, "nested more than 16"},
		{"dotted key too long", "\nx" + strings.Repeat(".x", 40) + " = 1\n", 2, 66, "more than 32 dots"},
	}
	for _, tc := range tests {
		for _, src := range []string{"managed", "global", "workspace", "project", "project-local"} {
			t.Run(tc.name+"/"+src, func(t *testing.T) {
				f := newFixture(t)
				file := f.write(src, tc.src)
				fe := asFileError(t, f.loadErr())
				if fe.File != file || fe.Line != tc.line || !strings.Contains(fe.Msg, tc.msg) {
					t.Fatalf("got %q; want %s:%d:... with %q", fe.Error(), file, tc.line, tc.msg)
				}
				if tc.col != 0 && fe.Col != tc.col {
					t.Fatalf("got column %d, want %d (%s)", fe.Col, tc.col, fe)
				}
			})
		}
	}
}

func TestWrongTypes(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"network as a boolean", "[sandbox]\nnetwork = true\n", 2, 11, `want "on" or "off", not a boolean`},
		{"network misspelt value", "[sandbox]\nnetwork = \"no\"\n", 2, 11, `"no": want "on" or "off"`},
		{"rules as a string", "[permissions]\ndeny = \"shell(rm *)\"\n", 2, 8, "want an array of strings, not a string"},
		{"a rule that is a number", "[permissions]\ndeny = [\n  \"a\",\n  3,\n]\n", 4, 3, "permissions.deny[1]: want a string, not an integer"},
		{"unknown mode", "[guard]\npermission_mode = \"yolo\"\n", 2, 19, "unknown permission mode"},
		{"auto_approve as a string", "[guard]\nauto_approve = \"yes\"\n", 2, 16, "want true or false"},
		{"port out of range", "[sandbox]\nallow_tcp_connect = [443, 70000]\n", 2, 27, "port 70000"},
		{"port as a string", "[sandbox]\nallow_tcp_connect = [\"443\"]\n", 2, 22, "want a port number"},
		{"negative diff_lines", "[ui]\ndiff_lines = -1\n", 2, 14, "not between 0"},
		{"bad timeout", "[permissions.auto]\ncommand = [\"r\"]\ntimeout = \"soon\"\n", 3, 11, "not a duration"},
		{"hook without a command", "[[hooks.pre_tool_use]]\ntimeout = \"5s\"\n", 1, 1, "a hook needs a command"},
		{"path entry without a path", "[sandbox]\nallow_write = [{dangerous = true}]\n", 2, 16, "needs path"},
		{"sandbox is not a table", "sandbox = 1\n", 1, 11, "want a table"},
		{"empty reviewer command", "[permissions.auto]\ncommand = []\n", 2, 11, "empty command"},
		{"env_deny as a string", "[sandbox]\nenv_deny = \"AWS_*\"\n", 2, 12, "want an array of strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			file := f.write("global", tc.src)
			fe := asFileError(t, f.loadErr())
			if fe.File != file || fe.Line != tc.line || fe.Col != tc.col || !strings.Contains(fe.Msg, tc.msg) {
				t.Fatalf("got %q; want %s:%d:%d: ...%s", fe.Error(), file, tc.line, tc.col, tc.msg)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		want      string
	}{
		{"misspelt security key", "[sandbox]\nnetwork = \"off\"\nnetwrok = \"on\"\n", 3, "unknown key netwrok in [sandbox]; guard ignores it (did you mean network?)"},
		{"swapped letters", "[permissions]\ndney = [\"shell\"]\n", 2, "did you mean deny?"},
		{"misspelt table", "[permisions]\ndeny = []\n", 1, "unknown table or key permisions; guard ignores it (did you mean permissions?)"},
		{"key in the wrong table", "[guard]\nnetwork = \"off\"\n", 2, "network belongs in [sandbox]"},
		{"top-level key of a table", "permission_mode = \"plan\"\n", 1, "permission_mode belongs in [guard]"},
		{"Claude Code's name", "[permissions]\ndefaultMode = \"plan\"\n", 2, "guard's setting is [guard] permission_mode"},
		{"unknown key of a path entry", "[sandbox]\nallow_write = [\n  {path = \"/tmp/x\", dangerus = true},\n]\n", 3, "did you mean dangerous?"},
		{"unknown key in a hook", "[[hooks.pre_tool_use]]\ncommand = \"x\"\n\n[[hooks.pre_tool_use]]\ncommand = \"y\"\ntimout = \"1s\"\n", 6, "unknown key timout in [hooks.pre_tool_use]; guard ignores it (did you mean timeout?)"},
		{"unrelated key", "[ui]\ncolour = \"red\"\n", 2, "unknown key colour in [ui]; guard ignores it"},
		{"case differs", "[permissions]\nDeny = []\n", 2, "did you mean deny?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			file := f.write("global", tc.src)
			s := f.load()
			w := Warning{File: file, Line: tc.line}
			if !hasWarning(s, w.String(), tc.want) {
				t.Fatalf("no warning %q at %s:%d in\n%s", tc.want, file, tc.line, warningsText(s))
			}
		})
	}
}

func TestInvalidRulesDropped(t *testing.T) {
	f := newFixture(t)
	file := f.write("global", "[permissions]\ndeny = [\n  \"shell(rm *)\",\n  \"Shell(x)\",\n  \"shell()\",\n  \"read(~/.ssh/*)\",\n]\nallow = [\"web(https://x.com/a)\"]\n")
	s := f.load()
	if got := ruleStrings(s.Rules); !slices.Equal(got, []string{"deny shell(rm *) global", "deny read(~/.ssh/*) global"}) {
		t.Fatalf("rules %v; want the two valid ones", got)
	}
	for _, w := range []struct {
		line int
		text string
	}{
		{4, `invalid deny rule "Shell(x)" dropped: unknown kind "Shell": kinds are lower case`},
		{5, `invalid deny rule "shell()" dropped`},
		{8, `invalid allow rule "web(https://x.com/a)" dropped`},
	} {
		if !hasWarning(s, (Warning{File: file, Line: w.line}).String(), w.text) {
			t.Errorf("no warning %q at line %d in\n%s", w.text, w.line, warningsText(s))
		}
	}
}

func TestLintNotesAreWarnings(t *testing.T) {
	f := newFixture(t)
	file := f.write("global", "[permissions]\nask = [\"shell\"]\ndeny = [\"read(src/secret)\"]\n")
	s := f.load()
	if !hasWarning(s, file+":2:", "outranks every allow rule") || !hasWarning(s, file+":3:", "is relative") {
		t.Fatalf("lint notes missing:\n%s", warningsText(s))
	}
	if len(s.Rules) != 2 {
		t.Fatalf("linted rules are kept; got %v", s.Rules)
	}
}

// projectSettings loosens everything a project can loosen, and tightens
// everything it can tighten.
const projectSettings = `[guard]
auto_approve = true
permission_mode = "bypass"

[permissions]
allow = ["shell(make *)"]
ask = ["shell(git push *)"]
deny = ["shell(curl *)"]
read_only_defaults = true

[permissions.auto]
command = ["evil-reviewer"]

[sandbox]
network = "on"
allow_network_for = ["npm install *"]
allow_tcp_connect = [443]
allow_write = ["/tmp/projscratch"]
allow_unix_sockets = ["/tmp/proj.sock"]
share_caches = true
env_deny = ["PROJECT_*"]
env_keep = ["GITHUB_TOKEN"]

[tools]
auto_approve_commands = ["make test"]

[unattended]
permissions = ["shell(make *)"]

[[hooks.pre_tool_use]]
command = "./hook.sh"
`

func TestProjectTrust(t *testing.T) {
	f := newFixture(t)
	file := f.write("project", projectSettings)
	loosened := func(s *Settings) []string {
		var out []string
		if hasRule(s.Rules, rule.Allow, "shell(make *)") {
			out = append(out, "allow rule")
		}
		if s.Mode == ModeBypass {
			out = append(out, "auto_approve")
		}
		if s.Sandbox.Network {
			out = append(out, "network")
		}
		if len(s.Sandbox.NetworkFor) > 0 {
			out = append(out, "allow_network_for")
		}
		if len(s.Sandbox.TCPConnect) > 0 {
			out = append(out, "allow_tcp_connect")
		}
		if len(s.Sandbox.AllowWrite) > 0 {
			out = append(out, "allow_write")
		}
		if len(s.Sandbox.UnixSockets) > 0 {
			out = append(out, "allow_unix_sockets")
		}
		if s.Sandbox.ShareCaches {
			out = append(out, "share_caches")
		}
		if len(s.Sandbox.EnvKeep) > 0 {
			out = append(out, "env_keep")
		}
		if len(s.AutoApproveCommands) > 0 {
			out = append(out, "auto_approve_commands")
		}
		if len(s.Unattended) > 0 {
			out = append(out, "unattended")
		}
		if len(s.Hooks) > 0 {
			out = append(out, "hooks")
		}
		return out
	}
	tightened := func(t *testing.T, s *Settings) {
		t.Helper()
		if !hasRule(s.Rules, rule.Deny, "shell(curl *)") || !hasRule(s.Rules, rule.Ask, "shell(git push *)") {
			t.Errorf("the project's deny and ask rules must always apply: %v", ruleStrings(s.Rules))
		}
		if !slices.Contains(s.Sandbox.EnvDeny, "PROJECT_*") {
			t.Errorf("the project's env_deny must always apply: %v", s.Sandbox.EnvDeny)
		}
		if s.Reviewer != nil {
			t.Errorf("a project may never set [permissions.auto]: %+v", s.Reviewer)
		}
		if s.ModeFrom == "project" {
			t.Errorf("a project may never set the mode")
		}
		if !hasWarning(s, file+":3:", "may not set permission_mode") || !hasWarning(s, file+":11:", "[permissions.auto] is read from the user's own settings only") {
			t.Errorf("refused project settings must be warned about:\n%s", warningsText(s))
		}
	}
	all := []string{"allow rule", "auto_approve", "network", "allow_network_for", "allow_tcp_connect", "allow_write",
		"allow_unix_sockets", "share_caches", "env_keep", "auto_approve_commands", "unattended", "hooks"}

	t.Run("untrusted", func(t *testing.T) {
		s := f.load()
		if got := loosened(s); len(got) != 0 {
			t.Fatalf("untrusted project loosened %v", got)
		}
		tightened(t, s)
		if s.Project.Trust != TrustUntrusted || !s.Project.Ignored {
			t.Fatalf("project %+v", s.Project)
		}
		n := 0
		for _, w := range s.Warnings {
			if w.Code == WarnUntrusted {
				n++
				if !strings.Contains(w.Msg, "not trusted") || !strings.Contains(w.Msg, "guard trust") {
					t.Errorf("warning %q must say why and what to do", w.Msg)
				}
			}
		}
		if n != 1 {
			t.Fatalf("want exactly one untrusted warning, got %d:\n%s", n, warningsText(s))
		}
	})
	t.Run("trusted", func(t *testing.T) {
		f.trust()
		s := f.load()
		if got := loosened(s); !slices.Equal(got, all) {
			t.Fatalf("trusted project loosened %v; want %v", got, all)
		}
		tightened(t, s)
		if s.Project.Trust != TrustTrusted || s.Project.Ignored || hasWarning(s, "not trusted") {
			t.Fatalf("project %+v, warnings\n%s", s.Project, warningsText(s))
		}
	})
	t.Run("changed after trust", func(t *testing.T) {
		f.write("project", projectSettings+"# one more line\n")
		s := f.load()
		if got := loosened(s); len(got) != 0 {
			t.Fatalf("changed project loosened %v", got)
		}
		tightened(t, s)
		if s.Project.Trust != TrustChanged || !hasWarning(s, "changed since you trusted them on 2026-01-02") {
			t.Fatalf("project %+v, warnings\n%s", s.Project, warningsText(s))
		}
	})
	t.Run("a new local file is a change", func(t *testing.T) {
		f.write("project", projectSettings)
		if s := f.load(); s.Project.Trust != TrustTrusted {
			t.Fatalf("restored file: trust %s", s.Project.Trust)
		}
		f.write("project-local", "")
		if s := f.load(); s.Project.Trust != TrustChanged {
			t.Fatalf("added settings.local.toml: trust %s; want changed", s.Project.Trust)
		}
	})
	t.Run("trust is per workspace", func(t *testing.T) {
		g := newFixture(t)
		g.write("project", projectSettings)
		g.trust()
		other := filepath.Join(g.home(), "other")
		os.MkdirAll(filepath.Join(other, ".guard"), 0o755)
		g.opts.Workspace = other
		g.write(filepath.Join(other, ".guard", "settings.toml"), projectSettings)
		if s := g.load(); s.Project.Trust != TrustUntrusted {
			t.Fatalf("the same files in another workspace: trust %s; want untrusted", s.Project.Trust)
		}
	})
}

func TestProjectLooseningList(t *testing.T) {
	f := newFixture(t)
	file := f.write("project", projectSettings)
	s := f.load()
	var got []string
	for _, l := range s.Project.Loosening {
		if l.File != file {
			t.Fatalf("loosening %v names the wrong file", l)
		}
		got = append(got, strings.TrimPrefix(l.String(), file+":"))
	}
	want := []string{
		"2: auto_approve = true (start in bypass)",
		"6: allow shell(make *)",
		"9: read_only_defaults = true",
		"15: network = \"on\"",
		"16: network for shell(npm install *)",
		"17: TCP connections to port 443",
		"18: writable /tmp/projscratch",
		"19: Unix socket /tmp/proj.sock",
		"20: share_caches = true",
		"22: keep $GITHUB_TOKEN in the environment",
		"25: auto-approve shell(make test)",
		"28: unattended runs may shell(make *)",
		"30: run the hook /bin/sh -c ./hook.sh",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("loosening\n got %q\nwant %q", got, want)
	}
}

func TestProjectTighteningAppliesUntrusted(t *testing.T) {
	f := newFixture(t)
	f.write("global", "[guard]\nauto_approve = true\n[permissions]\nread_only_defaults = true\n[sandbox]\nnetwork = \"on\"\nshare_caches = true\n")
	f.write("project", "[guard]\nauto_approve = false\n[permissions]\nread_only_defaults = false\n[sandbox]\nnetwork = \"off\"\nshare_caches = false\n")
	s := f.load()
	if s.Mode != ModeDefault || s.ReadOnlyDefaults || s.Sandbox.Network || s.Sandbox.ShareCaches {
		t.Fatalf("an untrusted project's tightening must apply: mode %s, read_only_defaults %v, network %v, share_caches %v",
			s.Mode, s.ReadOnlyDefaults, s.Sandbox.Network, s.Sandbox.ShareCaches)
	}
	if len(s.Project.Loosening) != 0 || s.Project.Ignored {
		t.Fatalf("tightening is not loosening: %v", s.Project.Loosening)
	}
}

func TestTrustRecords(t *testing.T) {
	f := newFixture(t)
	f.write("project", "[permissions]\nallow = [\"shell(make *)\"]\n")
	s := f.load()
	changed, err := RecordTrust(s, time.Now())
	if err != nil || !changed {
		t.Fatalf("RecordTrust = %v, %v", changed, err)
	}
	changed, err = RecordTrust(f.load(), time.Now())
	if err != nil || changed {
		t.Fatalf("trusting again = %v, %v; want no change", changed, err)
	}
	p := f.paths()
	fi, err := os.Stat(p.TrustFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust.json mode %v, %v; want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(p.ConfigDir); di.Mode().Perm() != 0o700 {
		t.Fatalf("config dir mode %v; want 0700", di.Mode())
	}
	data, _ := os.ReadFile(p.TrustFile)
	if !strings.Contains(string(data), `"sha256": "`+s.Project.Digest+`"`) || !strings.Contains(string(data), f.workspace()) {
		t.Fatalf("trust.json does not record the digest for the workspace:\n%s", data)
	}

	t.Run("what was read is what is trusted", func(t *testing.T) {
		g := newFixture(t)
		g.write("project", "[permissions]\nallow = [\"shell(make *)\"]\n")
		s := g.load()
		g.write("project", "[permissions]\nallow = [\"shell\"]\n") // swapped after it was shown
		RecordTrust(s, time.Now())
		if s2 := g.load(); s2.Project.Trust != TrustChanged || hasRule(s2.Rules, rule.Allow, "shell") {
			t.Fatalf("a file changed between show and trust must not be trusted: %s", s2.Project.Trust)
		}
	})
	t.Run("corrupt records: untrusted, with a warning", func(t *testing.T) {
		os.WriteFile(p.TrustFile, []byte("{not json"), 0o600)
		s := f.load()
		if s.Project.Trust != TrustUntrusted || !hasWarning(s, p.TrustFile, "corrupt trust records", "untrusted") {
			t.Fatalf("trust %s, warnings\n%s", s.Project.Trust, warningsText(s))
		}
		_, err := RecordTrust(s, time.Now())
		fe := asFileError(t, err)
		if fe.File != p.TrustFile {
			t.Fatalf("RecordTrust over corrupt records: %v", err)
		}
	})
	t.Run("nothing to trust", func(t *testing.T) {
		g := newFixture(t)
		if _, err := RecordTrust(g.load(), time.Now()); err == nil {
			t.Fatal("trusting a project without settings succeeded")
		}
	})
}

func TestProjectDigest(t *testing.T) {
	d := func(files ...projectFile) string { return projectDigest(files) }
	a := projectFile{name: ".guard/settings.toml", data: []byte("ab"), exists: true}
	b := projectFile{name: ".guard/settings.local.toml", data: []byte("c"), exists: true}
	moved := []projectFile{{name: a.name, data: []byte("a"), exists: true}, {name: b.name, data: []byte("bc"), exists: true}}
	missing := projectFile{name: b.name}
	empty := projectFile{name: b.name, data: []byte{}, exists: true}
	renamed := projectFile{name: ".guard/other.toml", data: []byte("ab"), exists: true}
	all := map[string]string{
		"a b":         d(a, b),
		"bytes moved": d(moved...),
		"missing":     d(a, missing),
		"empty":       d(a, empty),
		"renamed":     d(renamed, b),
	}
	seen := map[string]string{}
	for name, h := range all {
		if other, ok := seen[h]; ok {
			t.Fatalf("%s and %s hash alike", name, other)
		}
		seen[h] = name
	}
	if d(a, b) != d(a, b) {
		t.Fatal("digest is not deterministic")
	}
}

func TestStartingMode(t *testing.T) {
	tests := []struct {
		name                                string
		managed, global, workspace, project string
		flag                                string
		trust                               bool
		mode                                Mode
		from                                string
	}{
		{name: "nothing set", mode: ModeDefault, from: "default"},
		{name: "global", global: "[guard]\npermission_mode = \"plan\"\n", mode: ModePlan, from: "global"},
		{name: "workspace over global", global: "[guard]\npermission_mode = \"plan\"\n", workspace: "[guard]\npermission_mode = \"acceptEdits\"\n", mode: ModeAcceptEdits, from: "workspace"},
		{name: "flag over everything", workspace: "[guard]\npermission_mode = \"plan\"\n", flag: "dontAsk", mode: ModeDontAsk, from: "flag"},
		{name: "auto_approve is bypass", global: "[guard]\nauto_approve = true\n", mode: ModeBypass, from: "auto_approve"},
		{name: "a mode wins over auto_approve", global: "[guard]\nauto_approve = true\npermission_mode = \"default\"\n", mode: ModeDefault, from: "global"},
		{name: "workspace auto_approve = false over global true", global: "[guard]\nauto_approve = true\n", workspace: "[guard]\nauto_approve = false\n", mode: ModeDefault, from: "default"},
		{name: "project mode never counts", project: "[guard]\npermission_mode = \"bypass\"\n", trust: true, mode: ModeDefault, from: "default"},
		{name: "trusted project auto_approve", project: "[guard]\nauto_approve = true\n", trust: true, mode: ModeBypass, from: "auto_approve"},
		{name: "untrusted project auto_approve", project: "[guard]\nauto_approve = true\n", mode: ModeDefault, from: "default"},
		{name: "managed floor raises the default", managed: "[guard]\npermission_mode = \"plan\"\n", mode: ModePlan, from: "managed"},
		{name: "managed floor allows stricter", managed: "[guard]\npermission_mode = \"accept-edits\"\n", global: "[guard]\npermission_mode = \"plan\"\n", mode: ModePlan, from: "global"},
		{name: "managed floor skips a looser workspace to the global", managed: "[guard]\npermission_mode = \"default\"\n", workspace: "[guard]\npermission_mode = \"bypass\"\n", global: "[guard]\npermission_mode = \"plan\"\n", mode: ModePlan, from: "global"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for src, text := range map[string]string{"managed": tc.managed, "global": tc.global, "workspace": tc.workspace, "project": tc.project} {
				if text != "" {
					f.write(src, text)
				}
			}
			if tc.trust {
				f.trust()
			}
			f.opts.Flags.Mode = tc.flag
			s := f.load()
			if s.Mode != tc.mode || s.ModeFrom != tc.from {
				t.Fatalf("mode %s from %s; want %s from %s\n%s", s.Mode, s.ModeFrom, tc.mode, tc.from, warningsText(s))
			}
		})
	}
}

// TestManagedLimits: for each managed limit, a project (trusted), the
// user's settings or a flag tries to loosen it, and fails.
func TestManagedLimits(t *testing.T) {
	tests := []struct {
		name    string
		managed string
		src     string // the file that tries: global, workspace, project
		text    string
		flags   Flags
		flagErr string // the flag is refused with this
		warn    string // the file's setting is ignored with this warning
		check   func(*Settings) string
	}{
		{
			name: "deny rule cannot be overridden by an allow", managed: "[permissions]\ndeny = [\"shell(rm *)\"]\n",
			src: "project", text: "[permissions]\nallow = [\"shell(rm *)\"]\n",
			check: func(s *Settings) string {
				set := rule.NewSet(s.Rules, s.RuleEnv())
				if a, h, _ := set.MatchString(rule.Shell, "rm -rf x").Strictest(); a != rule.Deny || h.Rule.Source != rule.SourceManaged {
					return "managed deny did not decide"
				}
				return ""
			},
		},
		{
			name: "ask rule outranks a flag allow", managed: "[permissions]\nask = [\"shell(git push *)\"]\n",
			flags: Flags{Allow: []string{"shell(git push *)"}},
			check: func(s *Settings) string {
				set := rule.NewSet(s.Rules, s.RuleEnv())
				if a, _, _ := set.MatchString(rule.Shell, "git push").Strictest(); a != rule.Ask {
					return "managed ask did not decide"
				}
				return ""
			},
		},
		{
			name: "disable_bypass refuses a flag", managed: "[guard]\ndisable_bypass = true\n",
			flags: Flags{Mode: "bypassPermissions"}, flagErr: "--mode: bypass: managed settings forbid bypass",
		},
		{
			name: "disable_bypass refuses the workspace's mode", managed: "[guard]\ndisable_bypass = true\n",
			src: "workspace", text: "[guard]\npermission_mode = \"bypass\"\n", warn: "permission_mode = \"bypass\" ignored: managed settings forbid bypass",
			check: func(s *Settings) string { return expect(s.Mode == ModeDefault && s.DisableBypass, "mode %s", s.Mode) },
		},
		{
			name: "disable_bypass refuses auto_approve", managed: "[guard]\ndisable_bypass = true\n",
			src: "global", text: "[guard]\nauto_approve = true\n", warn: "auto_approve = true ignored: managed settings forbid bypass",
			check: func(s *Settings) string { return expect(s.Mode == ModeDefault, "mode %s", s.Mode) },
		},
		{
			name: "disable_bypass outside managed is ignored", managed: "",
			src: "project", text: "[guard]\ndisable_bypass = false\n", warn: "disable_bypass is read from the managed settings only",
		},
		{
			name: "mode floor refuses a looser flag", managed: "[guard]\npermission_mode = \"default\"\n",
			flags: Flags{Mode: "accept-edits"}, flagErr: "--mode: accept-edits: managed settings allow no mode less strict than default",
		},
		{
			name: "mode floor refuses a looser global", managed: "[guard]\npermission_mode = \"plan\"\n",
			src: "global", text: "[guard]\npermission_mode = \"default\"\n", warn: "managed settings allow no mode less strict than plan",
			check: func(s *Settings) string {
				return expect(s.Mode == ModePlan && s.ModeFrom == "managed", "mode %s from %s", s.Mode, s.ModeFrom)
			},
		},
		{
			name: "network off refuses a flag", managed: "[sandbox]\nnetwork = \"off\"\n",
			flags: Flags{Network: "on"}, flagErr: "--network: managed settings keep the network off",
		},
		{
			name: "network off refuses the user's setting", managed: "[sandbox]\nnetwork = \"off\"\n",
			src: "workspace", text: "[sandbox]\nnetwork = \"on\"\n", warn: "network = \"on\" ignored: managed settings keep the network off",
			check: func(s *Settings) string {
				return expect(!s.Sandbox.Network && s.Sandbox.NetworkForbidden, "network %v forbidden %v", s.Sandbox.Network, s.Sandbox.NetworkForbidden)
			},
		},
		{
			name: "network off refuses a project's partial network", managed: "[sandbox]\nnetwork = \"off\"\n",
			src: "project", text: "[sandbox]\nallow_network_for = [\"npm install *\"]\nallow_tcp_connect = [443]\n", warn: "ignored: managed settings keep the network off",
			check: func(s *Settings) string {
				return expect(len(s.Sandbox.NetworkFor) == 0 && len(s.Sandbox.TCPConnect) == 0, "network for %v, tcp %v", s.Sandbox.NetworkFor, s.Sandbox.TCPConnect)
			},
		},
		{
			name: "read_only_defaults off stays off", managed: "[permissions]\nread_only_defaults = false\n",
			src: "global", text: "[permissions]\nread_only_defaults = true\n", warn: "read_only_defaults = true ignored: managed settings keep it off",
			check: func(s *Settings) string { return expect(!s.ReadOnlyDefaults, "read_only_defaults on") },
		},
		{
			name: "share_caches off stays off", managed: "[sandbox]\nshare_caches = false\n",
			src: "project", text: "[sandbox]\nshare_caches = true\n", warn: "share_caches = true ignored: managed settings keep it off",
			check: func(s *Settings) string { return expect(!s.Sandbox.ShareCaches, "share_caches on") },
		},
		{
			name: "managed env_deny cannot be kept", managed: "[sandbox]\nenv_deny = [\"CORP_*\"]\n",
			src: "global", text: "[sandbox]\nenv_deny = []\nenv_keep = [\"CORP_KEY\"]\n", warn: "env_keep \"CORP_KEY\" ignored: managed settings deny it",
			check: func(s *Settings) string {
				return expect(!s.Sandbox.EnvAllowed("CORP_KEY") && s.Sandbox.EnvAllowed("HOME"), "env %v keep %v", s.Sandbox.EnvDeny, s.Sandbox.EnvKeep)
			},
		},
		{
			name: "a flag --config cannot drop managed rules", managed: "[permissions]\ndeny = [\"web\"]\n",
			src: "global", text: "",
			check: func(s *Settings) string { return expect(hasRule(s.Rules, rule.Deny, "web"), "managed rule gone") },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.managed != "" {
				f.write("managed", tc.managed)
			}
			if tc.src != "" {
				f.write(tc.src, tc.text)
			}
			if tc.src == "project" {
				f.trust() // even trusted, a project cannot loosen managed limits
			}
			f.opts.Flags = tc.flags
			if tc.name == "a flag --config cannot drop managed rules" {
				f.opts.ConfigFile = f.write(filepath.Join(f.root, "empty.toml"), "")
			}
			if tc.flagErr != "" {
				fe := asFlagError(t, f.loadErr())
				if !strings.Contains(fe.Error(), tc.flagErr) || !strings.Contains(fe.Error(), f.managed) {
					t.Fatalf("flag error %q; want %q naming %s", fe, tc.flagErr, f.managed)
				}
				return
			}
			s := f.load()
			if tc.warn != "" && !hasWarning(s, tc.warn) {
				t.Fatalf("no warning %q in\n%s", tc.warn, warningsText(s))
			}
			if tc.check != nil {
				if msg := tc.check(s); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
}

func expect(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func TestNetworkPrecedence(t *testing.T) {
	tests := []struct {
		name                                    string
		managed, global, workspace, project, fl string
		trust                                   bool
		want                                    bool
	}{
		{name: "default off"},
		{name: "global on", global: "on", want: true},
		{name: "workspace off over global on", global: "on", workspace: "off"},
		{name: "untrusted project on ignored", project: "on"},
		{name: "trusted project on", project: "on", trust: true, want: true},
		{name: "untrusted project off over global on", global: "on", project: "off"},
		{name: "flag off over workspace on", workspace: "on", fl: "off"},
		{name: "flag on", fl: "on", want: true},
		{name: "managed on is a default", managed: "on", want: true},
		{name: "global off over managed on", managed: "on", global: "off"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for src, v := range map[string]string{"managed": tc.managed, "global": tc.global, "workspace": tc.workspace, "project": tc.project} {
				if v != "" {
					f.write(src, "[sandbox]\nnetwork = \""+v+"\"\n")
				}
			}
			if tc.trust {
				f.trust()
			}
			f.opts.Flags.Network = tc.fl
			if s := f.load(); s.Sandbox.Network != tc.want {
				t.Fatalf("network %v, want %v", s.Sandbox.Network, tc.want)
			}
		})
	}
	f := newFixture(t)
	f.opts.Flags.Network = "yes"
	if fe := asFlagError(t, f.loadErr()); fe.Flag != "network" {
		t.Fatalf("--network yes: %v", fe)
	}
}

func TestEnvDeny(t *testing.T) {
	tests := []struct {
		name                      string
		managed, global, ws, proj string
		allowed, denied           []string
		dropped                   string
	}{
		{name: "default list", allowed: []string{"HOME", "PATH", "TOKENIZERS_PARALLELISM", "GOFLAGS"},
			denied: []string{"GITHUB_TOKEN", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "OPENAI_API_KEY", "PGPASSWORD", "DATABASE_URL", "SENTRY_DSN", "CLIENT_SECRET", "SLACK_WEBHOOK_URL", "GOOGLE_APPLICATION_CREDENTIALS"}},
		{name: "the user's list replaces the default", global: "env_deny = [\"MY_*\"]", allowed: []string{"GITHUB_TOKEN"}, denied: []string{"MY_X"}},
		{name: "global and workspace lists join", global: "env_deny = [\"A_*\"]", ws: "env_deny = [\"B_*\"]", allowed: []string{"GITHUB_TOKEN"}, denied: []string{"A_1", "B_1"}},
		{name: "a project only adds", proj: "env_deny = [\"PROJ_*\"]", denied: []string{"PROJ_X", "GITHUB_TOKEN"}},
		{name: "managed adds to the user's", managed: "env_deny = [\"CORP_*\"]", global: "env_deny = []", allowed: []string{"GITHUB_TOKEN"}, denied: []string{"CORP_X"}},
		{name: "env_keep rescues a name", global: "env_keep = [\"GITHUB_TOKEN\"]", allowed: []string{"GITHUB_TOKEN"}, denied: []string{"GH_TOKEN"}},
		{name: "env_keep takes names, not globs", global: "env_keep = [\"*\"]", denied: []string{"GITHUB_TOKEN"}, dropped: "env_keep entry \"*\" dropped"},
		{name: "invalid env_deny entry", global: "env_deny = [\"A B\", \"OK\"]", denied: []string{"OK"}, allowed: []string{"GITHUB_TOKEN"}, dropped: "env_deny entry \"A B\" dropped"},
		{name: "an untrusted project's env_keep is ignored", proj: "env_keep = [\"GITHUB_TOKEN\"]", denied: []string{"GITHUB_TOKEN"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for src, v := range map[string]string{"managed": tc.managed, "global": tc.global, "workspace": tc.ws, "project": tc.proj} {
				if v != "" {
					f.write(src, "[sandbox]\n"+v+"\n")
				}
			}
			s := f.load()
			for _, n := range tc.allowed {
				if !s.Sandbox.EnvAllowed(n) {
					t.Errorf("%s denied; want it passed (deny %v, keep %v)", n, s.Sandbox.EnvDeny, s.Sandbox.EnvKeep)
				}
			}
			for _, n := range tc.denied {
				if s.Sandbox.EnvAllowed(n) {
					t.Errorf("%s passed; want it denied (deny %v, keep %v)", n, s.Sandbox.EnvDeny, s.Sandbox.EnvKeep)
				}
			}
			if tc.dropped != "" && !hasWarning(s, tc.dropped) {
				t.Errorf("no warning %q in\n%s", tc.dropped, warningsText(s))
			}
		})
	}
}

func TestAllowWrite(t *testing.T) {
	f0 := newFixture(t)
	home := f0.home()
	tests := []struct {
		name  string
		entry string
		env   map[string]string
		link  string // make ~/link point here first
		want  string // the path granted, "" when dropped
		warn  string
	}{
		{name: "a plain directory", entry: "\"/tmp/scratch\"", want: "/tmp/scratch"},
		{name: "home-relative", entry: "\"~/scratch\"", want: filepath.Join(home, "scratch")},
		{name: "workspace-relative", entry: "\"build/out\"", want: filepath.Join(f0.workspace(), "build", "out")},
		{name: "a variable", entry: "\"$SCRATCH/x\"", env: map[string]string{"SCRATCH": "/tmp/s"}, want: "/tmp/s/x"},
		{name: "an unset variable is not the root", entry: "\"$UNSET/\"", warn: "$UNSET is not set"},
		{name: "an empty variable is not the root", entry: "\"${EMPTY}/etc\"", env: map[string]string{"EMPTY": ""}, warn: "$EMPTY is not set"},
		{name: "the home directory", entry: "\"~\"", warn: "dangerous to open: the home directory"},
		{name: "the root", entry: "\"/\"", warn: "dangerous"},
		{name: "a parent of home", entry: "\"" + filepath.Dir(home) + "\"", warn: "dangerous"},
		{name: "ssh keys", entry: "\"~/.ssh\"", warn: "log in as the user"},
		{name: "inside ssh", entry: "\"~/.ssh/authorized_keys\"", warn: "log in as the user"},
		{name: "a shell start-up file", entry: "\"~/.bashrc\"", warn: "outside the sandbox"},
		{name: "guard's own settings", entry: "\"~/.config/guard\"", warn: "guard's own settings"},
		{name: "all of ~/.config", entry: "\"~/.config\"", warn: "guard's own settings"},
		{name: "a program's own config dir is fine", entry: "\"~/.config/myapp\"", want: filepath.Join(home, ".config", "myapp")},
		{name: "on PATH", entry: "\"~/.local/bin\"", warn: "on PATH"},
		{name: "dot-dot cannot hide home", entry: "\"~/scratch/..\"", warn: "the home directory"},
		{name: "system directories", entry: "\"/etc/cron.d\"", warn: "the system's configuration"},
		{name: "a symlink to home", entry: "\"~/link\"", link: ".", warn: "the home directory"},
		{name: "a symlink into ssh", entry: "\"~/link\"", link: ".ssh", warn: "log in as the user"},
		{name: "marked dangerous", entry: "{path = \"~/.bashrc\", dangerous = true}", want: filepath.Join(home, ".bashrc")},
		{name: "a variable pointing home", entry: "\"$SNEAKY\"", env: map[string]string{"SNEAKY": home}, warn: "the home directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			// Same home path for every case: the table's paths use it.
			f.opts.Home, f.opts.Workspace = home, f0.workspace()
			os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
			os.Remove(filepath.Join(home, "link"))
			if tc.link != "" {
				if err := os.Symlink(filepath.Join(home, tc.link), filepath.Join(home, "link")); err != nil {
					t.Fatal(err)
				}
			}
			f.env = tc.env
			if f.env == nil {
				f.env = map[string]string{}
			}
			f.write(filepath.Join(f.root, "g.toml"), "[sandbox]\nallow_write = [\n  "+tc.entry+",\n]\n")
			f.opts.ConfigFile = filepath.Join(f.root, "g.toml")
			s := f.load()
			if tc.want != "" {
				if !slices.Equal(s.Sandbox.AllowWrite, []string{tc.want}) {
					t.Fatalf("allow_write %v; want [%s]\n%s", s.Sandbox.AllowWrite, tc.want, warningsText(s))
				}
				if s.Sandbox.Writable[0].From != f.opts.ConfigFile+":3" {
					t.Fatalf("From = %q", s.Sandbox.Writable[0].From)
				}
				return
			}
			if len(s.Sandbox.AllowWrite) != 0 {
				t.Fatalf("allow_write %v; want it dropped", s.Sandbox.AllowWrite)
			}
			if !hasWarning(s, f.opts.ConfigFile+":3:", "dropped", tc.warn) {
				t.Fatalf("no warning %q in\n%s", tc.warn, warningsText(s))
			}
		})
	}
	t.Run("a flag cannot open a dangerous path", func(t *testing.T) {
		f := newFixture(t)
		f.opts.Flags.AllowWrite = []string{"~/.ssh"}
		fe := asFlagError(t, f.loadErr())
		if fe.Flag != "allow-write" || !strings.Contains(fe.Msg, "dangerous") {
			t.Fatalf("flag error %v", fe)
		}
		f.opts.Flags.AllowWrite = []string{"/tmp/ok"}
		if s := f.load(); !slices.Equal(s.Sandbox.AllowWrite, []string{"/tmp/ok"}) || s.Sandbox.Writable[0].From != "flag" {
			t.Fatalf("allow_write %v", s.Sandbox.Writable)
		}
	})
}

func TestUnixSockets(t *testing.T) {
	tests := []struct {
		name, entry string
		env         map[string]string
		want        string
		warn        string
	}{
		{name: "the ssh agent", entry: "\"$SSH_AUTH_SOCK\"", env: map[string]string{"SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1"}, want: "/tmp/ssh-x/agent.1"},
		{name: "unset variable", entry: "\"$SSH_AUTH_SOCK\"", warn: "$SSH_AUTH_SOCK is not set"},
		{name: "docker", entry: "\"/var/run/docker.sock\"", warn: "docker: root on the machine"},
		{name: "docker through a variable", entry: "\"$SSH_AUTH_SOCK\"", env: map[string]string{"SSH_AUTH_SOCK": "/run/docker.sock"}, warn: "root on the machine"},
		{name: "the system bus", entry: "\"/run/dbus/system_bus_socket\"", warn: "system D-Bus"},
		{name: "the session bus", entry: "\"$XDG_RUNTIME_DIR/bus\"", env: map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, warn: "D-Bus"},
		{name: "X11", entry: "\"/tmp/.X11-unix/X0\"", warn: "X11"},
		{name: "a directory of sockets", entry: "\"/run\"", warn: "docker"},
		{name: "docker marked dangerous", entry: "{path = \"/var/run/docker.sock\", dangerous = true}", want: "/var/run/docker.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.opts.RuntimeDir = "/run/user/1000"
			if tc.env != nil {
				f.env = tc.env
			}
			file := f.write("global", "[sandbox]\nallow_unix_sockets = ["+tc.entry+"]\n")
			s := f.load()
			if tc.want != "" {
				if len(s.Sandbox.UnixSockets) != 1 || s.Sandbox.UnixSockets[0].Path != tc.want || s.Sandbox.UnixSockets[0].From != file+":2" {
					t.Fatalf("sockets %+v; want %s\n%s", s.Sandbox.UnixSockets, tc.want, warningsText(s))
				}
				return
			}
			if len(s.Sandbox.UnixSockets) != 0 || !hasWarning(s, file+":2:", tc.warn) {
				t.Fatalf("sockets %+v; want dropped with %q\n%s", s.Sandbox.UnixSockets, tc.warn, warningsText(s))
			}
		})
	}
}

func TestListsAndTables(t *testing.T) {
	f := newFixture(t)
	file := f.write("global", `[permissions.auto]
command = ["my-reviewer", "--strict"]
timeout = "30s"
environment = "a Go project"

[sandbox]
allow_network_for = ["shell(npm install *)", "Bash(pip install:*)", "cargo fetch", "read(/x)"]
allow_tcp_connect = [443, 443, 22]

[tools]
auto_approve_commands = ["make *", "go test ./..."]

[unattended]
permissions = ["shell(make *)", "read(~/x)"]

[[hooks.pre_tool_use]]
command = ["check", "--fast"]

[[hooks.pre_tool_use]]
command = "echo hi | logger"
timeout = "5s"

[ui]
diff_lines = 40
`)
	s := f.load()
	if s.Reviewer == nil || !slices.Equal(s.Reviewer.Command, []string{"my-reviewer", "--strict"}) || s.Reviewer.Timeout != 30*time.Second || s.Reviewer.Environment != "a Go project" || s.Reviewer.From != file+":1" {
		t.Errorf("reviewer %+v", s.Reviewer)
	}
	if got := ruleStrings(s.Sandbox.NetworkFor); !slices.Equal(got, []string{"allow shell(npm install *) global", "allow shell(pip install *) global", "allow shell(cargo fetch) global"}) {
		t.Errorf("allow_network_for %v", got)
	}
	if !hasWarning(s, file+":7:", "read(/x) is a read rule; this list takes commands") {
		t.Errorf("a non-shell rule in allow_network_for must be dropped with a warning:\n%s", warningsText(s))
	}
	if !slices.Equal(s.Sandbox.TCPConnect, []uint16{443, 22}) {
		t.Errorf("tcp %v", s.Sandbox.TCPConnect)
	}
	if got := ruleStrings(s.AutoApproveCommands); !slices.Equal(got, []string{"allow shell(make *) global", "allow shell(go test ./...) global"}) || s.AutoApproveCommands[1].Line != 11 {
		t.Errorf("auto_approve_commands %v", got)
	}
	if got := ruleStrings(s.Unattended); !slices.Equal(got, []string{"allow shell(make *) global", "allow read(~/x) global"}) {
		t.Errorf("unattended %v", got)
	}
	if len(s.Hooks) != 2 || !slices.Equal(s.Hooks[0].Command, []string{"check", "--fast"}) || s.Hooks[0].Timeout != time.Minute ||
		!slices.Equal(s.Hooks[1].Command, []string{"/bin/sh", "-c", "echo hi | logger"}) || s.Hooks[1].Timeout != 5*time.Second || s.Hooks[1].From != file+":19" {
		t.Errorf("hooks %+v", s.Hooks)
	}
	if s.UI.DiffLines != 40 {
		t.Errorf("diff_lines %d", s.UI.DiffLines)
	}

	t.Run("--permit replaces the unattended permissions", func(t *testing.T) {
		f.opts.Flags.Permit = []string{"shell(go test *)"}
		s := f.load()
		if got := ruleStrings(s.Unattended); !slices.Equal(got, []string{"allow shell(go test *) flag"}) {
			t.Fatalf("unattended %v", got)
		}
		f.opts.Flags.Permit = []string{"shell("}
		if fe := asFlagError(t, f.loadErr()); fe.Flag != "permit" {
			t.Fatalf("flag error %v", fe)
		}
		f.opts.Flags.Permit = nil
	})
	t.Run("the workspace's reviewer wins; a managed one is ignored", func(t *testing.T) {
		f.write("workspace", "[permissions.auto]\ncommand = \"ws-reviewer\"\n")
		f.write("managed", "[permissions.auto]\ncommand = \"corp\"\n")
		s := f.load()
		if !slices.Equal(s.Reviewer.Command, []string{"/bin/sh", "-c", "ws-reviewer"}) || s.Reviewer.Timeout != 2*time.Minute {
			t.Fatalf("reviewer %+v", s.Reviewer)
		}
		if !hasWarning(s, f.managed+":1:", "read from the user's own settings only") {
			t.Fatalf("warnings\n%s", warningsText(s))
		}
	})
}

func TestFlagRules(t *testing.T) {
	f := newFixture(t)
	f.opts.Flags.Deny = []string{"Bash(rm:*)"}
	s := f.load()
	if got := ruleStrings(s.Rules); !slices.Equal(got, []string{"deny shell(rm *) flag"}) {
		t.Fatalf("rules %v", got)
	}
	f.opts.Flags.Deny = []string{"shell(rm *"}
	if fe := asFlagError(t, f.loadErr()); fe.Flag != "deny" || !strings.Contains(fe.Msg, "missing closing parenthesis") {
		t.Fatalf("an invalid --deny must fail, not be dropped: %v", fe)
	}
	f.opts.Flags.Deny = nil
	f.opts.Flags.Mode = "yolo"
	if fe := asFlagError(t, f.loadErr()); fe.Flag != "mode" {
		t.Fatalf("flag error %v", fe)
	}
}

func TestConfigFlag(t *testing.T) {
	f := newFixture(t)
	f.write("global", "[permissions]\ndeny = [\"shell(a)\"]\n")
	f.opts.ConfigFile = f.write(filepath.Join(f.root, "other.toml"), "[permissions]\ndeny = [\"shell(b)\"]\n")
	s := f.load()
	if got := ruleStrings(s.Rules); !slices.Equal(got, []string{"deny shell(b) global"}) || s.Rules[0].File != f.opts.ConfigFile {
		t.Fatalf("--config must replace the global file: %v", got)
	}
	f.opts.ConfigFile = filepath.Join(f.root, "missing.toml")
	if fe := asFileError(t, f.loadErr()); !strings.Contains(fe.Msg, "no such settings file") {
		t.Fatalf("a missing --config file: %v", fe)
	}
}

func TestManagedFileChoice(t *testing.T) {
	f := newFixture(t)
	f.write("managed", "[permissions]\ndeny = [\"shell(env)\"]\n")
	if s := f.load(); s.Paths.ManagedFile != f.managed || !hasRule(s.Rules, rule.Deny, "shell(env)") {
		t.Fatalf("GUARD_MANAGED_SETTINGS is used while the system file is missing: %s", s.Paths.ManagedFile)
	}
	sys := f.write(f.opts.SystemManagedFile, "[permissions]\ndeny = [\"shell(sys)\"]\n")
	s := f.load()
	if s.Paths.ManagedFile != sys || !hasRule(s.Rules, rule.Deny, "shell(sys)") || hasRule(s.Rules, rule.Deny, "shell(env)") {
		t.Fatalf("once the system file exists, the environment cannot swap it: %s %v", s.Paths.ManagedFile, ruleStrings(s.Rules))
	}
	if !hasWarning(s, "GUARD_MANAGED_SETTINGS="+f.managed+" is ignored") {
		t.Fatalf("warnings\n%s", warningsText(s))
	}
}

func TestHostileFiles(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		setup func(path string) error
		msg   string
	}{
		{"a named pipe", "project", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (a named pipe)"},
		{"a directory", "project", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file (a directory)"},
		{"a device", "global", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a device)"},
		{"a device, from a project", "project", func(p string) error { return os.Symlink("/dev/zero", p) }, "outside the workspace"},
		{"too large", "project", func(p string) error { return os.WriteFile(p, make([]byte, maxSettingsSize+1), 0o644) }, "larger than"},
		{"a dangling symlink is no file", "project", func(p string) error { return os.Symlink("/nonexistent/x", p) }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.file(tc.src)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := tc.setup(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Load(f.opts); done <- err }()
			select {
			case err := <-done:
				if tc.msg == "" {
					if err != nil {
						t.Fatalf("Load: %v", err)
					}
					return
				}
				fe := asFileError(t, err)
				if fe.File != p || !strings.Contains(fe.Msg, tc.msg) {
					t.Fatalf("got %v; want %q", fe, tc.msg)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Load hangs on a hostile settings file")
			}
		})
	}
	t.Run(".guard is a file", func(t *testing.T) {
		f := newFixture(t)
		f.write(filepath.Join(f.workspace(), ".guard"), "x")
		if s := f.load(); s.Project.Trust != TrustNone {
			t.Fatalf("trust %s", s.Project.Trust)
		}
	})
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{
		{"network", "network", 0},
		{"netwrok", "network", 1},
		{"netwrk", "network", 1},
		{"permisions", "permissions", 1},
		{"", "abc", 3},
		{"allow", "deny", 5},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestProjectFilesStayInTheProject(t *testing.T) {
	f := newFixture(t)
	secret := f.write(filepath.Join(f.home(), ".aws", "credentials"), "[default]\naws_access_key_id = AKIASECRETVALUE\n")
	p := f.file("project")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	err := f.loadErr()
	fe := asFileError(t, err)
	if strings.Contains(err.Error(), "AKIASECRETVALUE") || !strings.Contains(fe.Msg, "outside the workspace") {
		t.Fatalf("a project symlink out of the workspace: %v", err)
	}
	t.Run("a .guard directory that is a symlink out", func(t *testing.T) {
		g := newFixture(t)
		g.write(filepath.Join(g.home(), "elsewhere", "settings.toml"), "[permissions]\nallow = [\"shell\"]\n")
		os.Symlink(filepath.Join(g.home(), "elsewhere"), filepath.Join(g.workspace(), ".guard"))
		if fe := asFileError(t, g.loadErr()); !strings.Contains(fe.Msg, "outside the workspace") {
			t.Fatalf("error %v", fe)
		}
	})
	t.Run("a symlink inside the project is fine", func(t *testing.T) {
		g := newFixture(t)
		g.write(filepath.Join(g.workspace(), "config", "guard.toml"), "[permissions]\ndeny = [\"web\"]\n")
		os.MkdirAll(filepath.Join(g.workspace(), ".guard"), 0o755)
		os.Symlink("../config/guard.toml", g.file("project"))
		if s := g.load(); !hasRule(s.Rules, rule.Deny, "web") {
			t.Fatalf("rules %v", ruleStrings(s.Rules))
		}
	})
}

func TestShown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/tmp/x", "/tmp/x"},
		{"~/scratch", "~/scratch"},
		{"$SSH_AUTH_SOCK", "$SSH_AUTH_SOCK"},
		{"a b", `"a b"`},
		{"x\n  forged line", `"x\n  forged line"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{"", `""`},
	}
	for _, tc := range tests {
		if got := shown(tc.in); got != tc.want {
			t.Errorf("shown(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
