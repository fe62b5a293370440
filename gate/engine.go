package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// Approver asks a person: the terminal prompter (package prompt), or a
// scripted one in tests.
type Approver interface {
	// Approve returns the person's answer. It returns an error wrapping
	// [ErrNoApprover] when there is no one to ask (no terminal), and
	// [ErrCanceled] when the person cancels the whole command (Ctrl+C).
	Approve(ctx context.Context, p Prompt) (Answer, error)
}

// Reviewer decides in auto mode what would otherwise ask the user.
type Reviewer interface {
	Review(ctx context.Context, req *Request, mode config.Mode) (ReviewVerdict, error)
}

// Hooks are the pre_tool_use hooks: they may deny or ask, never allow.
type Hooks interface {
	PreToolUse(ctx context.Context, req *Request, mode config.Mode) HookVerdict
}

// ApprovalStore is the saved ("always") approvals.
type ApprovalStore interface {
	Has(key string) (bool, error)
	Add(a Approval) error
}

// SessionStore is the session's ("this session") approvals.
type SessionStore interface {
	Has(key string) (bool, error)
	Add(a Approval) error
	// Scope says, for the prompt, how long an s answer lasts.
	Scope() string
}

// Auditor records each decision.
type Auditor interface {
	Append(rec audit.Record) error
}

// Sentinel errors of the gate.
var (
	// ErrCanceled: the user canceled the whole command at a prompt
	// (Ctrl+C). Nothing may run; the CLI exits 130.
	ErrCanceled = errors.New("canceled at the prompt")
	// ErrNoApprover: there is no one to ask (no terminal).
	ErrNoApprover = errors.New("no terminal to ask")
)

// Choice is an answer at the approval prompt.
type Choice byte

// The answers of seed APR-03/APR-30.
const (
	Once    Choice = 'y' // this time
	Session Choice = 's' // the same key, for the session
	Always  Choice = 'a' // the same key, saved in approvals.json
	No      Choice = 'n' // refuse, with an optional reason
)

// Prompt is what the approver shows.
type Prompt struct {
	Request *Request
	Mode    config.Mode
	// Why says why a person is asked: the ask rule, no rule allowing it,
	// the reviewer's failure.
	Why string
	// Choices are the answers offered: always y and n; s and a when the
	// request has a key and no ask rule forces asking every time.
	Choices []Choice
	// SessionScope says how long an s answer lasts.
	SessionScope string
}

// Offers reports whether c is among p's choices.
func (p Prompt) Offers(c Choice) bool {
	for _, o := range p.Choices {
		if o == c {
			return true
		}
	}
	return false
}

// Answer is the person's answer.
type Answer struct {
	Choice Choice
	Reason string // for No: why, passed on to the agent
}

// Engine decides requests in the contract's order. Its zero value decides
// in default mode with no stores and no one to ask; every field is optional.
type Engine struct {
	// Mode is the permission mode.
	Mode config.Mode
	// SandboxEnforced says the caller will run the action under an enforced
	// sandbox; bypass allows only then. SandboxMissing says what is missing
	// otherwise, for the note that bypass fell back to default.
	SandboxEnforced bool
	SandboxMissing  string
	// AutoApprove is [tools] auto_approve_commands, as shell allow rules.
	AutoApprove *rule.Set

	Approver Approver
	Reviewer Reviewer
	Hooks    Hooks
	Saved    ApprovalStore
	Session  SessionStore
	Audit    Auditor

	// Defer makes the engine answer Ask where it would ask the user, for a
	// caller whose own front end asks (Claude Code's hook). The answer is
	// audited; nothing is remembered.
	Defer bool

	Now func() time.Time // for tests; time.Now when nil
}

// Decide runs the full gate on req: it may run hooks and the reviewer, ask
// the user, remember the answer, and it audits the decision. The decision is
// Allow or Deny (Ask only with [Engine.Defer]).
//
// An error means the decision could not be made soundly: the request is
// refused whatever the returned decision says. A corrupt store is a
// [*config.FileError] (exit 78), a cancel at the prompt [ErrCanceled] (exit
// 130), an invalid request wraps [ErrInvalidRequest].
func (e *Engine) Decide(ctx context.Context, req *Request) (Decision, error) {
	return e.run(ctx, req, false)
}

// Check is the dry run of `guard check`: the same order over the same rules,
// modes and stores, but it never prompts, runs no hook or reviewer, remembers
// nothing and audits nothing. Where the gate would ask someone it answers
// Ask, with the reason saying whom.
func (e *Engine) Check(ctx context.Context, req *Request) (Decision, error) {
	return e.run(ctx, req, true)
}

