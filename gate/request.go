package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Kind is what a request asks to do (seed APR-01).
type Kind string

// The kinds of request. read_file is guard's addition: the seed's agent
// reads files without asking, guard gates reads outside the workspace.
const (
	RunCommand Kind = "run_command"
	ReadFile   Kind = "read_file"
	WriteFile  Kind = "write_file"
	DeleteFile Kind = "delete_file"
	Network    Kind = "network"
	MCPTool    Kind = "mcp_tool"
)

// kindTable is the one place that says, for each request kind, which rules
// judge it and how its remembered-approval keys begin. A key of another
// prefix on a request is a caller's bug that could stretch an approval over
// the wrong kind of action, so [Request.Validate] refuses it.
var kindTable = map[Kind]struct {
	rule      rule.Kind
	keyPrefix string
	noun      string // what the detail is, for messages
}{
	RunCommand: {rule.Shell, "cmd:", "command"},
	ReadFile:   {rule.Read, "read:", "read of"},
	WriteFile:  {rule.Write, "write:", "write to"},
	DeleteFile: {rule.Delete, "delete:", "deletion of"},
	Network:    {rule.Web, "web:", "network access to"},
	MCPTool:    {rule.MCP, "mcp:", "MCP tool"},
}

// Kinds lists the request kinds in the order they are documented.
var Kinds = []Kind{RunCommand, ReadFile, WriteFile, DeleteFile, Network, MCPTool}

// Valid reports whether k is one of the request kinds.
func (k Kind) Valid() bool { _, ok := kindTable[k]; return ok }

// RuleKind is the kind of permission rule that judges requests of kind k.
func (k Kind) RuleKind() rule.Kind { return kindTable[k].rule }

// Request is one action for the gate to decide. The caller has already
// matched the permission rules (shellpolicy for commands, pathpolicy for
// paths, [MatchTargets] for hosts and MCP tools): the gate does not parse
// commands or resolve paths, it orders what the rules, the mode, the stores
// and the people say.
type Request struct {
	// Tool is what asks: "exec", "gate", "claude-code:Edit". Shown and audited.
	Tool string
	Kind Kind
	// Detail is the command, the path, the URL or server:tool, as the user
	// should read it.
	Detail string
	// Diff is a unified diff of a write, shown at the prompt (truncated) and
	// sent to the reviewer (at most [MaxReviewDiff] characters).
	Diff string
	// Key names what a remembered answer covers (see [CommandKey] and the
	// others); empty means the request can only be approved once.
	Key      string
	KeyLabel string
	// Targets are what the rules matched: a command's segments, a canonical
	// path, a host, server:tool.
	Targets []string
	// Texts, when set, are the Targets with their unknown spans marked (a
	// command's segments from shellpolicy). [tools] auto_approve_commands
	// are matched against them, so that `git $SUB` is not auto-approved by
	// `git status`. When nil, a Target is matched as wholly known text.
	Texts     []rule.Text
	Workspace string
	Session   string
	Rules     RuleVerdict
	// Suggest is the rule that would allow the request, named in refusal
	// messages ("shell(make build)"). The caller knows which segment no rule
	// allows; when empty, the gate suggests one for the first target.
	Suggest string
	// ReadOnly: the command changes nothing (shellpolicy's verdict). Plan
	// mode lets only read-only requests through. A read_file request is
	// read-only whatever this says.
	ReadOnly bool
	// InWritableRoots: every path of a write or delete lies inside the
	// writable roots (pathpolicy), so accept-edits may allow it.
	InWritableRoots bool
	// Sensitive: a path whose change can run code later outside any sandbox
	// (.git/hooks, .bashrc, ...). accept-edits never allows it.
	Sensitive bool
	// Unattended, when set, makes this an unattended run's request: only the
	// run's permissions (matched by the caller) and the deny rules decide.
	Unattended *Unattended
}

// RuleVerdict is what the permission rules said about a request.
type RuleVerdict struct {
	// Action is deny, ask or allow when a rule decided, "" when none did.
	// allow means every target matched an allow rule. ask without MustAsk
	// is a default (no rule, an unverifiable command with no ask rules) and
	// is treated like "": the mode decides.
	Action rule.Action
	// MustAsk: an ask rule matched (or an unverifiable command while ask
	// rules exist). The request goes straight to the user, skipping modes,
	// allow rules and remembered approvals, even in bypass.
	MustAsk bool
	// Rule is the rule that decided, when one did.
	Rule *rule.Rule
	// Reason is the caller's one-line account of the verdict.
	Reason string
	// Details are per-target lines for the prompt: what needs approval and
	// why.
	Details []string
}

// Unattended is an unattended run's judgement of a request against the
// run's permissions (--permit, [unattended] permissions).
type Unattended struct {
	Permitted bool
	Rule      *rule.Rule // the permission that matched, when Permitted
}

// ErrInvalidRequest is wrapped by every error of [Request.Validate].
var ErrInvalidRequest = errors.New("invalid gate request")

// maxDetail bounds what a request may carry: a command longer than this is
// not something a person can review at a prompt anyway.
const maxDetail = 1 << 20

