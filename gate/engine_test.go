package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// scripted is an approver that gives prepared answers and records what it
// was shown.
type scripted struct {
	answers []Answer
	err     error
	asked   []Prompt
	wait    time.Duration
}

func (s *scripted) Approve(ctx context.Context, p Prompt) (Answer, error) {
	s.asked = append(s.asked, p)
	time.Sleep(s.wait)
	if s.err != nil {
		return Answer{}, s.err
	}
	if len(s.answers) == 0 {
		return Answer{}, errors.New("scripted approver: no answer left")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func mustRule(t testing.TB, a rule.Action, text string, src rule.Source) *rule.Rule {
	t.Helper()
	r, err := rule.New(a, text)
	if err != nil {
		t.Fatal(err)
	}
	r.Source = src
	if src == rule.SourceGlobal {
		r.File, r.Line = "/home/u/.config/guard/settings.toml", 7
	}
	return &r
}

// script writes an executable shell script into dir.
func script(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// world is one test's stores, all real files in a temp dir.
type world struct {
	dir      string
	ws       string
	saved    *ApprovalFile
	sessions string
	log      *audit.Log
}

func newWorld(t testing.TB) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{
		dir:      dir,
		ws:       filepath.Join(dir, "ws"),
		saved:    &ApprovalFile{Path: filepath.Join(dir, "config", "guard", "approvals.json")},
		sessions: filepath.Join(dir, "state", "guard", "sessions"),
		log:      &audit.Log{Path: filepath.Join(dir, "state", "guard", "audit.jsonl")},
	}
	if err := os.MkdirAll(w.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) session(t testing.TB, id string) SessionStore {
	t.Helper()
	s, err := NewSessionStore(w.sessions, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// records returns the reasons of the audit log, in order.
func (w *world) records(t testing.TB) []audit.Record {
	t.Helper()
	var out []audit.Record
	err := w.log.Read(func(e audit.Entry) error {
		if e.Err != nil {
			t.Errorf("audit log: %v", e.Err)
		}
		out = append(out, e.Record)
		return nil
	})
	if err != nil && !errors.Is(err, audit.ErrNoLog) {
		t.Fatal(err)
	}
	return out
}

func cmdRequest(w *world, command string, segments ...string) *Request {
	if segments == nil {
		segments = []string{command}
	}
	key, label := CommandKey(w.ws, command)
	return &Request{Tool: "exec", Kind: RunCommand, Detail: command, Key: key, KeyLabel: label,
		Targets: segments, Workspace: w.ws, Session: "s1"}
}

func writeRequest(w *world, path string, inRoots, sensitive bool) *Request {
	key, label := FileKey(WriteFile, w.ws, inRoots, sensitive)
	return &Request{Tool: "gate", Kind: WriteFile, Detail: path, Key: key, KeyLabel: label,
		Targets: []string{path}, Workspace: w.ws, InWritableRoots: inRoots, Sensitive: sensitive,
		Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n"}
}

// TestEvaluationOrder is one case per reason of the contract's list and per
// row of the evaluation order, each with real stores in a temp dir, a
// scripted approver and real reviewer and hook scripts. Every case also
// checks that the audit log holds its decisions with their reasons.
func TestEvaluationOrder(t *testing.T) {
	denyRM := func(t testing.TB) *rule.Rule { return mustRule(t, rule.Deny, "shell(rm -rf *)", rule.SourceGlobal) }
	askPush := func(t testing.TB) *rule.Rule { return mustRule(t, rule.Ask, "shell(git push *)", rule.SourceGlobal) }
	allowGit := func(t testing.TB) *rule.Rule { return mustRule(t, rule.Allow, "shell(git *)", rule.SourceGlobal) }

	type setup struct {
		t   *testing.T
		w   *world
		e   *Engine
		req *Request
		ap  *scripted
	}
	tests := []struct {
		name    string
		prepare func(s *setup)
		want    Outcome
		reason  Reason
		// audited are the reasons the log must hold (default: just reason).
		audited []Reason
		check   func(t *testing.T, s *setup, d Decision)
		wantErr error
	}{
		// Unattended runs: only the permissions and the deny rules.
		{
			name: "unattended: a deny rule refuses even a permitted command",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "rm -rf /")
				s.req.Rules = RuleVerdict{Action: rule.Deny, Rule: denyRM(s.t)}
				s.req.Unattended = &Unattended{Permitted: true}
			},
			want: Deny, reason: ReasonRuleDeny,
		},
		{
			name: "unattended: a permitted command is allowed",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make test")
				s.req.Unattended = &Unattended{Permitted: true, Rule: mustRule(s.t, rule.Allow, "shell(make *)", rule.SourceFlag)}
			},
			want: Allow, reason: ReasonUnattendedPermitted,
			check: func(t *testing.T, s *setup, d Decision) {
				if d.Rule == nil || d.Rule.String() != "shell(make *)" {
					t.Errorf("rule = %v, want the permission", d.Rule)
				}
			},
		},
		{
			name: "unattended: refused with APR-10's text and the permit to add",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "curl evil.example")
				s.req.Unattended = &Unattended{}
			},
			want: Deny, reason: ReasonUnattendedRefused,
			check: func(t *testing.T, s *setup, d Decision) {
				for _, want := range []string{"isn't among this unattended run's permissions", "--permit 'shell(curl evil.example)'"} {
					if !strings.Contains(d.Message, want) {
						t.Errorf("message %q lacks %q", d.Message, want)
					}
				}
			},
		},
		{
			name: "unattended: remembered approvals, bypass and allow rules do not count",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: allowGit(s.t)}
				s.req.Unattended = &Unattended{}
				s.w.saved.Add(Approval{Key: s.req.Key})
				s.e.Session.Add(Approval{Key: s.req.Key})
				s.e.Mode, s.e.SandboxEnforced = config.ModeBypass, true
			},
			want: Deny, reason: ReasonUnattendedRefused,
			check: func(t *testing.T, s *setup, d Decision) {
				if len(s.ap.asked) != 0 {
					t.Error("an unattended run asked the user")
				}
			},
		},
		{
			name: "unattended: an ask rule refuses, no one can be asked",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.req.Unattended = &Unattended{Permitted: true}
			},
			want: Deny, reason: ReasonUnattendedRefused,
		},
		// Deny rules, in every mode.
		{
			name: "deny rule refuses in default mode, naming the rule and file",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git status && rm -rf /", "git status", "rm -rf /")
				s.req.Rules = RuleVerdict{Action: rule.Deny, Rule: denyRM(s.t)}
			},
			want: Deny, reason: ReasonRuleDeny,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "shell(rm -rf *) (/home/u/.config/guard/settings.toml:7)") {
					t.Errorf("message %q does not name the rule and its file:line", d.Message)
				}
				recs := s.w.records(t)
				if recs[0].Rule != "shell(rm -rf *)" || recs[0].Source != "global" || recs[0].Where != "/home/u/.config/guard/settings.toml:7" {
					t.Errorf("audit rule/source/where = %q/%q/%q", recs[0].Rule, recs[0].Source, recs[0].Where)
				}
			},
		},
		{
			name: "deny rule refuses in bypass with the sandbox, and over a saved approval",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "rm -rf /")
				s.req.Rules = RuleVerdict{Action: rule.Deny, Rule: denyRM(s.t)}
				s.e.Mode, s.e.SandboxEnforced = config.ModeBypass, true
				s.w.saved.Add(Approval{Key: s.req.Key})
			},
			want: Deny, reason: ReasonRuleDeny,
		},
		// Ask rules: straight to the user.
		{
			name: "ask rule asks the user even in bypass, offering only y and n",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.e.Mode, s.e.SandboxEnforced = config.ModeBypass, true
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
			check: func(t *testing.T, s *setup, d Decision) {
				if len(s.ap.asked) != 1 || !slices.Equal(s.ap.asked[0].Choices, []Choice{Once, No}) {
					t.Errorf("prompts %+v, want one offering y and n", s.ap.asked)
				}
			},
		},
		{
			name: "ask rule skips saved and session approvals and allow rules",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.w.saved.Add(Approval{Key: s.req.Key})
				s.e.Session.Add(Approval{Key: s.req.Key})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "ask rule with no one to ask: refused, naming the ask rule",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.e.Approver = nil
			},
			want: Deny, reason: ReasonNoApprover,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "ask rule (shell(git push *)") {
					t.Errorf("message %q does not name the ask rule", d.Message)
				}
			},
		},
		{
			name: "ask rule in dont-ask mode refuses",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.e.Mode = config.ModeDontAsk
			},
			want: Deny, reason: ReasonModeDontAsk,
		},
		{
			name: "ask rule in plan mode on a command that changes things: planning refuses",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.e.Mode = config.ModePlan
			},
			want: Deny, reason: ReasonModePlan,
		},
		{
			name: "ask rule in auto mode asks the user, not the reviewer",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git push origin main")
				s.req.Rules = RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: askPush(s.t)}
				s.e.Mode = config.ModeAuto
				s.e.Reviewer = &CommandReviewer{Config: config.Reviewer{Command: []string{script(s.t, s.w.dir, "rev", `echo '{"decision":"allow"}'`)}}}
				s.ap.answers = []Answer{{Choice: No, Reason: "not today"}}
			},
			want: Deny, reason: ReasonUserDeny,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "the user declined this: not today") || d.Comment != "not today" {
					t.Errorf("message %q / comment %q do not carry the user's reason", d.Message, d.Comment)
				}
			},
		},
		// Allow rules.
		{
			name: "allow rule allows",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git status")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: allowGit(s.t)}
			},
			want: Allow, reason: ReasonRuleAllow,
		},
		{
			name: "allow rule allows in plan mode",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git status")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: allowGit(s.t)}
				s.e.Mode = config.ModePlan
			},
			want: Allow, reason: ReasonRuleAllow,
		},
		// Bypass.
		{
			name: "bypass allows under the enforced sandbox",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.e.Mode, s.e.SandboxEnforced = config.ModeBypass, true
			},
			want: Allow, reason: ReasonModeBypass,
		},
		{
			name: "bypass without the sandbox falls back to default, with a note",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.e.Mode, s.e.SandboxMissing = config.ModeBypass, "Landlock is not available"
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
			check: func(t *testing.T, s *setup, d Decision) {
				if d.Mode != config.ModeDefault || len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "Landlock is not available") {
					t.Errorf("mode %q notes %q: want default and the reason bypass is off", d.Mode, d.Notes)
				}
			},
		},
		// [tools] auto_approve_commands.
		{
			name: "auto-approved commands: every segment matches",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make a && make b", "make a", "make b")
				s.e.AutoApprove = rule.NewSet([]rule.Rule{*mustRule(s.t, rule.Allow, "shell(make *)", rule.SourceGlobal)}, rule.Env{})
			},
			want: Allow, reason: ReasonAutoPolicy,
		},
		{
			name: "auto-approved commands: one segment outside asks",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make a && curl x", "make a", "curl x")
				s.e.AutoApprove = rule.NewSet([]rule.Rule{*mustRule(s.t, rule.Allow, "shell(make *)", rule.SourceGlobal)}, rule.Env{})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "auto-approved commands: an unknown span is not approved",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git $SUB", "git $SUB")
				s.req.Texts = []rule.Text{{{Lit: "git "}, {Lit: "$SUB", Unknown: true}}}
				s.e.AutoApprove = rule.NewSet([]rule.Rule{*mustRule(s.t, rule.Allow, "shell(git status)", rule.SourceGlobal)}, rule.Env{})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "auto-approved commands apply to commands only",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, filepath.Join(s.w.ws, "make x"), true, false)
				s.e.AutoApprove = rule.NewSet([]rule.Rule{*mustRule(s.t, rule.Allow, "shell(*)", rule.SourceGlobal)}, rule.Env{})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		// Session and saved rules.
		{
			name: "session rule allows the same key",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Session.Add(Approval{Key: s.req.Key, Label: s.req.KeyLabel})
			},
			want: Allow, reason: ReasonSessionRule,
		},
		{
			name: "session rule of another session does not count",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.w.session(s.t, "other").Add(Approval{Key: s.req.Key})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "saved rule allows the same key",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.w.saved.Add(Approval{Key: s.req.Key, Label: s.req.KeyLabel})
			},
			want: Allow, reason: ReasonSavedRule,
		},
		{
			name: "saved rule for a command in another workspace does not count",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				k, _ := CommandKey("/elsewhere", "make deploy")
				s.w.saved.Add(Approval{Key: k})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "an approval saved for the workspace's edits does not cover a command",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				k, _ := WriteKey(s.w.ws)
				s.w.saved.Add(Approval{Key: k})
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		// accept-edits.
		{
			name: "accept-edits allows a write inside the writable roots",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, filepath.Join(s.w.ws, "main.go"), true, false)
				s.e.Mode = config.ModeAcceptEdits
			},
			want: Allow, reason: ReasonModeAcceptEdits,
		},
		{
			name: "accept-edits allows a delete inside the writable roots",
			prepare: func(s *setup) {
				p := filepath.Join(s.w.ws, "old.go")
				key, label := FileKey(DeleteFile, s.w.ws, true, false)
				s.req = &Request{Kind: DeleteFile, Detail: p, Targets: []string{p}, Key: key, KeyLabel: label, Workspace: s.w.ws, InWritableRoots: true}
				s.e.Mode = config.ModeAcceptEdits
			},
			want: Allow, reason: ReasonModeAcceptEdits,
		},
		{
			name: "accept-edits asks for a sensitive path",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, filepath.Join(s.w.ws, ".git/hooks/pre-commit"), true, true)
				s.e.Mode = config.ModeAcceptEdits
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
			check: func(t *testing.T, s *setup, d Decision) {
				if slices.Contains(s.ap.asked[0].Choices, Always) {
					t.Error("a sensitive write offered 'always'")
				}
			},
		},
		{
			name: "accept-edits asks for a write outside the writable roots",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, "/etc/hosts", false, false)
				s.e.Mode = config.ModeAcceptEdits
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "accept-edits asks for a command",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "sed -i s/a/b/ x")
				s.e.Mode = config.ModeAcceptEdits
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		// plan.
		{
			name: "plan refuses what is not read-only, saying planning is on",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModePlan
			},
			want: Deny, reason: ReasonModePlan,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "planning is on") {
					t.Errorf("message %q does not say planning is on", d.Message)
				}
			},
		},
		{
			name: "plan refuses a write",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, filepath.Join(s.w.ws, "main.go"), true, false)
				s.e.Mode = config.ModePlan
			},
			want: Deny, reason: ReasonModePlan,
		},
		{
			name: "plan asks the user about a read-only command no rule allows",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "cat ~/notes")
				s.req.ReadOnly = true
				s.e.Mode = config.ModePlan
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
		},
		// dont-ask.
		{
			name: "dont-ask refuses, naming the rule to add and the mode",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeDontAsk
			},
			want: Deny, reason: ReasonModeDontAsk,
			check: func(t *testing.T, s *setup, d Decision) {
				for _, want := range []string{"dont-ask", "guard rules add --allow 'shell(make deploy)'", "guard mode default"} {
					if !strings.Contains(d.Message, want) {
						t.Errorf("message %q lacks %q", d.Message, want)
					}
				}
				if len(s.ap.asked) != 0 {
					t.Error("dont-ask asked the user")
				}
			},
		},
		{
			name: "dont-ask still allows a saved approval",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeDontAsk
				s.w.saved.Add(Approval{Key: s.req.Key})
			},
			want: Allow, reason: ReasonSavedRule,
		},
		// auto: the reviewer.
		{
			name: "auto: the reviewer allows",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeAuto
				s.e.Reviewer = &CommandReviewer{Config: config.Reviewer{Command: []string{script(s.t, s.w.dir, "rev", `cat >/dev/null; echo '{"decision":"allow","reason":"builds only"}'`)}}}
			},
			want: Allow, reason: ReasonAutoAllow,
			check: func(t *testing.T, s *setup, d Decision) {
				if d.Comment != "builds only" || len(s.ap.asked) != 0 {
					t.Errorf("comment %q, %d prompts", d.Comment, len(s.ap.asked))
				}
			},
		},
		{
			name: "auto: the reviewer refuses, with its reason",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeAuto
				s.e.Reviewer = &CommandReviewer{Config: config.Reviewer{Command: []string{script(s.t, s.w.dir, "rev", `cat >/dev/null; echo '{"decision":"deny","reason":"deploys to prod"}'`)}}}
			},
			want: Deny, reason: ReasonAutoDeny,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "deploys to prod") {
					t.Errorf("message %q lacks the reviewer's reason", d.Message)
				}
			},
		},
		{
			name: "auto: a failing reviewer hands over to the user",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeAuto
				s.e.Reviewer = &CommandReviewer{Config: config.Reviewer{Command: []string{script(s.t, s.w.dir, "rev", `echo oops >&2; exit 3`)}}}
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce, audited: []Reason{ReasonAutoError, ReasonUserOnce},
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(s.ap.asked[0].Why, "exit status 3") || !strings.Contains(s.ap.asked[0].Why, "oops") {
					t.Errorf("prompt why %q does not say how the reviewer failed", s.ap.asked[0].Why)
				}
			},
		},
		{
			name: "auto: no reviewer configured hands over to the user",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeAuto
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny, audited: []Reason{ReasonAutoError, ReasonUserDeny},
		},
		{
			name: "auto: a failing reviewer and no one to ask: refused",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Mode = config.ModeAuto
				s.e.Reviewer = &CommandReviewer{Config: config.Reviewer{Command: []string{script(s.t, s.w.dir, "rev", `echo not a verdict`)}}}
				s.e.Approver = nil
			},
			want: Deny, reason: ReasonNoApprover, audited: []Reason{ReasonAutoError, ReasonNoApprover},
		},
		// The user's answers.
		{
			name: "user: y allows once and remembers nothing",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.answers = []Answer{{Choice: Once}}
				s.ap.wait = 20 * time.Millisecond
			},
			want: Allow, reason: ReasonUserOnce,
			check: func(t *testing.T, s *setup, d Decision) {
				if ok, _ := s.e.Session.Has(s.req.Key); ok {
					t.Error("y was remembered for the session")
				}
				if ok, _ := s.w.saved.Has(s.req.Key); ok {
					t.Error("y was saved")
				}
				if d.Waited < 20*time.Millisecond || s.w.records(t)[0].WaitedMS < 20 {
					t.Errorf("waited %v: the time waiting for the user is not recorded", d.Waited)
				}
				if !slices.Equal(s.ap.asked[0].Choices, []Choice{Once, Session, Always, No}) {
					t.Errorf("choices %q, want y s a n", s.ap.asked[0].Choices)
				}
			},
		},
		{
			name: "user: s remembers for the session only",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.answers = []Answer{{Choice: Session}}
			},
			want: Allow, reason: ReasonUserSession,
			check: func(t *testing.T, s *setup, d Decision) {
				if ok, _ := s.w.session(t, "s1").Has(s.req.Key); !ok {
					t.Error("s was not remembered in the session's file")
				}
				if ok, _ := s.w.saved.Has(s.req.Key); ok {
					t.Error("s was saved for always")
				}
				if !strings.Contains(s.ap.asked[0].SessionScope, "session s1") {
					t.Errorf("scope %q", s.ap.asked[0].SessionScope)
				}
			},
		},
		{
			name: "user: a saves the key in approvals.json and the session",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.answers = []Answer{{Choice: Always}}
			},
			want: Allow, reason: ReasonUserAlways,
			check: func(t *testing.T, s *setup, d Decision) {
				list, err := s.w.saved.List()
				if err != nil || len(list) != 1 || list[0].Key != s.req.Key || list[0].Label != "this exact command in this workspace" {
					t.Errorf("approvals.json = %+v, %v", list, err)
				}
				if ok, _ := s.e.Session.Has(s.req.Key); !ok {
					t.Error("a was not added to the session too")
				}
			},
		},
		{
			name: "user: a request without a key offers only y and n",
			prepare: func(s *setup) {
				s.req = writeRequest(s.w, "/etc/hosts", false, false)
				s.ap.answers = []Answer{{Choice: Always}}
			},
			want: Deny, reason: ReasonNoApprover,
		},
		{
			name: "user: n refuses",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.answers = []Answer{{Choice: No, Reason: "use staging"}}
			},
			want: Deny, reason: ReasonUserDeny,
			check: func(t *testing.T, s *setup, d Decision) {
				if c := s.w.records(t)[0].Comment; c != "use staging" {
					t.Errorf("audit comment %q, want the user's reason", c)
				}
			},
		},
		{
			name: "user: Ctrl+C cancels the whole command",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.err = ErrCanceled
			},
			want: Deny, reason: ReasonUserDeny, wantErr: ErrCanceled,
		},
		// No approver.
		{
			name: "no approver: refused with the rule to add and the modes",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.e.Approver = nil
			},
			want: Deny, reason: ReasonNoApprover,
			check: func(t *testing.T, s *setup, d Decision) {
				for _, want := range []string{"no terminal to ask", "guard rules add --allow 'shell(make deploy)'", "guard mode"} {
					if !strings.Contains(d.Message, want) {
						t.Errorf("message %q lacks %q", d.Message, want)
					}
				}
			},
		},
		{
			name: "no terminal: the approver says so and it is refused",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.err = ErrNoApprover
			},
			want: Deny, reason: ReasonNoApprover,
		},
		{
			name: "an approver that fails refuses",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make deploy")
				s.ap.err = errors.New("terminal hung up")
			},
			want: Deny, reason: ReasonNoApprover,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(d.Message, "terminal hung up") {
					t.Errorf("message %q hides the approver's failure", d.Message)
				}
			},
		},
		// Hooks tighten, never loosen.
		{
			name: "hook: a deny refuses over an allow rule",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git status")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: allowGit(s.t)}
				s.e.Hooks = &CommandHooks{Hooks: []config.Hook{{Command: []string{script(s.t, s.w.dir, "hook", `cat >/dev/null; echo '{"decision":"deny","reason":"frozen"}'`)}}}}
			},
			want: Deny, reason: ReasonHookDeny,
		},
		{
			name: "hook: an ask asks the user even in bypass",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.e.Mode, s.e.SandboxEnforced = config.ModeBypass, true
				s.e.Hooks = &CommandHooks{Hooks: []config.Hook{{Command: []string{script(s.t, s.w.dir, "hook", `echo '{"decision":"ask","reason":"look first"}'`)}}}}
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
			check: func(t *testing.T, s *setup, d Decision) {
				if !strings.Contains(s.ap.asked[0].Why, "look first") {
					t.Errorf("why %q lacks the hook's reason", s.ap.asked[0].Why)
				}
			},
		},
		{
			name: "hook: an allow skips nothing",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.e.Hooks = &CommandHooks{Hooks: []config.Hook{{Command: []string{script(s.t, s.w.dir, "hook", `echo '{"decision":"allow"}'`)}}}}
				s.ap.answers = []Answer{{Choice: No}}
			},
			want: Deny, reason: ReasonUserDeny,
		},
		{
			name: "hook: a failing hook asks the user",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: mustRule(s.t, rule.Allow, "shell(make *)", rule.SourceGlobal)}
				s.e.Hooks = &CommandHooks{Hooks: []config.Hook{{Command: []string{script(s.t, s.w.dir, "hook", `exit 1`)}}}}
				s.ap.answers = []Answer{{Choice: Once}}
			},
			want: Allow, reason: ReasonUserOnce,
		},
		{
			name: "hook: a deny refuses an unattended run's permitted command",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "make build")
				s.req.Unattended = &Unattended{Permitted: true}
				s.e.Hooks = &CommandHooks{Hooks: []config.Hook{{Command: []string{script(s.t, s.w.dir, "hook", `echo no >&2; exit 2`)}}}}
			},
			want: Deny, reason: ReasonHookDeny,
		},
		// The audit log itself.
		{
			name: "an allow that cannot be audited is withdrawn",
			prepare: func(s *setup) {
				s.req = cmdRequest(s.w, "git status")
				s.req.Rules = RuleVerdict{Action: rule.Allow, Rule: allowGit(s.t)}
				s.e.Audit = &audit.Log{Path: filepath.Join(s.w.dir, "no-such-dir-file")}
				os.WriteFile(filepath.Join(s.w.dir, "no-such-dir-file"), nil, 0o400) // unwritable
				if os.Getuid() == 0 {
					// root writes through file modes: a directory in the way then.
					os.Remove(filepath.Join(s.w.dir, "no-such-dir-file"))
					os.Mkdir(filepath.Join(s.w.dir, "no-such-dir-file"), 0o700)
				}
			},
			want: Deny, reason: ReasonAuditFailed, audited: []Reason{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ap := &scripted{}
			e := &Engine{Mode: config.ModeDefault, Approver: ap, Saved: w.saved, Session: w.session(t, "s1"), Audit: w.log}
			s := &setup{t: t, w: w, e: e, ap: ap}
			tc.prepare(s)
			d, err := e.Decide(context.Background(), s.req)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if d.Outcome != tc.want || d.Reason != tc.reason {
				t.Fatalf("decision %s/%s, want %s/%s (message %q)", d.Outcome, d.Reason, tc.want, tc.reason, d.Message)
			}
			if d.Message == "" {
				t.Error("no message")
			}
			if d.Outcome == Deny && !strings.HasPrefix(d.Message, "refused ") {
				t.Errorf("refusal message %q does not say what was refused", d.Message)
			}
			if strings.Contains(d.Message, "\n") {
				t.Errorf("message %q is not one line", d.Message)
			}
			want := tc.audited
			if want == nil {
				want = []Reason{tc.reason}
			}
			var got []Reason
			for _, r := range w.records(t) {
				got = append(got, Reason(r.Reason))
				if r.Kind != string(s.req.Kind) || r.Detail != s.req.Detail || r.Workspace != s.req.Workspace || r.Mode == "" {
					t.Errorf("audit record %+v does not describe the request", r)
				}
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("audit reasons %q, want %q", got, want)
			}
			if tc.check != nil {
				tc.check(t, s, d)
			}
		})
	}
}