// eval is one evaluation of one request.
type eval struct {
	*Engine
	ctx  context.Context
	req  *Request
	mode config.Mode
	dry  bool
	note []string
}

func (e *Engine) run(ctx context.Context, req *Request, dry bool) (Decision, error) {
	if err := req.Validate(); err != nil {
		d := Decision{Outcome: Deny, Reason: ReasonInvalidRequest, Mode: e.Mode,
			Message: fmt.Sprintf("refused: %v (a bug in the caller of the gate; nothing ran)", err)}
		return d, err
	}
	ev := &eval{Engine: e, ctx: ctx, req: req, mode: e.Mode, dry: dry}
	if ev.mode == "" {
		ev.mode = config.ModeDefault
	}
	m, err := config.ParseMode(string(ev.mode))
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrInvalidRequest, err)
		return Decision{Outcome: Deny, Reason: ReasonInvalidRequest, Mode: e.Mode,
			Message: fmt.Sprintf("refused: %v; nothing ran", err)}, err
	}
	ev.mode = m
	if ev.mode == config.ModeBypass && !e.SandboxEnforced {
		why := e.SandboxMissing
		if why == "" {
			why = "the sandbox is not enforced for this action"
		}
		ev.mode = config.ModeDefault
		ev.note = append(ev.note, fmt.Sprintf("bypass needs the sandbox (%s): deciding as in default mode", why))
	}
	d, err := ev.order()
	d.Mode = ev.mode
	d.Notes = append(ev.note, d.Notes...)
	if !dry {
		d = ev.record(d)
	}
	return d, err
}

// order is the contract's evaluation order ("Decisions"; seed APR-10..15,
// APR-14a), one step per row, each ending in a decision with its reason.
func (ev *eval) order() (Decision, error) {
	req := ev.req
	if req.Unattended != nil {
		return ev.unattended()
	}
	// Deny rules refuse in every mode.
	if req.Rules.Action == rule.Deny {
		return ev.ruleDeny(), nil
	}
	// Hooks only tighten: a deny refuses, an ask (or a failure) goes to the
	// user like an ask rule.
	mustAsk, why, hookFailed := req.Rules.MustAsk, req.Rules.Reason, false
	if mustAsk && why == "" {
		why = "an ask rule matches: " + describeRule(req.Rules.Rule)
	}
	if hv := ev.hooks(); hv.Action == Deny {
		return ev.hookDeny(hv), nil
	} else if hv.Action == Ask {
		if !mustAsk {
			why = fmt.Sprintf("the hook %s asks: %s", hv.Hook, orNone(hv.Reason))
			hookFailed = hv.Failed
		}
		mustAsk = true
	}
	// Ask rules go straight to the user, past allow rules, remembered
	// approvals and the loosening modes. The modes that tighten still do.
	if mustAsk {
		if ev.mode == config.ModePlan && !req.readOnly() {
			return ev.planRefuses(), nil
		}
		if ev.mode == config.ModeDontAsk {
			return ev.dontAsk("it must ask (" + why + ")"), nil
		}
		reason := ReasonRuleAsk
		if hookFailed {
			reason = ReasonHookFail
		}
		return ev.askUser(why, true, reason)
	}
	if req.Rules.Action == rule.Allow {
		return ev.allow(ReasonRuleAllow, req.Rules.Rule, "", "allowed by "+describeRule(req.Rules.Rule)), nil
	}
	if ev.mode == config.ModeBypass {
		return ev.allow(ReasonModeBypass, nil, "mode", "allowed: the mode is bypass (under the sandbox)"), nil
	}
	if r := ev.autoApproved(); r != nil {
		return ev.allow(ReasonAutoPolicy, r, "", "allowed by [tools] auto_approve_commands "+describeRule(r)), nil
	}
	if req.Key != "" && ev.Session != nil {
		ok, err := ev.Session.Has(req.Key)
		if err != nil {
			return ev.storeFailed(err), err
		}
		if ok {
			return ev.allow(ReasonSessionRule, nil, "session", "allowed: approved for "+ev.Session.Scope()), nil
		}
	}
	if req.Key != "" && ev.Saved != nil {
		ok, err := ev.Saved.Has(req.Key)
		if err != nil {
			return ev.storeFailed(err), err
		}
		if ok {
			return ev.allow(ReasonSavedRule, nil, "approvals", "allowed: a saved approval covers "+ev.label()), nil
		}
	}
	if ev.mode == config.ModeAcceptEdits && (req.Kind == WriteFile || req.Kind == DeleteFile) && req.InWritableRoots && !req.Sensitive {
		return ev.allow(ReasonModeAcceptEdits, nil, "mode", "allowed: the mode is accept-edits and the path is inside the writable roots"), nil
	}
	if ev.mode == config.ModePlan && !req.readOnly() {
		return ev.planRefuses(), nil
	}
	if ev.mode == config.ModeDontAsk {
		return ev.dontAsk("no rule allows it"), nil
	}
	why = req.Rules.Reason
	if why == "" {
		why = "no rule allows it"
	}
	if ev.mode == config.ModeAuto {
		if ev.dry {
			return ev.ask(ReasonAskAuto, "auto mode: the reviewer would be asked, then the user if it cannot decide"), nil
		}
		d, done, err := ev.review()
		if done || err != nil {
			return d, err
		}
		why = d.Comment
	}
	return ev.askUser(why, false, ReasonAskUser)
}