// Validate refuses a request the gate cannot judge safely: an unknown kind,
// no detail, a key of another kind's prefix, a read-only claim on a write.
func (r *Request) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
	}
	kt, ok := kindTable[r.Kind]
	if !ok {
		return bad("unknown kind %q", r.Kind)
	}
	if r.Detail == "" {
		return bad("%s request without a detail", r.Kind)
	}
	if len(r.Detail) > maxDetail || len(r.Diff) > 64*maxDetail {
		return bad("%s request too large to show anyone", r.Kind)
	}
	if r.Key != "" && !strings.HasPrefix(r.Key, kt.keyPrefix) {
		return bad("key %q does not belong to a %s request (want prefix %q)", r.Key, r.Kind, kt.keyPrefix)
	}
	if r.Texts != nil && len(r.Texts) != len(r.Targets) {
		return bad("%d texts for %d targets", len(r.Texts), len(r.Targets))
	}
	if r.Rules.Action != "" && !r.Rules.Action.Valid() {
		return bad("unknown rule action %q", r.Rules.Action)
	}
	if (r.Kind == WriteFile || r.Kind == DeleteFile) && r.ReadOnly {
		return bad("a %s request cannot be read-only", r.Kind)
	}
	return nil
}

// readOnly reports whether plan mode may let the request through.
func (r *Request) readOnly() bool { return r.Kind == ReadFile || r.ReadOnly }

// Keys and their labels, as seed APR-03 names them. A key names what a
// remembered answer covers; the label is how the prompt and `guard approvals
// list` say it.

// CommandKey covers this exact command in this workspace.
func CommandKey(workspace, command string) (key, label string) {
	return "cmd:" + workspace + "\x00" + command, "this exact command in this workspace"
}

// WriteKey covers file edits in the workspace. Use it only for writes inside
// the writable roots that are not sensitive; see [FileKey].
func WriteKey(workspace string) (key, label string) {
	return "write:" + workspace, "file edits in the workspace"
}

// DeleteKey covers file deletions in the workspace; see [FileKey].
func DeleteKey(workspace string) (key, label string) {
	return "delete:" + workspace, "file deletions in the workspace"
}

// ReadKey covers reading one canonical path (a file, or everything under a
// directory). Guard's choice: reads that ask are reads outside the
// workspace, and remembering "reads anywhere" would undo the ask.
func ReadKey(path string) (key, label string) {
	return "read:" + path, "reading " + path
}

// WebKey covers network access to one host.
func WebKey(host string) (key, label string) {
	host = strings.ToLower(host)
	return "web:" + host, "network access to " + host
}

// MCPKey covers one MCP tool of one server.
func MCPKey(server, tool string) (key, label string) {
	return "mcp:" + server + ":" + tool, "the MCP tool " + server + ":" + tool
}

// FileKey is the key of a write or delete: the workspace's key when every
// path is inside the writable roots and none is sensitive, otherwise none
// (approve once), so that "always" for edits in the workspace never stretches
// to ~/.bashrc or .git/hooks.
func FileKey(kind Kind, workspace string, inWritableRoots, sensitive bool) (key, label string) {
	if !inWritableRoots || sensitive {
		return "", ""
	}
	switch kind {
	case WriteFile:
		return WriteKey(workspace)
	case DeleteFile:
		return DeleteKey(workspace)
	}
	return "", ""
}

// MatchTargets judges targets against set as the contract orders it: deny if
// any target matches a deny rule, else must-ask if any matches an ask rule,
// else allow if every target matches an allow rule. It builds the verdict of
// network and mcp_tool requests (shellpolicy and pathpolicy build the
// others').
func MatchTargets(set *rule.Set, kind rule.Kind, targets []string) RuleVerdict {
	var v RuleVerdict
	if set == nil || len(targets) == 0 {
		return v
	}
	allAllowed := true
	var firstAllow *rule.Rule
	for _, t := range targets {
		m := set.MatchString(kind, t)
		switch {
		case m.Deny != nil:
			v.Details = append(v.Details, fmt.Sprintf("%s: denied by %s", t, describeRule(m.Deny.Rule)))
			if v.Action != rule.Deny {
				v.Action, v.Rule, v.MustAsk = rule.Deny, m.Deny.Rule, false
				v.Reason = fmt.Sprintf("%s matches deny rule %s", t, m.Deny.Rule)
			}
		case m.Ask != nil:
			v.Details = append(v.Details, fmt.Sprintf("%s: ask rule %s", t, describeRule(m.Ask.Rule)))
			if v.Action != rule.Deny && !v.MustAsk {
				v.Action, v.Rule, v.MustAsk = rule.Ask, m.Ask.Rule, true
				v.Reason = fmt.Sprintf("%s matches ask rule %s", t, m.Ask.Rule)
			}
		case m.Allow != nil:
			if firstAllow == nil {
				firstAllow = m.Allow.Rule
			}
		default:
			allAllowed = false
			v.Details = append(v.Details, fmt.Sprintf("%s: no rule allows it", t))
		}
	}
	if v.Action == "" && allAllowed && firstAllow != nil {
		v.Action, v.Rule = rule.Allow, firstAllow
		v.Reason = fmt.Sprintf("allowed by %s", firstAllow)
	}
	return v
}

// describeRule is a rule with where it was written, for messages.
func describeRule(r *rule.Rule) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%s (%s)", r, r.Where())
}
