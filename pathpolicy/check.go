package pathpolicy

import (
	"fmt"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Reason says what decided a [Decision].
type Reason string

// Reasons, in the order Check considers them.
const (
	ReasonBadPath   Reason = "bad-path"       // the path cannot be resolved (loop, NUL, too long): refused
	ReasonRuleDeny  Reason = "rule-deny"      // a deny rule
	ReasonProtected Reason = "protected"      // a write or delete of guard's own files: refused, not askable
	ReasonUnknown   Reason = "unknown-target" // leads where guard cannot know: asks (a write or delete is refused)
	ReasonRuleAsk   Reason = "rule-ask"       // an ask rule: straight to the user, whatever the mode
	ReasonRuleAllow Reason = "rule-allow"     // an allow rule
	ReasonDevice    Reason = "device"         // /dev/null, the command's own stdout and the like: allowed
	ReasonSensitive Reason = "sensitive"      // a write or delete of a sensitive path: asks even in accept-edits
	ReasonWorkspace Reason = "workspace"      // a read inside the workspace: allowed
	ReasonGuardFile Reason = "guard-file"     // a read of guard's own files: allowed
	ReasonOutside   Reason = "outside"        // a read outside the workspace: asks
	// ReasonWritable: a write or delete inside a writable root. It asks, and
	// the gate lets accept-edits (and bypass) allow it.
	ReasonWritable Reason = "writable-root"
	// ReasonNotWritable: a write or delete outside every writable root. It
	// asks, and no mode but bypass allows it without asking.
	ReasonNotWritable Reason = "outside-writable-roots"
)

// Decision is the verdict on one read, write or delete, with what the user
// needs to understand it. Its JSON is what `guard check --json read PATH`
// prints.
type Decision struct {
	Op       rule.Kind   `json:"op"`
	Decision rule.Action `json:"decision"` // allow, ask or deny
	Reason   Reason      `json:"reason"`
	// The rule that decided, when one did.
	Rule   string         `json:"rule,omitempty"`
	Source rule.Source    `json:"source,omitempty"`
	Where  string         `json:"where,omitempty"` // file:line of the rule
	Match  rule.MatchKind `json:"match,omitempty"`
	// MatchedOn is the form of the path the rule matched: given,
	// canonical, link, same-file or unknown.
	MatchedOn string `json:"matched_on,omitempty"`
	// The path as given, made absolute, and canonical.
	Path      string `json:"path"`
	Absolute  string `json:"absolute,omitempty"`
	Canonical string `json:"canonical,omitempty"`
	// Why explains the decision in a sentence, with what the user can do.
	Why string `json:"why"`
	// Sensitive is set for a write or delete of a sensitive path, whatever
	// decided: the gate must not let accept-edits allow it, and bypass only
	// where the sandbox protects the path. SensitiveWhy is the entry's
	// reason.
	Sensitive    bool   `json:"sensitive,omitempty"`
	SensitiveWhy string `json:"sensitive_why,omitempty"`

	// Hit is the rule hit that decided, if any; Resolved the path.
	Hit      *rule.Hit `json:"-"`
	Resolved Path      `json:"-"`
}

// devices are paths that hold no one's data, which any command may read and
// write.
var devices = []struct{ path, why string }{
	{"/dev/null", "discards what is written, reads as empty"},
	{"/dev/zero", "reads as zeros, discards what is written"},
	{"/dev/full", "reads as zeros, refuses writes"},
	{"/dev/random", "random bytes"},
	{"/dev/urandom", "random bytes"},
	{"/dev/tty", "the command's own terminal, which it already holds as stdin"},
}

// deviceWhy is why a path is one of devices, if it is.
func deviceWhy(p string) (string, bool) {
	for _, d := range devices {
		if d.path == p {
			return d.why, true
		}
	}
	return "", false
}

// Check decides op (rule.Read, rule.Write or rule.Delete) of path for a
// command running in dir (the workspace when empty).
//
// In order: a path that cannot be resolved is refused; a deny rule refuses;
// a write or delete of guard's protected paths is refused (no one can
// approve it: only guard's own commands change them); an ask rule asks; an
// allow rule allows (not a sensitive write it does not name); then the
// defaults: the command's own streams and /dev/null allow; a read inside
// the workspace or of guard's own files allows, other reads ask; a write or
// delete of a sensitive path asks, inside a writable root asks as
// "writable-root" (the mode may allow it), elsewhere asks.
func (p *Policy) Check(op rule.Kind, pth, dir string) Decision {
	d := Decision{Op: op, Path: pth}
	if !op.IsPath() {
		d.Decision, d.Reason = rule.Deny, ReasonBadPath
		d.Why = fmt.Sprintf("%q is not a file operation (read, write or delete)", op)
		return d
	}
	rp, err := p.Resolve(pth, dir)
	if err != nil {
		d.Decision, d.Reason = rule.Deny, ReasonBadPath
		d.Why = fmt.Sprintf("%v; guard refuses what it cannot resolve", err)
		return d
	}
	d.Absolute, d.Canonical, d.Resolved = rp.Absolute, rp.Canonical, rp
	v := p.evaluate(op, rp)
	if v.sensitive != nil {
		d.Sensitive, d.SensitiveWhy = true, v.sensitive.Why
	}
	decide := func(a rule.Action, r Reason, h *rule.Hit, on, why string) Decision {
		d.Decision, d.Reason, d.Why = a, r, why
		if h != nil {
			d.Hit, d.Rule, d.Source, d.Match, d.MatchedOn = h, h.Rule.String(), h.Rule.Source, h.Match, on
			d.Where = h.Rule.Where()
		}
		return d
	}
	// Built only where a message needs it: most checks end in a default.
	what := func() string { return string(op) + " of " + rp.Canonical }
	switch {
	case v.m.Deny != nil:
		h := v.m.Deny
		return decide(rule.Deny, ReasonRuleDeny, h, v.denyOn,
			fmt.Sprintf("%s is denied by %s (%s)%s", what(), h.Rule, h.Rule.Where(), matchNote(h, v.denyOn, rp)))
	case v.protected != nil && rp.Unknown != "":
		return decide(rule.Deny, ReasonUnknown, v.protected, FormUnknown,
			fmt.Sprintf("%s is refused: %s", what(), v.protectedWhy))
	case v.protected != nil:
		on := FormCanonical
		if v.protected.Match == MatchSameFile {
			on = FormSameFile
		}
		return decide(rule.Deny, ReasonProtected, v.protected, on,
			fmt.Sprintf("%s is refused: %s; change guard's settings with guard's own commands (guard rules, guard mode, guard trust)", what(), v.protectedWhy))
	case v.m.Ask != nil:
		h := v.m.Ask
		return decide(rule.Ask, ReasonRuleAsk, h, v.askOn,
			fmt.Sprintf("%s asks, by %s (%s)%s", what(), h.Rule, h.Rule.Where(), matchNote(h, v.askOn, rp)))
	case v.m.Allow != nil:
		h := v.m.Allow
		return decide(rule.Allow, ReasonRuleAllow, h, v.allowOn,
			fmt.Sprintf("%s is allowed by %s (%s)", what(), h.Rule, h.Rule.Where()))
	}

	// Defaults.
	if rp.Stream && op != rule.Delete {
		return decide(rule.Allow, ReasonDevice, nil, "", fmt.Sprintf("%s is one of the command's own standard streams", rp.Given))
	}
	if why, ok := deviceWhy(rp.Canonical); ok && op != rule.Delete {
		return decide(rule.Allow, ReasonDevice, nil, "", fmt.Sprintf("%s %s", rp.Canonical, why))
	}
	if rp.Unknown != "" {
		return decide(rule.Ask, ReasonUnknown, nil, "", rp.UnknownWhy)
	}
	if op == rule.Read {
		switch {
		case within(p.workspace, rp.Canonical):
			return decide(rule.Allow, ReasonWorkspace, nil, "", rp.Canonical+" is inside the workspace "+p.workspace)
		case p.isGuardFile(rp.Canonical):
			return decide(rule.Allow, ReasonGuardFile, nil, "", rp.Canonical+" is one of guard's own files")
		}
		return decide(rule.Ask, ReasonOutside, nil, "", fmt.Sprintf(
			"%s is outside the workspace %s; add the rule allow read(%s) to allow it without asking", rp.Canonical, p.workspace, rp.Canonical))
	}
	if v.sensitive != nil {
		why := fmt.Sprintf("%s changes a sensitive path (%s), so it asks in every mode", what(), v.sensitive.Why)
		if v.overridden != nil {
			why += fmt.Sprintf("; %s does not name it", v.overridden.Rule)
		}
		why += fmt.Sprintf("; only a rule that names it allows it without asking: allow %s(%s)", op, rp.Canonical)
		return decide(rule.Ask, ReasonSensitive, nil, "", why)
	}
	// A write through a link writes its target, so both must be writable;
	// a delete removes the link itself (without a trailing slash).
	target, writable := rp.Canonical, p.isWritable(rp.Canonical) && p.isWritable(rp.NoFollow)
	if op == rule.Delete {
		target, writable = rp.NoFollow, p.isWritable(rp.NoFollow)
	}
	if writable {
		return decide(rule.Ask, ReasonWritable, nil, "", target+" is inside a writable root; the mode decides (accept-edits allows it)")
	}
	return decide(rule.Ask, ReasonNotWritable, nil, "", fmt.Sprintf(
		"%s is outside the writable roots (%s); add the rule allow %s(%s), or [sandbox] allow_write, to allow it",
		target, strings.Join(p.writable, ", "), op, target))
}

// matchNote tells the user how a rule matched a path that does not show it.
func matchNote(h *rule.Hit, on string, rp Path) string {
	switch on {
	case FormGiven:
		if rp.Absolute != rp.Canonical {
			return fmt.Sprintf(", as written (%s)", rp.Absolute)
		}
	case FormNoFollow:
		return fmt.Sprintf(", on the link %s itself", rp.NoFollow)
	case FormSameFile:
		return ", as another name (a hard link or bind mount) of a path it names"
	case FormUnknown:
		return fmt.Sprintf(": %s, so every %s rule may apply", rp.UnknownWhy, h.Rule.Action)
	case FormCanonical:
		if rp.Absolute != rp.Canonical {
			return fmt.Sprintf("; %s leads there", rp.Absolute)
		}
	}
	return ""
}

func (p *Policy) isWritable(c string) bool {
	for _, w := range p.writable {
		if within(w, c) {
			return true
		}
	}
	return false
}

func (p *Policy) isGuardFile(c string) bool {
	for _, pp := range p.protected {
		if within(pp.path, c) {
			return true
		}
	}
	return false
}