// unattended is seed APR-10: only the run's permissions and the deny rules
// decide; nothing is remembered and no one is asked.
func (ev *eval) unattended() (Decision, error) {
	req := ev.req
	if req.Rules.Action == rule.Deny {
		return ev.ruleDeny(), nil
	}
	if hv := ev.hooks(); hv.Action == Deny {
		return ev.hookDeny(hv), nil
	} else if hv.Action == Ask {
		return ev.refuse(ReasonUnattendedRefused, nil, "hook",
			fmt.Sprintf("%s: the hook %s asks (%s), and this unattended run has no one to ask", ev.what(), hv.Hook, hv.Reason)), nil
	}
	if req.Rules.MustAsk {
		return ev.refuse(ReasonUnattendedRefused, req.Rules.Rule, "",
			fmt.Sprintf("%s matches ask rule %s, and this unattended run has no one to ask; remove that rule or run it attended", ev.what(), describeRule(req.Rules.Rule))), nil
	}
	if req.Unattended.Permitted {
		d := ev.allow(ReasonUnattendedPermitted, req.Unattended.Rule, "", "allowed by this unattended run's permissions")
		if r := req.Unattended.Rule; r != nil {
			d.Message = "allowed by this unattended run's permission " + describeRule(r)
		}
		return d, nil
	}
	return ev.refuse(ReasonUnattendedRefused, nil, "unattended",
		fmt.Sprintf("%s isn't among this unattended run's permissions; to allow it, add --permit '%s' (or [unattended] permissions in the settings)",
			ev.what(), ev.suggestion())), nil
}

func (ev *eval) hooks() HookVerdict {
	if ev.dry || ev.Hooks == nil {
		return HookVerdict{}
	}
	return ev.Hooks.PreToolUse(ev.ctx, ev.req, ev.mode)
}

// autoApproved returns the auto-approve rule that covers every segment of a
// command, or nil.
func (ev *eval) autoApproved() *rule.Rule {
	req := ev.req
	if req.Kind != RunCommand || ev.AutoApprove == nil || len(req.Targets) == 0 {
		return nil
	}
	var first *rule.Rule
	for i, t := range req.Targets {
		text := rule.Known(t)
		if req.Texts != nil {
			text = req.Texts[i]
		}
		m := ev.AutoApprove.Match(rule.Shell, text)
		if m.Deny != nil || m.Ask != nil || m.Allow == nil {
			return nil
		}
		if first == nil {
			first = m.Allow.Rule
		}
	}
	return first
}

// review asks the reviewer (auto mode). done is false when the reviewer
// could not decide: then the user is asked, and d.Comment says why.
func (ev *eval) review() (d Decision, done bool, err error) {
	var v ReviewVerdict
	rerr := errors.New("auto mode has no reviewer: set [permissions.auto] command in your settings")
	if ev.Reviewer != nil {
		v, rerr = ev.Reviewer.Review(ev.ctx, ev.req, ev.mode)
	}
	if rerr == nil {
		if v.Allow {
			d := ev.allow(ReasonAutoAllow, nil, "reviewer", "allowed by the reviewer: "+orNone(v.Reason))
			d.Comment = v.Reason
			return d, true, nil
		}
		d := ev.refuse(ReasonAutoDeny, nil, "reviewer", fmt.Sprintf("%s: the reviewer declined it: %s; change the command, or ask the user to run it in default mode (guard mode default)", ev.what(), orNone(v.Reason)))
		d.Comment = v.Reason
		return d, true, nil
	}
	if errors.Is(rerr, context.Canceled) {
		return ev.refuse(ReasonAutoError, nil, "reviewer", ev.what()+": canceled while the reviewer ran"), true, rerr
	}
	// The reviewer's failure is a decision of its own (hand it to the user),
	// audited as auto-error before the user's answer.
	handoff := Decision{Outcome: Ask, Reason: ReasonAutoError, Source: "reviewer", Mode: ev.mode,
		Message: "the reviewer could not decide (" + rerr.Error() + "): asking the user", Comment: rerr.Error()}
	ev.record(handoff)
	return Decision{Comment: "the reviewer could not decide: " + rerr.Error()}, false, nil
}