// TestCheck: the dry run follows the same order, answers ask where the gate
// would ask someone, and has no side effect: no prompt, no hook, no
// reviewer, nothing remembered or audited.
func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		mode    config.Mode
		verdict RuleVerdict
		saved   bool
		want    Outcome
		reason  Reason
	}{
		{name: "deny rule", verdict: RuleVerdict{Action: rule.Deny}, want: Deny, reason: ReasonRuleDeny},
		{name: "ask rule", verdict: RuleVerdict{Action: rule.Ask, MustAsk: true}, mode: config.ModeBypass, want: Ask, reason: ReasonRuleAsk},
		{name: "allow rule", verdict: RuleVerdict{Action: rule.Allow}, want: Allow, reason: ReasonRuleAllow},
		{name: "no rule: the user", want: Ask, reason: ReasonAskUser},
		{name: "no rule, auto: the reviewer", mode: config.ModeAuto, want: Ask, reason: ReasonAskAuto},
		{name: "no rule, dont-ask", mode: config.ModeDontAsk, want: Deny, reason: ReasonModeDontAsk},
		{name: "no rule, plan", mode: config.ModePlan, want: Deny, reason: ReasonModePlan},
		{name: "no rule, bypass", mode: config.ModeBypass, want: Allow, reason: ReasonModeBypass},
		{name: "a saved approval", saved: true, want: Allow, reason: ReasonSavedRule},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ap := &scripted{answers: []Answer{{Choice: Always}}}
			marker := filepath.Join(w.dir, "ran")
			hook := script(t, w.dir, "hook", "touch "+marker+"; echo '{\"decision\":\"deny\"}'")
			e := &Engine{Mode: tc.mode, SandboxEnforced: true, Approver: ap, Saved: w.saved, Session: w.session(t, "s1"), Audit: w.log,
				Hooks:    &CommandHooks{Hooks: []config.Hook{{Command: []string{hook}}}},
				Reviewer: &CommandReviewer{Config: config.Reviewer{Command: []string{hook}}}}
			req := cmdRequest(w, "make deploy")
			req.Rules = tc.verdict
			if tc.saved {
				w.saved.Add(Approval{Key: req.Key})
			}
			d, err := e.Check(context.Background(), req)
			if err != nil || d.Outcome != tc.want || d.Reason != tc.reason {
				t.Fatalf("Check = %s/%s, %v; want %s/%s", d.Outcome, d.Reason, err, tc.want, tc.reason)
			}
			if len(ap.asked) != 0 {
				t.Error("check prompted")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("check ran a hook or the reviewer")
			}
			if recs := w.records(t); len(recs) != 0 {
				t.Errorf("check audited %d records", len(recs))
			}
			if list, _ := w.saved.List(); len(list) > 1 || (!tc.saved && len(list) != 0) {
				t.Errorf("check remembered something: %+v", list)
			}
		})
	}
}

