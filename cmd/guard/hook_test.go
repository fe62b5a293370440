package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/agents/claudecode"
)

// agentEnv is a throwaway home and workspace for running guard in this
// process: a git repository with a source file and a .env, a home with an
// SSH key, and global settings.
type agentEnv struct {
	root, home, ws string
}

const hookSettings = `[permissions]
deny = [
  "read(~/.ssh)",
  "read(*/.env)",
  "shell(rm -rf /)",
  "web(evil.example)",
]
ask = ["shell(git push *)"]
allow = [
  "web(docs.rs)",
  "web(anthropic-web-search)",
  "mcp(github:get_issue)",
]
`

func newAgentEnv(t testing.TB, settings string) *agentEnv {
	t.Helper()
	root := t.TempDir()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	e := &agentEnv{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "proj")}
	for _, d := range []string{
		filepath.Join(e.home, ".ssh"), filepath.Join(e.home, ".config", "guard"), filepath.Join(e.home, ".local", "state"),
		filepath.Join(e.ws, ".git", "hooks"), filepath.Join(e.ws, "src"),
	} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(e.home, ".ssh", "id_rsa"):            "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		filepath.Join(e.ws, "src", "main.go"):              "package main\n",
		filepath.Join(e.ws, ".env"):                        "API_KEY=secret\n",
		filepath.Join(e.ws, ".git", "hooks", "pre-commit"): "#!/bin/sh\n",
	}
	if settings != "" {
		files[filepath.Join(e.home, ".config", "guard", "settings.toml")] = settings
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(e.home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(e.home, ".local", "state"))
	t.Setenv("GUARD_MANAGED_SETTINGS", filepath.Join(root, "managed.toml"))
	t.Setenv("GUARD_SESSION", "")
	t.Setenv("GUARD_NO_TTY", "1")
	return e
}

// fixture reads a recorded hook input, with its placeholders filled in.
func (e *agentEnv) fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("{{HOME}}", e.home, "{{WS}}", e.ws).Replace(string(b))
	return []byte(s)
}

// run runs guard in this process.
func (e *agentEnv) run(stdin []byte, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	a := &app{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, args0: "guard"}
	code = a.main(args)
	return code, out.String(), errb.String()
}

