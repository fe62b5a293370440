// Package config loads and merges guard's settings: the managed file, the
// user's global settings, the user's settings for a workspace, the project's
// .guard/ files (whose loosening parts wait for `guard trust`) and flags.
package config

import (
	"fmt"
	"time"

	"github.com/guard-sh/guard/rule"
)

// Settings is the merged result of every source, as the rest of guard sees it.
// Loosening parts of an untrusted project, and anything the managed settings
// forbid, are already left out; each such omission is in Warnings.
type Settings struct {
	Paths Paths

	// Mode is the starting permission mode and ModeFrom the source that set
	// it ("flag", "workspace", "global", "managed", "auto_approve", "default").
	Mode     Mode
	ModeFrom string
	// ModeWhere is the file:line that set the mode, when a file did.
	ModeWhere string
	// ModeFloor, when set by managed settings, is the least strict mode any
	// source may choose.
	ModeFloor Mode
	// DisableBypass is managed [guard] disable_bypass: bypass is refused.
	DisableBypass bool

	// Rules are every permission rule in the order they are consulted:
	// managed, flag, global, workspace, project. Built-in rules are not here;
	// shellpolicy adds them when ReadOnlyDefaults is on.
	Rules            []rule.Rule
	ReadOnlyDefaults bool

	// AutoApproveCommands is [tools] auto_approve_commands, as shell rules of
	// action allow (source kept), consulted by the gate after the mode bypass.
	AutoApproveCommands []rule.Rule

	// Reviewer is [permissions.auto], from the user's own settings only.
	Reviewer *Reviewer
	// Hooks are [[hooks.pre_tool_use]]: they may only tighten a decision.
	Hooks []Hook
	// Unattended is [unattended] permissions: an unattended run's rules.
	Unattended []rule.Rule

	Sandbox Sandbox
	UI      UI

	// Project is the state of the workspace's .guard/ files: whether they
	// are trusted, and what they loosen (left out unless trusted).
	Project Project
	// Files are the settings files consulted, in the order of their rules.
	Files []SourceFile

	Warnings []Warning
}

// SourceFile is a settings file guard looked for.
type SourceFile struct {
	Source rule.Source
	Path   string
	Exists bool
}

// RuleEnv is what the rules' path patterns are expanded against.
func (s *Settings) RuleEnv() rule.Env {
	return rule.Env{Home: s.Paths.Home, Workspace: s.Paths.Workspace}
}

// Sandbox is the merged [sandbox] table.
type Sandbox struct {
	Network          bool         // network = "on"
	NetworkFor       []rule.Rule  // allow_network_for: shell rules that turn network on
	TCPConnect       []uint16     // allow_tcp_connect ports, when network is on only in part
	AllowWrite       []string     // allow_write, "~" and $VAR expanded, absolute, symlinks resolved
	Writable         []Writable   // the same, with where each came from
	UnixSockets      []UnixSocket // allow_unix_sockets, "$VAR" expanded
	ShareCaches      bool
	EnvDeny          []string // env_deny globs over variable names
	EnvKeep          []string // env_keep: names kept despite env_deny
	NetworkForbidden bool     // managed network = "off": no other source can turn it on
}

// Writable is an entry of allow_write (or --allow-write). A path that
// reaches a dangerous place (the home directory, ~/.ssh, shell start-up
// files, /etc, ...) is only here when it is marked Dangerous.
type Writable struct {
	Path      string
	Dangerous bool
	From      string // file:line of the entry, or "flag"
}

// UnixSocket is an entry of allow_unix_sockets. A socket that hands over the
// machine (Docker, containerd, the system D-Bus, X11) is refused unless it is
// marked Dangerous.
type UnixSocket struct {
	Path      string
	Dangerous bool
	From      string // file:line of the entry
}

// Reviewer is the command that reviews requests in auto mode.
type Reviewer struct {
	Command     []string
	Timeout     time.Duration // default 2 minutes
	Environment string        // free text passed to the reviewer
	From        string
}

// Hook is a [[hooks.pre_tool_use]] entry.
type Hook struct {
	Command []string
	Timeout time.Duration
	From    string
}

// UI is the [ui] table.
type UI struct {
	DiffLines int // lines of a diff shown at a prompt; default 120
}

// Warning is a note about a settings file: an unknown key, a dropped rule, a
// loosening setting that is not applied. It names the file and line.
type Warning struct {
	File string
	Line int
	Msg  string
	Code string // set for warnings a command may want to tell apart
}

// WarnUntrusted is the Code of the one warning that a project's loosening
// settings were left out for lack of trust.
const WarnUntrusted = "untrusted-project"

func (w Warning) String() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	case w.File != "":
		return fmt.Sprintf("%s: %s", w.File, w.Msg)
	}
	return w.Msg
}

// Paths are where guard keeps its files, and the workspace and home it
// works in. Every path is absolute and clean.
type Paths struct {
	Home          string
	Workspace     string
	ConfigDir     string // $XDG_CONFIG_HOME/guard
	StateDir      string // $XDG_STATE_HOME/guard
	GlobalFile    string // ConfigDir/settings.toml, or --config
	WorkspaceFile string // ConfigDir/workspaces/<name>-<hash>.toml
	ProjectFiles  []string
	ManagedFile   string // /etc/guard/managed.toml or $GUARD_MANAGED_SETTINGS
	ApprovalsFile string // ConfigDir/approvals.json
	TrustFile     string // ConfigDir/trust.json
	AuditFile     string // StateDir/audit.jsonl
	SessionsDir   string // StateDir/sessions
}

// FileError is a settings file that cannot be used: exit status 78.
type FileError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}