// TestDefer: a caller that asks its user itself gets ask, audited.
func TestDefer(t *testing.T) {
	w := newWorld(t)
	e := &Engine{Defer: true, Approver: &scripted{}, Audit: w.log}
	d, err := e.Decide(context.Background(), cmdRequest(w, "make deploy"))
	if err != nil || d.Outcome != Ask || d.Reason != ReasonAskUser {
		t.Fatalf("Decide = %+v, %v", d, err)
	}
	if recs := w.records(t); len(recs) != 1 || recs[0].Decision != "ask" {
		t.Fatalf("audit %+v", recs)
	}
}

// TestMessagesEscapeTheDetail: a refusal names the command in one line that
// a hostile command cannot rewrite.
func TestMessagesEscapeTheDetail(t *testing.T) {
	w := newWorld(t)
	for _, detail := range []string{"rm -rf ~\rls", "echo \x1b[2J\x1b[Hok", "echo \u202eevil", "a\nb"} {
		req := cmdRequest(w, detail)
		d, _ := (&Engine{}).Decide(context.Background(), req)
		for _, r := range d.Message {
			if r < 0x20 || r == 0x7f || r == 0x202e {
				t.Errorf("message %q carries %U", d.Message, r)
			}
		}
	}
}

func TestMatchTargets(t *testing.T) {
	rules := []rule.Rule{
		*mustRule(t, rule.Deny, "web(*.evil.example)", rule.SourceGlobal),
		*mustRule(t, rule.Ask, "web(api.example.com)", rule.SourceGlobal),
		*mustRule(t, rule.Allow, "web(*.example.com)", rule.SourceGlobal),
		*mustRule(t, rule.Allow, "mcp(github:get_*)", rule.SourceGlobal),
	}
	set := rule.NewSet(rules, rule.Env{})
	tests := []struct {
		name    string
		kind    rule.Kind
		targets []string
		action  rule.Action
		mustAsk bool
	}{
		{"deny", rule.Web, []string{"x.evil.example"}, rule.Deny, false},
		{"deny wins over ask", rule.Web, []string{"api.example.com", "x.evil.example"}, rule.Deny, false},
		{"ask", rule.Web, []string{"api.example.com"}, rule.Ask, true},
		{"allow", rule.Web, []string{"www.example.com"}, rule.Allow, false},
		{"allow needs every target", rule.Web, []string{"www.example.com", "other.org"}, "", false},
		{"no rule", rule.Web, []string{"other.org"}, "", false},
		{"mcp allow", rule.MCP, []string{"github:get_issue"}, rule.Allow, false},
		{"mcp no rule", rule.MCP, []string{"github:create_issue"}, "", false},
		{"no targets", rule.Web, nil, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := MatchTargets(set, tc.kind, tc.targets)
			if v.Action != tc.action || v.MustAsk != tc.mustAsk {
				t.Fatalf("verdict %+v, want %q mustAsk=%v", v, tc.action, tc.mustAsk)
			}
			if v.Action != "" && v.Rule == nil {
				t.Error("no rule named")
			}
		})
	}
}

// TestModes: Claude Code's spellings of a mode work; an unknown mode refuses.
func TestModes(t *testing.T) {
	w := newWorld(t)
	req := writeRequest(w, filepath.Join(w.ws, "a.go"), true, false)
	d, err := (&Engine{Mode: "acceptEdits"}).Decide(context.Background(), req)
	if err != nil || d.Reason != ReasonModeAcceptEdits {
		t.Fatalf("acceptEdits: %+v, %v", d, err)
	}
	d, err = (&Engine{Mode: "yolo", Approver: &scripted{answers: []Answer{{Choice: Once}}}}).Decide(context.Background(), req)
	if !errors.Is(err, ErrInvalidRequest) || d.Allowed() {
		t.Fatalf("unknown mode: %+v, %v", d, err)
	}
}
