package gate

import (
	"time"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// Reason is why the gate decided as it did: the audit log's reason field.
type Reason string

// The reasons of the contract's list, one per row of the evaluation order.
const (
	ReasonRuleDeny            Reason = "rule-deny"            // a target matched a deny rule
	ReasonRuleAllow           Reason = "rule-allow"           // every target matched an allow rule
	ReasonSavedRule           Reason = "saved-rule"           // approvals.json holds the key
	ReasonSessionRule         Reason = "session-rule"         // the session remembers the key
	ReasonModeBypass          Reason = "mode-bypass"          // bypass, with the sandbox enforced
	ReasonModeAcceptEdits     Reason = "mode-accept-edits"    // a write or delete inside the writable roots
	ReasonModeDontAsk         Reason = "mode-dont-ask"        // dont-ask refuses what would ask
	ReasonAutoPolicy          Reason = "auto-policy"          // [tools] auto_approve_commands
	ReasonAutoAllow           Reason = "auto-allow"           // the reviewer allowed it
	ReasonAutoDeny            Reason = "auto-deny"            // the reviewer refused it
	ReasonAutoError           Reason = "auto-error"           // the reviewer failed: the user is asked
	ReasonUserOnce            Reason = "user-once"            // y
	ReasonUserSession         Reason = "user-session"         // s
	ReasonUserAlways          Reason = "user-always"          // a
	ReasonUserDeny            Reason = "user-deny"            // n
	ReasonNoApprover          Reason = "no-approver"          // it needed a person and none could be asked
	ReasonUnattendedPermitted Reason = "unattended-permitted" // among an unattended run's permissions
	ReasonUnattendedRefused   Reason = "unattended-refused"   // not among them
)

// Reasons guard adds to the contract's list where the list has no row for a
// decision guard makes. Each is documented in docs/gate.md.
const (
	// ReasonModePlan: plan mode refused something that is not read-only.
	ReasonModePlan Reason = "mode-plan"
	// ReasonHookDeny: a [[hooks.pre_tool_use]] hook refused the request.
	ReasonHookDeny Reason = "hook-deny"
	// ReasonAuditFailed: the decision could not be written to the audit log,
	// so an allow is withdrawn (an action that cannot be recorded does not run).
	ReasonAuditFailed Reason = "audit-failed"
	// ReasonInvalidRequest: the caller handed the gate a request it cannot
	// judge (see [Request.Validate]); returned with the error, not audited.
	ReasonInvalidRequest Reason = "invalid-request"
)

// Reasons of an ask outcome, which only [Engine.Check] and a deferring
// engine ([Engine.Defer]) return: where the full gate would ask someone.
const (
	ReasonRuleAsk  Reason = "rule-ask"  // an ask rule or a hook: the user, always
	ReasonAskUser  Reason = "ask-user"  // no rule or mode decides: the user
	ReasonAskAuto  Reason = "ask-auto"  // auto mode: the reviewer, then the user
	ReasonHookFail Reason = "hook-fail" // a hook failed: the user, always
)

// Outcome is the decision itself.
type Outcome string

// Outcomes. Ask only comes from a dry run or a deferring engine; the full
// gate ends in allow or deny.
const (
	Allow Outcome = "allow"
	Ask   Outcome = "ask"
	Deny  Outcome = "deny"
)

// Decision is the gate's answer to a request.
type Decision struct {
	Outcome Outcome
	Reason  Reason
	// Rule is the rule that decided (a deny, allow, ask or auto-approve
	// rule, or an unattended run's permission), when one did.
	Rule *rule.Rule
	// Source is where the decision came from: a rule's source, "approvals",
	// "session", "mode", "reviewer", "hook", "user".
	Source string
	// Message is one line for stderr: what was refused, by which rule or
	// mode, and what the user can do. For an allow it says why.
	Message string
	// Mode is the mode the request was judged in (default when bypass was
	// asked for without an enforced sandbox).
	Mode config.Mode
	// Waited is the time spent waiting for the user (seed APR-12: waiting is
	// not tool time).
	Waited time.Duration
	// Comment is what the user (n REASON), the reviewer or a hook said.
	Comment string
	// Notes are warnings for stderr: bypass fell back, a save failed.
	Notes []string
}

// Allowed reports whether the action may go ahead.
func (d Decision) Allowed() bool { return d.Outcome == Allow }

// CheckExitCode is the contract's status for a `guard check` verdict: 0 allow, 3
// ask, 4 deny.
func (d Decision) CheckExitCode() int {
	switch d.Outcome {
	case Allow:
		return 0
	case Ask:
		return 3
	}
	return 4
}
