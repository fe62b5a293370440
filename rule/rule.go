// Package rule is guard's permission-rule language: rules written as
// kind(pattern) or as a bare kind, Claude Code's spellings of the same, and the
// matchers that decide whether a rule covers a command, a path, a host or an
// MCP tool.
//
// A rule is compiled once (see [Set]); matching many rules is an index lookup,
// not a scan of every pattern.
package rule

import "fmt"

// Kind is what a rule is about.
type Kind string

// The kinds of rule. Shell rules match sub-commands; read, write and delete
// rules match canonical absolute paths; web rules match a URL's host; mcp rules
// match "server:tool".
const (
	Shell  Kind = "shell"
	Read   Kind = "read"
	Write  Kind = "write"
	Delete Kind = "delete"
	Web    Kind = "web"
	MCP    Kind = "mcp"
)

// Kinds lists every kind, in the order they are documented.
var Kinds = []Kind{Shell, Read, Write, Delete, Web, MCP}

// IsPath reports whether rules of kind k match file paths.
func (k Kind) IsPath() bool { return k == Read || k == Write || k == Delete }

// Valid reports whether k is one of guard's kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Action is what a matching rule decides.
type Action string

// Actions, strictest first: any matching deny wins, then ask, then allow.
const (
	Deny  Action = "deny"
	Ask   Action = "ask"
	Allow Action = "allow"
)

// Actions lists the actions strictest first.
var Actions = []Action{Deny, Ask, Allow}

// Valid reports whether a is allow, ask or deny.
func (a Action) Valid() bool { return a == Allow || a == Ask || a == Deny }

// Source says where a rule came from. It is shown with every decision, so that
// the user knows which file to edit.
type Source string

// Sources, in the order their rules are listed and consulted.
const (
	SourceManaged   Source = "managed"   // /etc/guard/managed.toml: cannot be loosened
	SourceGlobal    Source = "global"    // the user's settings.toml
	SourceWorkspace Source = "workspace" // the user's settings for this workspace
	SourceProject   Source = "project"   // <workspace>/.guard/settings*.toml
	SourceBuiltin   Source = "built-in"  // read-only defaults and their guards
	SourceFlag      Source = "flag"      // --allow / --deny / --permit
	SourceSession   Source = "session"   // added for the running session
)

// Rule is one permission rule with where it was written.
type Rule struct {
	Action  Action
	Kind    Kind
	Pattern string // guard's pattern; empty when Bare
	Bare    bool   // a bare kind: every target of that kind
	Written string // the rule as the user wrote it (may be a Claude Code spelling)
	Source  Source
	File    string // the settings file, when it came from one
	Line    int    // 1-based line in File, 0 when unknown
	Why     string // for built-in rules: why the rule exists
}

// String is the rule in guard's own spelling: "shell(git *)", or "web".
func (r Rule) String() string {
	if r.Bare {
		return string(r.Kind)
	}
	return fmt.Sprintf("%s(%s)", r.Kind, r.Pattern)
}

// Where names the file and line the rule came from, or its source when it has
// no file ("built-in", "flag").
func (r Rule) Where() string {
	switch {
	case r.File != "" && r.Line > 0:
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	case r.File != "":
		return r.File
	default:
		return string(r.Source)
	}
}

// New parses text (in any accepted spelling) into a rule with the given action.
func New(action Action, text string) (Rule, error) {
	if !action.Valid() {
		return Rule{}, fmt.Errorf("unknown action %q (want allow, ask or deny)", action)
	}
	k, pat, bare, err := Parse(text)
	if err != nil {
		return Rule{}, err
	}
	return Rule{Action: action, Kind: k, Pattern: pat, Bare: bare, Written: text}, nil
}
