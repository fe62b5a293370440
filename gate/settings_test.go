package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// TestFromSettingsFile runs the gate as guard builds it from a real
// settings file (loaded by config): the rules with their file and line, the
// mode, [tools] auto_approve_commands, the reviewer and a hook, with real
// stores and the audit log in a temp home.
func TestFromSettingsFile(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{ws, filepath.Join(home, ".config", "guard")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	reviewer := script(t, root, "reviewer", `grep -q '"detail":"fetch.example.org"' && echo '{"decision":"allow","reason":"docs site"}' || echo '{"decision":"deny","reason":"unknown host"}'`)
	hook := script(t, root, "hook", `grep -q 'frozen' && echo '{"decision":"deny","reason":"repo is frozen"}'; exit 0`)
	settings := fmt.Sprintf(`[guard]
permission_mode = "auto"

[permissions]
allow = ["web(*.example.com)", "mcp(github:get_*)"]
ask   = ["web(api.example.com)"]
deny  = ["web(*.evil.example)", "mcp(prod:*)"]

[permissions.auto]
command = [%q]
timeout = "5s"

[tools]
auto_approve_commands = ["make *"]

[[hooks.pre_tool_use]]
command = [%q]
`, reviewer, hook)
	globalFile := filepath.Join(home, ".config", "guard", "settings.toml")
	if err := os.WriteFile(globalFile, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := config.Load(config.LoadOptions{Home: home, Workspace: ws, SystemManagedFile: filepath.Join(root, "no-managed.toml")})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		t.Logf("warning: %s", w)
	}
	if s.Mode != config.ModeAuto || s.Reviewer == nil || len(s.Hooks) != 1 || len(s.AutoApproveCommands) != 1 {
		t.Fatalf("settings not loaded as written: mode %s reviewer %v hooks %d auto %d", s.Mode, s.Reviewer, len(s.Hooks), len(s.AutoApproveCommands))
	}
	set := rule.NewSet(s.Rules, s.RuleEnv())
	sessions, _ := NewSessionStore(s.Paths.SessionsDir, "agent-1")
	ap := &scripted{}
	e := &Engine{
		Mode:        s.Mode,
		AutoApprove: rule.NewSet(s.AutoApproveCommands, s.RuleEnv()),
		Approver:    ap,
		Reviewer:    &CommandReviewer{Config: *s.Reviewer},
		Hooks:       &CommandHooks{Hooks: s.Hooks},
		Saved:       &ApprovalFile{Path: s.Paths.ApprovalsFile},
		Session:     sessions,
		Audit:       &audit.Log{Path: s.Paths.AuditFile},
	}
	web := func(host string) *Request {
		k, l := WebKey(host)
		return &Request{Tool: "gate", Kind: Network, Detail: host, Targets: []string{host}, Key: k, KeyLabel: l,
			Workspace: ws, Session: "agent-1", Rules: MatchTargets(set, rule.Web, []string{host})}
	}
	mcp := func(name string) *Request {
		server, tool, _ := strings.Cut(name, ":")
		k, l := MCPKey(server, tool)
		return &Request{Tool: "gate", Kind: MCPTool, Detail: name, Targets: []string{name}, Key: k, KeyLabel: l,
			Workspace: ws, Rules: MatchTargets(set, rule.MCP, []string{name})}
	}
	command := func(c string) *Request {
		k, l := CommandKey(ws, c)
		return &Request{Tool: "exec", Kind: RunCommand, Detail: c, Targets: []string{c}, Key: k, KeyLabel: l, Workspace: ws}
	}
	tests := []struct {
		name    string
		req     *Request
		answers []Answer
		want    Reason
		where   bool // the decision names the settings file and line
	}{
		{name: "a deny rule, by file and line", req: web("x.evil.example"), want: ReasonRuleDeny, where: true},
		{name: "an mcp deny rule", req: mcp("prod:drop_table"), want: ReasonRuleDeny, where: true},
		{name: "an ask rule goes to the user, not the reviewer", req: web("api.example.com"), answers: []Answer{{Choice: Once}}, want: ReasonUserOnce},
		{name: "an allow rule", req: web("www.example.com"), want: ReasonRuleAllow, where: true},
		{name: "an mcp allow rule", req: mcp("github:get_issue"), want: ReasonRuleAllow},
		{name: "auto-approved command", req: command("make all"), want: ReasonAutoPolicy},
		{name: "the reviewer allows", req: web("fetch.example.org"), want: ReasonAutoAllow},
		{name: "the reviewer refuses", req: web("other.org"), want: ReasonAutoDeny},
		{name: "the hook refuses over the auto-approval", req: command("make frozen"), want: ReasonHookDeny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap.answers = tc.answers
			d, err := e.Decide(context.Background(), tc.req)
			if err != nil || d.Reason != tc.want {
				t.Fatalf("decision %s/%s (%s), %v; want %s", d.Outcome, d.Reason, d.Message, err, tc.want)
			}
			if tc.where && (d.Rule == nil || d.Rule.File != globalFile || d.Rule.Line == 0) {
				t.Errorf("rule %+v does not name %s and its line", d.Rule, globalFile)
			}
		})
	}
	// Every decision is in the audit log, in order, with its reason.
	var got []string
	(&audit.Log{Path: s.Paths.AuditFile}).Read(func(e audit.Entry) error {
		got = append(got, e.Record.Reason)
		return nil
	})
	var want []string
	for _, tc := range tests {
		want = append(want, string(tc.want))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("audit reasons\n %q\nwant\n %q", got, want)
	}
}
