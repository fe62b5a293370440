package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/config"
)

// input builds a hook call for tool with the given tool_input.
func input(tool, toolInput string) []byte {
	return []byte(`{"session_id":"s-1","transcript_path":"/home/u/.claude/projects/p/s-1.jsonl","cwd":"/home/u/proj",` +
		`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + toolInput + `}`)
}

func TestParseInputRefusesWhatItWouldGuess(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", ``, "empty"},
		{"not an object", `["PreToolUse"]`, "not a JSON object"},
		{"two values", string(input("Bash", `{"command":"ls"}`)) + `{}`, "more than one"},
		{"truncated", `{"hook_event_name":"PreToolUse"`, "unexpected EOF"},
		{"invalid UTF-8", "{\"tool_name\":\"\xff\"}", "not UTF-8"},
		{"another event", strings.Replace(string(input("Bash", `{}`)), "PreToolUse", "PostToolUse", 1), "PreToolUse only"},
		{"no tool name", `{"hook_event_name":"PreToolUse","cwd":"/","tool_input":{}}`, `"tool_name"`},
		{"a tool name that is a number", `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":7,"tool_input":{}}`, "want a string"},
		{"a tool name with an escape", `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash\u001b","tool_input":{}}`, "control character"},
		{"a relative cwd", `{"hook_event_name":"PreToolUse","cwd":"proj","tool_name":"Bash","tool_input":{}}`, "absolute"},
		{"no tool_input", `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash"}`, `"tool_input"`},
		{"tool_input a string", `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":"ls"}`, "not a JSON object"},
		{"event name in another case", `{"Hook_Event_Name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{}}`, `"hook_event_name"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInput([]byte(tt.data))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err %v, want an InputError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %q lacks %q", err, tt.want)
			}
		})
	}
}

func TestParseInputDefaultCwd(t *testing.T) {
	in, err := ParseInputDefault([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`), "/srv/x")
	if err != nil || in.Cwd != "/srv/x" {
		t.Fatalf("cwd %q, err %v", in.Cwd, err)
	}
}