// askUser hands the request to the approver. mustAsk: an ask rule or a hook
// requires asking every time, so nothing offered may be remembered.
func (ev *eval) askUser(why string, mustAsk bool, askReason Reason) (Decision, error) {
	req := ev.req
	if ev.dry || ev.Defer {
		return ev.ask(askReason, why), nil
	}
	if ev.Approver == nil {
		return ev.noApprover(why, nil), nil
	}
	p := Prompt{Request: req, Mode: ev.mode, Why: why, Choices: []Choice{Once}}
	if req.Key != "" && !mustAsk {
		if ev.Session != nil {
			p.Choices = append(p.Choices, Session)
			p.SessionScope = ev.Session.Scope()
		}
		if ev.Saved != nil {
			p.Choices = append(p.Choices, Always)
		}
	}
	p.Choices = append(p.Choices, No)
	start := ev.now()
	ans, err := ev.Approver.Approve(ev.ctx, p)
	waited := ev.now().Sub(start)
	if err == nil && !p.Offers(ans.Choice) {
		err = fmt.Errorf("the approver answered %q, which was not offered", ans.Choice)
	}
	if err != nil {
		var d Decision
		switch {
		case errors.Is(err, ErrCanceled):
			d = ev.refuse(ReasonUserDeny, nil, "user", ev.what()+": canceled at the prompt (Ctrl+C); nothing ran")
			d.Comment = "canceled"
		case errors.Is(err, ErrNoApprover):
			d, err = ev.noApprover(why, nil), nil
		default:
			// APR-12: an approver that fails refuses.
			d = ev.noApprover(why, err)
			err = nil
		}
		d.Waited = waited
		return d, err
	}
	var d Decision
	approval := Approval{Key: req.Key, Label: req.KeyLabel, Added: ev.now()}
	switch ans.Choice {
	case Once:
		d = ev.allow(ReasonUserOnce, nil, "user", "allowed by the user, once")
	case Session:
		d = ev.allow(ReasonUserSession, nil, "user", "allowed by the user for "+p.SessionScope)
		if err := ev.Session.Add(approval); err != nil {
			d.Notes = append(d.Notes, "approved, but remembering it for the session failed: "+err.Error())
		}
	case Always:
		d = ev.allow(ReasonUserAlways, nil, "user", "allowed by the user, always: "+ev.label())
		// APR-12: always also adds a session rule.
		if ev.Session != nil {
			ev.Session.Add(approval)
		}
		if err := ev.Saved.Add(approval); err != nil {
			d.Notes = append(d.Notes, "approved, but saving the rule failed: "+err.Error())
		}
	case No:
		msg := ev.what() + ": the user declined this"
		if ans.Reason != "" {
			msg += ": " + ans.Reason
		}
		d = ev.refuse(ReasonUserDeny, nil, "user", msg)
		d.Comment = ans.Reason
	}
	d.Waited = waited
	return d, nil
}

// Decisions, one constructor per shape.

func (ev *eval) allow(reason Reason, r *rule.Rule, source, msg string) Decision {
	if source == "" && r != nil {
		source = string(r.Source)
	}
	return Decision{Outcome: Allow, Reason: reason, Rule: r, Source: source, Message: msg}
}

func (ev *eval) refuse(reason Reason, r *rule.Rule, source, msg string) Decision {
	if source == "" && r != nil {
		source = string(r.Source)
	}
	return Decision{Outcome: Deny, Reason: reason, Rule: r, Source: source, Message: "refused " + msg}
}

func (ev *eval) ask(reason Reason, why string) Decision {
	src := "user"
	if reason == ReasonAskAuto {
		src = "reviewer"
	}
	return Decision{Outcome: Ask, Reason: reason, Rule: ev.req.Rules.Rule, Source: src,
		Message: fmt.Sprintf("%s would ask: %s", ev.what(), why)}
}

func (ev *eval) ruleDeny() Decision {
	r := ev.req.Rules.Rule
	where := "a deny rule"
	if r != nil {
		where = "deny rule " + describeRule(r)
	}
	return ev.refuse(ReasonRuleDeny, r, "", fmt.Sprintf("%s: %s; deny rules apply in every mode: remove or narrow the rule to allow it", ev.what(), where))
}

