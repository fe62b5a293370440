package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStarterSettings writes the starter file with guard init and checks,
// with guard check, that it stops what it says it stops, lets ordinary work
// through, and what the ways around a rule that were tried do.
func TestStarterSettings(t *testing.T) {
	e := newAgentEnv(t, "")
	code, stdout, stderr := e.run(nil, "init", "--agent", "claude-code")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	code, out, errs := e.run(nil, "rules", "list", "--workspace", e.ws)
	if code != 0 || errs != "" {
		t.Fatalf("the starter settings do not load cleanly: exit %d\n%s\n%s", code, out, errs)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(e.ws); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".env.local", "config/.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(e.ws, f)), 0o700)
		os.WriteFile(filepath.Join(e.ws, f), []byte("X=1\n"), 0o600)
	}
	tests := []struct {
		kind, target, want string
	}{
		{"read", "~/.ssh/id_rsa", "deny"},
		{"read", "~/.ssh", "deny"},
		{"read", "~/.aws/credentials", "deny"},
		{"read", "~/.gnupg/private-keys-v1.d/x.key", "deny"},
		{"read", "~/.config/gh/hosts.yml", "deny"},
		{"read", "~/.netrc", "deny"},
		{"read", "W/.env", "deny"},
		{"read", "W/.env.local", "deny"},
		{"read", "W/config/.env", "deny"},
		{"read", "W/src/main.go", "allow"},
		{"read", "~/.config/ghostty/config", "ask"}, // not ~/.config/gh: the rule names a directory
		{"shell", "git status", "allow"},
		{"shell", "ls -la", "allow"},
		{"shell", "go test ./...", "ask"},
		{"shell", "rm -rf build", "ask"},
		{"shell", "rm -rf /", "deny"},
		{"shell", "rm -rf /*", "deny"},
		{"shell", "rm -rf ~", "deny"},
		{"shell", "rm -rf $HOME", "deny"},
		{"shell", "sudo ls", "deny"},
		{"shell", "sudo", "deny"},
		{"shell", "/usr/bin/sudo -u root ls", "deny"},
		{"shell", "env sudo ls", "deny"},
		{"shell", "echo ok && sudo ls", "deny"},
		{"shell", "git push origin main", "ask"},
		{"shell", "git push --force origin main", "deny"},
		{"shell", "git push --force", "deny"},
		{"shell", "git -C . push --force origin main", "deny"},
		{"shell", "git push -f origin main", "deny"},
		// A force push by refspec is not a flag: the ask rule on every push
		// still shows it to you.
		{"shell", "git push origin +main", "ask"},
		{"shell", "cat .env", "deny"},
		{"shell", "cat ~/.ssh/id_rsa", "deny"},
		{"shell", "dd if=/dev/zero of=/dev/sda", "deny"},
		{"shell", "dd if=/dev/zero of=/dev/null count=1", "ask"},
	}
	status := map[int]string{0: "allow", 3: "ask", 4: "deny"}
	for _, tt := range tests {
		target := strings.Replace(tt.target, "W/", e.ws+"/", 1)
		target = strings.Replace(target, "~/", e.home+"/", 1)
		code, out, errs := e.run(nil, "check", "--workspace", e.ws, tt.kind, target)
		if got := status[code]; got != tt.want {
			t.Errorf("check %s %q: %s (exit %d), want %s\n%s%s", tt.kind, tt.target, got, code, tt.want, out, errs)
		}
	}
}

func TestInitKeepsAnExistingFile(t *testing.T) {
	e := newAgentEnv(t, "# mine\n[permissions]\ndeny = [\"shell(make deploy)\"]\n")
	file := filepath.Join(e.home, ".config", "guard", "settings.toml")
	code, stdout, stderr := e.run(nil, "init")
	if code != 0 || !strings.Contains(stderr, "exists: left as it is") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(file); !strings.HasPrefix(string(b), "# mine") {
		t.Fatalf("init without --force changed the file: %q", b)
	}
	if !strings.Contains(stdout, "guard exec") {
		t.Errorf("init did not print how to set up the agent:\n%s", stdout)
	}
	code, stdout, stderr = e.run(nil, "init", "--force")
	if code != 0 {
		t.Fatalf("init --force: exit %d: %s", code, stderr)
	}
	backups, _ := filepath.Glob(file + ".bak-*")
	if len(backups) != 1 {
		t.Fatalf("backups %q, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); !strings.HasPrefix(string(b), "# mine") {
		t.Errorf("the backup holds %q", b)
	}
	if !strings.Contains(stdout, backups[0]) {
		t.Errorf("init --force did not name the backup:\n%s", stdout)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "read(~/.ssh)") {
		t.Errorf("init --force did not write the starter file")
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("settings mode %v, want 0600 (%v)", fi.Mode().Perm(), err)
	}
	// A second --force in the same second keeps both backups.
	e.run(nil, "init", "--force")
	if backups, _ := filepath.Glob(file + ".bak-*"); len(backups) != 2 {
		t.Errorf("after two --force: backups %q", backups)
	}
}

func TestWriteStarterBackupNames(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.toml")
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	os.WriteFile(file, []byte("old"), 0o600)
	var names []string
	for i := 0; i < 3; i++ {
		b, written, err := writeStarter(file, []byte("new"), true, now)
		if err != nil || !written {
			t.Fatalf("written %v err %v", written, err)
		}
		names = append(names, filepath.Base(b))
	}
	want := "settings.toml.bak-20260102-150405 settings.toml.bak-20260102-150405-2 settings.toml.bak-20260102-150405-3"
	if strings.Join(names, " ") != want {
		t.Errorf("backups %q, want %q", names, want)
	}
}

func TestInitRefusesADanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.toml")
	os.Symlink(filepath.Join(dir, "elsewhere", "x.toml"), file)
	if _, _, err := writeStarter(file, []byte("x"), false, time.Now()); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("err %v, want a refusal naming the symlink", err)
	}
}

