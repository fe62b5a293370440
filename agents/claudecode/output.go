package claudecode

import (
	"encoding/json"
	"strings"
)

// Decision is the hook's answer.
type Decision string

// The answers of a PreToolUse hook. Claude Code asks its user itself on
// "ask"; "deny" tells Claude the reason.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Output is the JSON the hook prints on stdout.
type Output struct {
	HookSpecificOutput Specific `json:"hookSpecificOutput"`
}

// Specific is the PreToolUse part of the output.
type Specific struct {
	HookEventName            string   `json:"hookEventName"`
	PermissionDecision       Decision `json:"permissionDecision"`
	PermissionDecisionReason string   `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput replaces the tool's arguments: the whole tool_input,
	// with the command rewritten (--sandbox).
	UpdatedInput map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

// NewOutput is a PreToolUse answer.
func NewOutput(d Decision, reason string) Output {
	return Output{HookSpecificOutput: Specific{HookEventName: "PreToolUse", PermissionDecision: d, PermissionDecisionReason: reason}}
}

// Marshal is the output as one line of JSON.
func (o Output) Marshal() ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WithCommand returns the tool's input with its command replaced, every
// other argument (description, timeout, run_in_background) kept as sent.
func (in *Input) WithCommand(command string) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(in.ToolInput))
	for k, v := range in.ToolInput {
		out[k] = v
	}
	b, err := json.Marshal(command)
	if err != nil {
		return nil, err
	}
	out["command"] = b
	return out, nil
}

// SandboxCommand is the command line that runs command under guard exec:
//
//	guard exec --session ID -c 'COMMAND'
//
// Every word is quoted for a POSIX shell (the command single-quoted, each
// quote inside it closed, escaped and reopened), so that the shell running it hands guard exec
// exactly command, whatever it holds: quotes, newlines, $(...), backquotes.
// guardPath is how the shell finds guard; session may be empty.
func SandboxCommand(guardPath, session, command string) string {
	words := []string{Quote(guardPath), "exec"}
	if session != "" {
		words = append(words, "--session", Quote(session))
	}
	words = append(words, "-c", singleQuote(command))
	return strings.Join(words, " ")
}

// singleQuote always single-quotes s, so that the command reads the same
// to a person as to the shell.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Quote quotes s as one word for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else single-quoted.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