func (ev *eval) hookDeny(hv HookVerdict) Decision {
	d := ev.refuse(ReasonHookDeny, nil, "hook", fmt.Sprintf("%s: the pre_tool_use hook %s refused it: %s", ev.what(), hv.Hook, orNone(hv.Reason)))
	d.Comment = hv.Reason
	return d
}

func (ev *eval) planRefuses() Decision {
	return ev.refuse(ReasonModePlan, nil, "mode", fmt.Sprintf("%s: planning is on (mode plan) and it is not read-only; submit the plan for approval (guard plan submit FILE) to carry it out", ev.what()))
}

func (ev *eval) dontAsk(why string) Decision {
	return ev.refuse(ReasonModeDontAsk, ev.req.Rules.Rule, "mode", fmt.Sprintf("%s: the mode is dont-ask and %s; add an allow rule (guard rules add --allow '%s') or change the mode (guard mode default)", ev.what(), why, ev.suggestion()))
}

func (ev *eval) noApprover(why string, err error) Decision {
	lack := "there is no terminal to ask"
	if err != nil {
		lack = "asking failed (" + err.Error() + ")"
	}
	modes := "auto or bypass" // bypass: commands run under the sandbox
	switch ev.req.Kind {
	case WriteFile, DeleteFile:
		modes = "accept-edits or auto"
	case ReadFile, Network, MCPTool:
		modes = "auto"
	}
	hint := fmt.Sprintf("add an allow rule (guard rules add --allow '%s') or choose a mode that decides without asking (guard mode %s)", ev.suggestion(), modes)
	if ev.req.Rules.MustAsk {
		hint = "an ask rule (" + describeRule(ev.req.Rules.Rule) + ") requires asking: run it where guard can ask on a terminal, or remove that rule"
	}
	return ev.refuse(ReasonNoApprover, ev.req.Rules.Rule, "", fmt.Sprintf("%s: it needs approval (%s) and %s; %s", ev.what(), why, lack, hint))
}

func (ev *eval) storeFailed(err error) Decision {
	return ev.refuse(ReasonNoApprover, nil, "", fmt.Sprintf("%s: the remembered approvals cannot be read: %v", ev.what(), err))
}

// record audits d. An allow that cannot be recorded is withdrawn: an action
// the log does not show must not happen.
func (ev *eval) record(d Decision) Decision {
	if ev.Audit == nil {
		return d
	}
	req := ev.req
	rec := audit.Record{
		Time: ev.now(), Workspace: req.Workspace, Session: req.Session, Mode: string(d.Mode),
		Tool: req.Tool, Kind: string(req.Kind), Detail: req.Detail, Targets: req.Targets,
		Decision: string(d.Outcome), Reason: string(d.Reason), Source: d.Source,
		WaitedMS: d.Waited.Milliseconds(), Message: d.Message, Comment: d.Comment,
	}
	if d.Rule != nil {
		rec.Rule = d.Rule.String()
		if d.Rule.File != "" {
			rec.Where = d.Rule.Where()
		}
	}
	if err := ev.Audit.Append(rec); err != nil {
		if d.Outcome == Allow {
			return Decision{Outcome: Deny, Reason: ReasonAuditFailed, Mode: d.Mode, Source: "audit",
				Message: fmt.Sprintf("refused %s: it was %s, but the decision could not be recorded in the audit log (%v); nothing ran: fix the log's directory or disk", ev.what(), d.Reason, err),
				Notes:   d.Notes, Waited: d.Waited}
		}
		d.Notes = append(d.Notes, "the decision could not be recorded in the audit log: "+err.Error())
	}
	return d
}

func (ev *eval) now() time.Time {
	if ev.Now != nil {
		return ev.Now()
	}
	return time.Now()
}

// what names the request in a message: `command "git push"`.
func (ev *eval) what() string {
	return kindTable[ev.req.Kind].noun + " " + quoteDetail(ev.req.Detail)
}

func (ev *eval) label() string {
	if ev.req.KeyLabel != "" {
		return ev.req.KeyLabel
	}
	return ev.req.Key
}

// suggestion is the rule that would allow the request, for messages: the
// caller's when it gave one, else one for the first target.
func (ev *eval) suggestion() string {
	req := ev.req
	if req.Suggest != "" {
		return shellQuoteInner(oneLine(req.Suggest))
	}
	target := req.Detail
	if len(req.Targets) > 0 {
		target = req.Targets[0]
	}
	return shellQuoteInner(fmt.Sprintf("%s(%s)", req.Kind.RuleKind(), oneLine(target)))
}

func orNone(s string) string {
	if s == "" {
		return "(no reason given)"
	}
	return s
}