func TestInitPrintsAClaudeCodeHookEntry(t *testing.T) {
	e := newAgentEnv(t, "")
	_, stdout, _ := e.run(nil, "init", "--agent", "claude-code")
	start := strings.Index(stdout, "\n{\n")
	end := strings.Index(stdout, "\n}\n")
	if start < 0 || end < start {
		t.Fatalf("no JSON block in:\n%s", stdout)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout[start+1 : end+2]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the hook entry is not settings.json: %v", err)
	}
	pre := doc.Hooks["PreToolUse"]
	if len(pre) != 1 || pre[0].Matcher != "*" || len(pre[0].Hooks) != 1 {
		t.Fatalf("entry %+v", doc)
	}
	h := pre[0].Hooks[0]
	if h.Type != "command" || !strings.HasSuffix(h.Command, " hook claude-code") || h.Timeout != 60 {
		t.Errorf("hook %+v", h)
	}
	if defaultHookTimeout+hookGrace >= time.Duration(h.Timeout)*time.Second {
		t.Errorf("guard's own deadline %v is not below the entry's timeout %ds", defaultHookTimeout+hookGrace, h.Timeout)
	}
}

func TestInitAgents(t *testing.T) {
	for agent, want := range map[string]string{
		"claude-code": `"PreToolUse"`,
		"codex":       "[[hooks.PreToolUse.hooks]]",
		"gemini":      "exec --network on --allow-write ~/.gemini -- gemini",
		"aider":       "SHELL=~/.local/bin/guard-shell aider",
		"generic":     "exec -c 'COMMAND'",
	} {
		t.Run(agent, func(t *testing.T) {
			e := newAgentEnv(t, "")
			code, stdout, stderr := e.run(nil, "init", "--agent", agent)
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, want, stdout, stderr)
			}
			if !strings.Contains(stdout, "docs/agents/"+agent+".md") {
				t.Errorf("no pointer to docs/agents/%s.md", agent)
			}
		})
	}
	e := newAgentEnv(t, "")
	if code, _, stderr := e.run(nil, "init", "--agent", "cursor"); code != 64 || !strings.Contains(stderr, "claude-code") {
		t.Errorf("an unknown agent: exit %d %q", code, stderr)
	}
}

// TestShellWrapper runs the guard-shell script guard init prints with a real
// sh and a stub guard that prints its arguments: -c COMMAND reaches guard
// exec exactly, and every other way of starting it is refused.
func TestShellWrapper(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	dir := t.TempDir()
	stub := "#!/bin/sh\nprintf 'SHELL=%s\\0' \"$SHELL\"\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"
	os.WriteFile(filepath.Join(dir, "guard"), []byte(stub), 0o755)
	wrapper := filepath.Join(dir, "guard-shell")
	os.WriteFile(wrapper, []byte(shellWrapper("guard")), 0o755)
	for _, args := range [][]string{{"-c", "git status"}, {"-lc", "echo 'a b' \"$(c)\"\nd"}, {"-c", ""}} {
		c := exec.Command(sh, append([]string{wrapper}, args...)...)
		c.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "SHELL=" + wrapper}
		out, err := c.Output()
		if err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		want := "SHELL=/bin/bash\x00exec\x00-c\x00" + args[1] + "\x00"
		if string(out) != want {
			t.Errorf("%q: guard got %q, want %q", args, out, want)
		}
	}
	for _, args := range [][]string{{}, {"-i"}, {"script.sh"}, {"-c", "echo $0", "name"}, {"-s"}} {
		c := exec.Command(sh, append([]string{wrapper}, args...)...)
		c.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
		c.Stdin = strings.NewReader("touch " + filepath.Join(dir, "ran") + "\n")
		out, err := c.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 64 {
			t.Errorf("%q: %v %q, want exit 64", args, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			t.Fatalf("%q: a command ran outside guard", args)
		}
	}
}