func TestCallMapsEveryTool(t *testing.T) {
	tests := []struct {
		name, tool, in string
		want           Call
		known          bool
	}{
		{"Bash is a shell command", "Bash", `{"command":"git status","description":"d"}`, Call{Kind: Shell, Command: "git status"}, true},
		{"Read reads its file_path", "Read", `{"file_path":"/home/u/proj/a.go","offset":3}`, Call{Kind: Read, Path: "/home/u/proj/a.go"}, true},
		{"Read by exact key, not a case-folded one", "Read", `{"File_Path":"/ok","file_path":"/home/u/.ssh/id_rsa"}`, Call{Kind: Read, Path: "/home/u/.ssh/id_rsa"}, true},
		{"Grep searches its path", "Grep", `{"pattern":"x","path":"/home/u/proj/src"}`, Call{Kind: Read, Path: "/home/u/proj/src", Search: true}, true},
		{"Grep without a path searches cwd", "Grep", `{"pattern":"x"}`, Call{Kind: Read, Path: "/home/u/proj", Search: true}, true},
		{"Glob reads where its pattern looks", "Glob", `{"pattern":"src/**/*.go"}`, Call{Kind: Read, Path: "/home/u/proj/src"}, true},
		{"Glob climbing out of its path", "Glob", `{"pattern":"../../.ssh/*","path":"/home/u/proj"}`, Call{Kind: Read, Path: "/home/u/proj/../../.ssh"}, true},
		{"Glob with an absolute pattern", "Glob", `{"pattern":"/etc/ssh/*_key","path":"/home/u/proj"}`, Call{Kind: Read, Path: "/etc/ssh"}, true},
		{"Glob of one named file", "Glob", `{"pattern":"/home/u/.aws/credentials"}`, Call{Kind: Read, Path: "/home/u/.aws/credentials"}, true},
		{"LS reads its path", "LS", `{"path":"/home/u"}`, Call{Kind: Read, Path: "/home/u"}, true},
		{"NotebookRead reads", "NotebookRead", `{"notebook_path":"/home/u/proj/n.ipynb"}`, Call{Kind: Read, Path: "/home/u/proj/n.ipynb"}, true},
		{"WebFetch is web", "WebFetch", `{"url":"https://docs.rs/x","prompt":"p"}`, Call{Kind: Web, Target: "https://docs.rs/x"}, true},
		{"WebSearch is web to the provider", "WebSearch", `{"query":"q"}`, Call{Kind: Web, Target: WebSearchHost}, true},
		{"an MCP tool", "mcp__github__get_issue", `{"n":1}`, Call{Kind: MCP, Target: "github:get_issue"}, true},
		{"an MCP tool whose name holds __", "mcp__my_srv__do__it", `{}`, Call{Kind: MCP, Target: "my_srv:do__it"}, true},
		{"Task: no opinion", "Task", `{"prompt":"p"}`, Call{Why: "Task starts a subagent, whose own tool calls come through this hook"}, true},
		{"an unknown tool", "Frobnicate", `{}`, Call{Why: "the tool Frobnicate is unknown to guard"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput(input(tt.tool, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, known, err := in.Call()
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Tool = tt.tool
			got.Diff = ""
			if got != tt.want || known != tt.known {
				t.Errorf("got %+v (known %v), want %+v (known %v)", got, known, tt.want, tt.known)
			}
		})
	}
}

func TestCallWritesCarryADiff(t *testing.T) {
	tests := []struct {
		tool, in, path string
		diff           []string
	}{
		{"Edit", `{"file_path":"/p/a.go","old_string":"a\nb","new_string":"c"}`, "/p/a.go", []string{"-a\n-b\n+c\n"}},
		{"MultiEdit", `{"file_path":"/p/a.go","edits":[{"old_string":"x","new_string":"y"},{"old_string":"1","new_string":"2"}]}`, "/p/a.go", []string{"-x\n+y\n-1\n+2\n"}},
		{"Write", `{"file_path":"/p/new.go","content":"package p\n"}`, "/p/new.go", []string{"+package p\n"}},
		{"NotebookEdit", `{"notebook_path":"/p/n.ipynb","new_source":"print(1)"}`, "/p/n.ipynb", []string{"+print(1)\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			in, err := ParseInput(input(tt.tool, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			c, _, err := in.Call()
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind != Write || c.Path != tt.path {
				t.Errorf("kind %q path %q", c.Kind, c.Path)
			}
			if !strings.HasPrefix(c.Diff, "--- "+tt.path+"\n+++ "+tt.path+"\n") {
				t.Errorf("diff header: %q", c.Diff)
			}
			for _, s := range tt.diff {
				if !strings.Contains(c.Diff, s) {
					t.Errorf("diff %q lacks %q", c.Diff, s)
				}
			}
		})
	}
}

func TestCallRefusesBadArguments(t *testing.T) {
	tests := []struct{ name, tool, in, want string }{
		{"a missing command", "Bash", `{"description":"x"}`, "tool_input.command is missing"},
		{"an empty file_path", "Read", `{"file_path":""}`, "missing or empty"},
		{"a path that is a number", "Write", `{"file_path":7}`, "want a string"},
		{"a NUL in a path", "Read", `{"file_path":"/ok\u0000/../home/u/.ssh/id_rsa"}`, "NUL"},
		{"a NUL in a command", "Bash", `{"command":"true\u0000rm -rf /"}`, "NUL"},
		{"MultiEdit edits not a list", "MultiEdit", `{"file_path":"/p","edits":"x"}`, "edits"},
		{"an MCP name without a tool", "mcp__github", `{}`, "mcp__SERVER__TOOL"},
		{"an MCP name with a slash", "mcp__a/b__c", `{}`, "slash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput(input(tt.tool, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = in.Call()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestURLHost(t *testing.T) {
	tests := []struct{ url, host, err string }{
		{"https://docs.rs/serde", "docs.rs", ""},
		{"http://Example.COM:8080/x?y#z", "example.com", ""},
		{"https://example.com./", "example.com", ""},
		{"https://[::1]:8080/", "[::1]", ""},
		{"https://docs.rs@evil.example/", "", "user-info"},
		{"https://evil.example\\@docs.rs/", "", "backslash"},
		{"https://evil.example\\.docs.rs/", "", "backslash"},
		{"https://exa mple.com/", "", "blank"},
		{"https://bücher.example/", "", "xn--"},
		{"ftp://example.com/", "", "not an http"},
		{"example.com/x", "", "not an http"},
		{"https:///x", "", "no host"},
		{"https://example.com:80a/", "", "bad port"},
		{"https://example.com\r\n.evil/", "", "control"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			h, err := URLHost(tt.url)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("host %q err %v, want an error saying %q", h, err, tt.err)
				}
				return
			}
			if err != nil || h != tt.host {
				t.Errorf("host %q err %v, want %q", h, err, tt.host)
			}
		})
	}
}

func TestEffectiveModeOnlyTightens(t *testing.T) {
	tests := []struct {
		guard  config.Mode
		claude string
		want   config.Mode
	}{
		{config.ModeDefault, "default", config.ModeDefault},
		{config.ModeDefault, "acceptEdits", config.ModeDefault},
		{config.ModeDefault, "bypassPermissions", config.ModeDefault},
		{config.ModeDefault, "auto", config.ModeDefault},
		{config.ModeDefault, "plan", config.ModePlan},
		{config.ModeDefault, "dontAsk", config.ModeDontAsk},
		{config.ModeBypass, "plan", config.ModePlan},
		{config.ModeAcceptEdits, "dontAsk", config.ModeDontAsk},
		{config.ModeDontAsk, "plan", config.ModeDontAsk},
		{config.ModePlan, "dontAsk", config.ModeDontAsk},
		{config.ModeAuto, "weird-new-mode", config.ModeAuto},
	}
	for _, tt := range tests {
		if got, _ := EffectiveMode(tt.guard, tt.claude); got != tt.want {
			t.Errorf("guard %s, Claude Code %s: %s, want %s", tt.guard, tt.claude, got, tt.want)
		}
	}
}

func TestOutputShape(t *testing.T) {
	b, err := NewOutput(Deny, "guard: no").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guard: no"}}` + "\n"
	if string(b) != want {
		t.Errorf("got %s want %s", b, want)
	}
}

// hostileCommands are commands whose quoting for guard exec could go wrong.
var hostileCommands = []string{
	"git status",
	"echo 'single' \"double\" `back` $(whoami) ${HOME} $HOME",
	"a'b",
	"'",
	"''",
	`'\''`,
	"echo '; rm -rf / #",
	"line one\nline two\n",
	"\n",
	"tab\there",
	"carriage\rreturn",
	"-c",
	"--session evil",
	"$(rm -rf /)",
	"`rm -rf /`",
	"!!",
	"echo \\' \\\" \\\\",
	"ünïcödé → ✓",
	"\x1b[2J",
	"",
	"a\"; exec guard allow-all; \"",
	"x' ; touch /tmp/pwned ; echo '",
}

// TestSandboxCommandThroughBash runs the rewritten command line through a
// real bash with a stub guard that prints its arguments, and checks guard
// exec would receive exactly the original command.
func TestSandboxCommandThroughBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here:", err)
	}
	dir := t.TempDir()
	stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"
	if err := os.WriteFile(filepath.Join(dir, "guard"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"8d0f6a4e-3b7c-4f1e-9a55-2c1d7e6b9f10", "it's a session", ""} {
		for _, cmd := range hostileCommands {
			line := SandboxCommand("guard", session, cmd)
			c := exec.Command(bash, "-c", line)
			c.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + dir}
			c.Dir = dir
			out, err := c.Output()
			if err != nil {
				t.Errorf("bash -c %q: %v", line, err)
				continue
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			want := []string{"exec"}
			if session != "" {
				want = append(want, "--session", session)
			}
			want = append(want, "-c", cmd)
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("command %q: guard would get %q, want %q (line %q)", cmd, got, want, line)
			}
		}
	}
	if _, err := os.Stat("/tmp/pwned"); err == nil {
		t.Errorf("a quoted command ran: /tmp/pwned exists")
	}
}

func TestWithCommandKeepsTheOtherArguments(t *testing.T) {
	in, err := ParseInput(input("Bash", `{"command":"ls","description":"list","timeout":120000,"run_in_background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	upd, err := in.WithCommand("guard exec -c 'ls'")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(upd)
	want := `{"command":"guard exec -c 'ls'","description":"list","run_in_background":true,"timeout":120000}`
	if !bytes.Equal(b, []byte(want)) {
		t.Errorf("got %s want %s", b, want)
	}
	if string(in.ToolInput["command"]) != `"ls"` {
		t.Errorf("the input itself changed: %s", in.ToolInput["command"])
	}
}