// hookAnswer is the hook's output, decoded strictly: a field Claude Code
// does not know would fail the decode.
type hookAnswer struct {
	HookSpecificOutput struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

func TestHookRecordedInputs(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		flags   []string
		// want is the decision; "" for no output (no opinion), "exit2" for
		// a blocked call.
		want string
		// reason and stderr must contain these.
		reason, stderr []string
	}{
		{name: "an allowed git status", fixture: "bash_git_status.json", want: "allow", reason: []string{"shell(git status *)"}},
		{name: "a denied Bash command, in a compound command", fixture: "bash_rm_rf.json", want: "deny", reason: []string{"shell(rm -rf /)", "settings.toml:"}},
		{name: "an ask rule asks, naming the rule", fixture: "bash_git_push.json", want: "ask", reason: []string{"shell(git push *)"}},
		{name: "a denied Read of ~/.ssh/id_rsa", fixture: "read_ssh_key.json", want: "deny", reason: []string{"read(~/.ssh)", "id_rsa"}},
		{name: "a read inside the workspace", fixture: "read_workspace.json", want: "allow"},
		{name: "a Grep over a tree holding a denied file", fixture: "grep_workspace.json", want: "deny", reason: []string{".env", "read(*/.env)", "narrower path"}},
		{name: "a Grep of a directory without denied files", fixture: "grep_src.json", want: "allow"},
		{name: "a Glob whose pattern climbs into ~/.ssh", fixture: "glob_climbs_out.json", want: "deny", reason: []string{"read(~/.ssh)"}},
		{name: "a Glob inside the workspace", fixture: "glob_workspace.json", want: "allow"},
		{name: "an Edit in the workspace is left to the user", fixture: "edit.json", want: "ask", reason: []string{"main.go"}},
		{name: "a MultiEdit of a git hook asks", fixture: "multiedit_hooks.json", want: "ask", reason: []string{"pre-commit"}},
		{name: "a Write outside the workspace asks", fixture: "write_bashrc.json", want: "ask", reason: []string{".bashrc"}},
		{name: "a NotebookEdit is a write", fixture: "notebookedit.json", want: "ask", reason: []string{"analysis.ipynb"}},
		{name: "a WebFetch of an allowed host", fixture: "webfetch.json", want: "allow", reason: []string{"web(docs.rs)"}},
		{name: "a WebFetch with user-info in the URL is blocked", fixture: "webfetch_userinfo.json", want: "exit2", stderr: []string{"user-info"}},
		{name: "WebSearch is web access to the search provider", fixture: "websearch.json", want: "allow", reason: []string{"web(anthropic-web-search)"}},
		{name: "an MCP tool", fixture: "mcp.json", want: "allow", reason: []string{"mcp(github:get_issue)"}},
		{name: "an unknown tool: no opinion", fixture: "unknown_tool.json", want: ""},
		{name: "an unknown tool with --unknown ask", fixture: "unknown_tool.json", flags: []string{"--unknown", "ask"}, want: "ask", reason: []string{"TeleportFiles"}},
		{name: "a known bookkeeping tool: no opinion even with --unknown ask", fixture: "todowrite.json", flags: []string{"--unknown", "ask"}, want: ""},
		{name: "Claude Code's bypassPermissions does not loosen guard", fixture: "bypass_mode.json", want: "ask", reason: []string{"make deploy"}},
		{name: "Claude Code's plan mode tightens guard", fixture: "plan_mode.json", want: "deny", reason: []string{"planning is on", "from Claude Code's permission mode plan"}},
		{name: "a case-folded key cannot hide the path read", fixture: "hostile_case_keys.json", want: "deny", reason: []string{"id_rsa"}},
		{name: "not JSON", fixture: "malformed_not_json.json", want: "exit2", stderr: []string{"malformed hook input", "blocked"}},
		{name: "another event", fixture: "malformed_post_tool_use.json", want: "exit2", stderr: []string{"PostToolUse"}},
		{name: "no cwd", fixture: "malformed_no_cwd.json", want: "exit2", stderr: []string{`"cwd"`}},
		{name: "a relative cwd", fixture: "malformed_relative_cwd.json", want: "exit2", stderr: []string{"not an absolute path"}},
		{name: "tool_input not an object", fixture: "malformed_tool_input_array.json", want: "exit2", stderr: []string{"tool_input"}},
		{name: "a command that is not a string", fixture: "malformed_command_not_string.json", want: "exit2", stderr: []string{"want a string"}},
		{name: "two JSON values", fixture: "malformed_two_values.json", want: "exit2", stderr: []string{"more than one JSON value"}},
		{name: "a session id with an escape sequence", fixture: "malformed_session_control.json", want: "exit2", stderr: []string{"session_id"}},
		{name: "a command with a NUL byte", fixture: "malformed_nul_command.json", want: "exit2", stderr: []string{"NUL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t, hookSettings)
			code, stdout, stderr := e.run(e.fixture(t, tt.fixture), append([]string{"hook", "claude-code"}, tt.flags...)...)
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			switch tt.want {
			case "exit2":
				if code != 2 || stdout != "" {
					t.Fatalf("exit %d, stdout %q; want exit 2 and no answer (stderr %s)", code, stdout, stderr)
				}
				return
			case "":
				if code != 0 || stdout != "" {
					t.Fatalf("exit %d, stdout %q; want exit 0 and no opinion (stderr %s)", code, stdout, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			got := decodeAnswer(t, stdout)
			h := got.HookSpecificOutput
			if h.HookEventName != "PreToolUse" {
				t.Errorf("hookEventName %q", h.HookEventName)
			}
			if h.PermissionDecision != tt.want {
				t.Errorf("permissionDecision %q, want %q (reason %q)", h.PermissionDecision, tt.want, h.PermissionDecisionReason)
			}
			if !strings.HasPrefix(h.PermissionDecisionReason, "guard: ") {
				t.Errorf("permissionDecisionReason %q does not say it is guard's", h.PermissionDecisionReason)
			}
			for _, s := range tt.reason {
				if !strings.Contains(h.PermissionDecisionReason, s) {
					t.Errorf("permissionDecisionReason lacks %q: %q", s, h.PermissionDecisionReason)
				}
			}
			if h.UpdatedInput != nil {
				t.Errorf("updatedInput %s without --sandbox", h.UpdatedInput)
			}
		})
	}
}

func decodeAnswer(t *testing.T, stdout string) hookAnswer {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("want one line of JSON, got %q", stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var got hookAnswer
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output %q: %v", stdout, err)
	}
	return got
}

func TestHookSandboxRewritesBash(t *testing.T) {
	tests := []struct {
		name, fixture, want string
		rewrite             bool
	}{
		{"an asked command is rewritten", "bash_git_push.json", "ask", true},
		{"an allowed command is rewritten", "bash_git_status.json", "allow", true},
		{"a denied command is not", "bash_rm_rf.json", "deny", false},
		{"a Read is never rewritten", "read_workspace.json", "allow", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t, hookSettings)
			input := e.fixture(t, tt.fixture)
			code, stdout, stderr := e.run(input, "hook", "claude-code", "--sandbox")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			h := decodeAnswer(t, stdout).HookSpecificOutput
			if h.PermissionDecision != tt.want {
				t.Fatalf("decision %q, want %q: %s", h.PermissionDecision, tt.want, h.PermissionDecisionReason)
			}
			if !tt.rewrite {
				if h.UpdatedInput != nil {
					t.Fatalf("updatedInput %s, want none", h.UpdatedInput)
				}
				return
			}
			in, err := claudecode.ParseInput(input)
			if err != nil {
				t.Fatal(err)
			}
			var orig, upd map[string]any
			json.Unmarshal(mustRaw(t, in.ToolInput), &orig)
			if err := json.Unmarshal(h.UpdatedInput, &upd); err != nil {
				t.Fatal(err)
			}
			cmd, _ := orig["command"].(string)
			want := claudecode.SandboxCommand("guard", in.SessionID, cmd)
			if upd["command"] != want {
				t.Errorf("command %q, want %q", upd["command"], want)
			}
			for k, v := range orig {
				if k != "command" && !jsonEqual(upd[k], v) {
					t.Errorf("updatedInput.%s = %v, want %v kept", k, upd[k], v)
				}
			}
			if len(upd) != len(orig) {
				t.Errorf("updatedInput has %d fields, the input %d", len(upd), len(orig))
			}
		})
	}
}

func mustRaw(t *testing.T, m map[string]json.RawMessage) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestHookBlocksWhatItCannotJudge(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		args     []string
		stderr   string
	}{
		{"settings that do not parse", "[permissions\n", []string{"hook", "claude-code"}, "invalid TOML"},
		{"an unknown flag in the hook's command", hookSettings, []string{"hook", "claude-code", "--sandbx"}, "unknown flag"},
		{"an unknown agent", hookSettings, []string{"hook", "cursor"}, "unknown agent"},
		{"a bad --unknown", hookSettings, []string{"hook", "claude-code", "--unknown", "allow"}, "--unknown"},
		{"no agent", hookSettings, []string{"hook"}, "Usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t, tt.settings)
			code, stdout, stderr := e.run(e.fixture(t, "bash_git_status.json"), tt.args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

func TestHookGuardedTurnsPanicsAndStatusesIntoTwo(t *testing.T) {
	var errb bytes.Buffer
	a := &app{stderr: &errb}
	if code := a.hookGuarded(func() int { panic("boom") }); code != 2 {
		t.Errorf("a panic: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "boom") || !strings.Contains(errb.String(), "blocked") {
		t.Errorf("stderr %q does not say why", errb.String())
	}
	for _, c := range []int{1, 64, 77, 78, 130} {
		if code := a.hookGuarded(func() int { return c }); code != 2 {
			t.Errorf("status %d became %d, want 2", c, code)
		}
	}
	if code := a.hookGuarded(func() int { return 0 }); code != 0 {
		t.Errorf("status 0 became %d", code)
	}
}

func TestHookAuditsWithTheSession(t *testing.T) {
	e := newAgentEnv(t, hookSettings)
	if code, _, stderr := e.run(e.fixture(t, "read_ssh_key.json"), "hook", "claude-code"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".local", "state", "guard", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil {
		t.Fatalf("audit log %q: %v", b, err)
	}
	for k, want := range map[string]string{
		"session":   "8d0f6a4e-3b7c-4f1e-9a55-2c1d7e6b9f10",
		"tool":      "claude-code:Read",
		"decision":  "deny",
		"reason":    "rule-deny",
		"workspace": e.ws,
		"rule":      "read(~/.ssh)",
	} {
		if rec[k] != want {
			t.Errorf("audit %s = %v, want %q", k, rec[k], want)
		}
	}
}

func TestHookBypassNeedsTheSandbox(t *testing.T) {
	e := newAgentEnv(t, "[guard]\npermission_mode = \"bypass\"\n")
	code, stdout, stderr := e.run(e.fixture(t, "bypass_mode.json"), "hook", "claude-code")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if d := decodeAnswer(t, stdout).HookSpecificOutput.PermissionDecision; d != "ask" {
		t.Errorf("guard's bypass allowed a Bash call that runs outside its sandbox: %s", d)
	}
	if !strings.Contains(stderr, "bypass needs the sandbox") {
		t.Errorf("stderr does not say why bypass fell back:\n%s", stderr)
	}
}

func TestHookCodexRefusesWhatWouldAsk(t *testing.T) {
	e := newAgentEnv(t, hookSettings)
	input := bytes.Replace(e.fixture(t, "bash_git_push.json"), []byte(`"cwd": "`+e.ws+`",`), nil, 1)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(e.ws); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e.run(input, "hook", "codex")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	h := decodeAnswer(t, stdout).HookSpecificOutput
	if h.PermissionDecision != "deny" || !strings.Contains(h.PermissionDecisionReason, "cannot ask") {
		t.Errorf("decision %q %q; want deny saying Codex cannot ask", h.PermissionDecision, h.PermissionDecisionReason)
	}
}

// TestHookWaysAround tries to get around the rules through Claude Code's
// tools, and keeps each attempt.
func TestHookWaysAround(t *testing.T) {
	e := newAgentEnv(t, hookSettings)
	if err := os.Symlink(filepath.Join(e.home, ".ssh"), filepath.Join(e.ws, "notes")); err != nil {
		t.Fatal(err)
	}
	call := func(tool, toolInput string) []byte {
		return []byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"` + e.ws + `","permission_mode":"default",` +
			`"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + toolInput + `}`)
	}
	tests := []struct {
		name, tool, input, want string
	}{
		{"Read through a symlink into ~/.ssh", "Read", `{"file_path":"` + e.ws + `/notes/id_rsa"}`, "deny"},
		{"Read by a relative path", "Read", `{"file_path":"../home/.ssh/id_rsa"}`, "deny"},
		{"Read through /proc/self/root", "Read", `{"file_path":"/proc/self/root` + e.home + `/.ssh/id_rsa"}`, "deny"},
		{"Grep of the symlinked directory", "Grep", `{"pattern":"KEY","path":"` + e.ws + `/notes"}`, "deny"},
		{"Grep of the home directory, which holds ~/.ssh", "Grep", `{"pattern":"KEY","path":"` + e.home + `"}`, "deny"},
		{"Glob with an absolute pattern", "Glob", `{"pattern":"` + e.home + `/.ssh/*"}`, "deny"},
		{"Bash reading the key", "Bash", `{"command":"cat notes/id_rsa"}`, "deny"},
		{"Bash reading the key in a substitution", "Bash", `{"command":"echo $(cat ~/.ssh/id_rsa)"}`, "deny"},
		{"Bash reading .env", "Bash", `{"command":"grep KEY .env"}`, "deny"},
		{"Bash denied command behind a newline", "Bash", `{"command":"true\nrm -rf /"}`, "deny"},
		{"a denied host in capitals with a trailing dot", "WebFetch", `{"url":"https://EVIL.example./x","prompt":"p"}`, "deny"},
		{"an Edit of .env", "Edit", `{"file_path":"` + e.ws + `/.env","old_string":"a","new_string":"b"}`, "ask"},
		{"a Write into .git/hooks", "Write", `{"file_path":"` + e.ws + `/.git/hooks/post-checkout","content":"#!/bin/sh\n"}`, "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := e.run(call(tt.tool, tt.input), "hook", "claude-code")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if h := decodeAnswer(t, stdout).HookSpecificOutput; h.PermissionDecision != tt.want {
				t.Errorf("%s, want %s: %s", h.PermissionDecision, tt.want, h.PermissionDecisionReason)
			}
		})
	}
}
