// Package claudecode is guard's side of Claude Code: the PreToolUse hook's
// input and output, the mapping of Claude Code's tools onto guard's requests,
// and the translation of Claude Code's permission settings into guard's rules.
//
// Everything here is a pure function over data; cmd/guard wires it to the
// gate, the settings files and the terminal.
package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxInput bounds the hook's input. A Write's content travels in it, so it
// must hold a large file; past this guard refuses to judge (exit 2 blocks).
const MaxInput = 64 << 20

// Input is one PreToolUse call, as Claude Code sends it on the hook's stdin.
type Input struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	PermissionMode string
	HookEventName  string
	ToolName       string
	// ToolInput holds the tool's arguments by their exact names. Claude Code's
	// tools read their arguments by exact name, so guard must too: a decoder
	// that folds case would let "File_Path" hide the path the tool reads.
	ToolInput map[string]json.RawMessage
}

// InputError is hook input guard cannot judge. The hook exits 2 with it,
// which blocks the call.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return "malformed hook input: " + e.Msg }

func bad(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// ParseInput reads a PreToolUse hook call. It refuses anything it would have
// to guess about: not one JSON object, a field of the wrong type, another
// event, a working directory that is not absolute.
func ParseInput(data []byte) (*Input, error) { return ParseInputDefault(data, "") }

// ParseInputDefault is ParseInput for an agent that may leave cwd out
// (Codex): defaultCwd is taken then. With defaultCwd "", cwd is required.
func ParseInputDefault(data []byte, defaultCwd string) (*Input, error) {
	top, err := object(data, "the input")
	if err != nil {
		return nil, err
	}
	in := &Input{}
	for _, f := range []struct {
		name     string
		dst      *string
		required bool
	}{
		{"hook_event_name", &in.HookEventName, true},
		{"tool_name", &in.ToolName, true},
		{"cwd", &in.Cwd, defaultCwd == ""},
		{"session_id", &in.SessionID, false},
		{"transcript_path", &in.TranscriptPath, false},
		{"permission_mode", &in.PermissionMode, false},
	} {
		v, ok, err := str(top, f.name)
		if err != nil {
			return nil, err
		}
		if !ok && f.required {
			return nil, bad("no %q field", f.name)
		}
		*f.dst = v
	}
	if in.Cwd == "" {
		in.Cwd = defaultCwd
	}
	if in.HookEventName != "PreToolUse" {
		return nil, bad("hook_event_name is %q: guard hook claude-code answers PreToolUse only; register it under \"PreToolUse\" in settings.json", in.HookEventName)
	}
	if in.ToolName == "" {
		return nil, bad("empty tool_name")
	}
	if strings.IndexFunc(in.ToolName, isControl) >= 0 {
		return nil, bad("tool_name %q holds a control character", in.ToolName)
	}
	if !filepath.IsAbs(in.Cwd) || strings.ContainsRune(in.Cwd, 0) {
		return nil, bad("cwd %q is not an absolute path", in.Cwd)
	}
	raw, ok := top["tool_input"]
	if !ok {
		return nil, bad("no \"tool_input\" field")
	}
	if in.ToolInput, err = object(raw, "tool_input"); err != nil {
		return nil, err
	}
	return in, nil
}

// object decodes one JSON object and nothing after it.
func object(data []byte, what string) (map[string]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, bad("%s is empty", what)
	}
	if !utf8.Valid(data) {
		return nil, bad("%s is not UTF-8", what)
	}
	if data[0] != '{' {
		return nil, bad("%s is not a JSON object", what)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil {
		return nil, bad("%s: %v", what, err)
	}
	if dec.More() {
		return nil, bad("%s: more than one JSON value", what)
	}
	return m, nil
}

// str reads a string field by its exact name. ok is false when the field is
// missing or null.
func str(m map[string]json.RawMessage, name string) (v string, ok bool, err error) {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, bad("%s: want a string, got %s", name, clip(string(raw)))
	}
	return v, true, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Kind is what guard judges a tool call as.
type Kind string

// The kinds of call. None is a tool guard leaves to Claude Code.
const (
	None  Kind = ""
	Shell Kind = "shell"
	Read  Kind = "read"
	Write Kind = "write"
	Web   Kind = "web"
	MCP   Kind = "mcp"
)

// WebSearchHost is the target of Claude Code's WebSearch: the search runs on
// Anthropic's side, so no host of the user's is reached; guard names the
// provider instead, as a host no network has (one label, no dot), so that
// web(anthropic-web-search) allows or denies searching and no rule about a
// real host does by accident. A bare "web" rule, or web(*), covers it too.
const WebSearchHost = "anthropic-web-search"

// Call is a tool call as guard judges it.
type Call struct {
	Kind Kind
	Tool string
	// Command is a Bash call's command.
	Command string
	// Path is the file or directory read or written, as given (relative
	// paths are relative to the input's cwd).
	Path string
	// Search is set for a Grep over a directory: the files under Path are
	// read, so a denied file below it is read too.
	Search bool
	// Target is a WebFetch's URL, WebSearch's host, or an MCP tool's
	// server:tool.
	Target string
	// Diff shows what a write changes, for guard's reviewer.
	Diff string
	// Why says, for a call guard leaves alone, why.
	Why string
}

// tool says how a Claude Code tool maps onto guard: the kind and the
// argument that names its target.
type tool struct {
	kind  Kind
	field string
	// optional: a missing field means the working directory (Grep, Glob).
	optional bool
	why      string
}

// tools is the one table of the tools guard judges, each with why it maps as
// it does. Claude Code's file tools take absolute paths; a relative one is
// taken relative to the hook's cwd.
var tools = map[string]tool{
	"Bash":         {Shell, "command", false, "runs a shell command"},
	"Read":         {Read, "file_path", false, "reads a file"},
	"NotebookRead": {Read, "notebook_path", false, "reads a notebook (older Claude Code)"},
	"LS":           {Read, "path", false, "lists a directory (older Claude Code)"},
	"Grep":         {Read, "path", true, "reads every file under its path"},
	"Glob":         {Read, "path", true, "lists names under its path and pattern"},
	"Edit":         {Write, "file_path", false, "changes a file"},
	"MultiEdit":    {Write, "file_path", false, "changes a file"},
	"Write":        {Write, "file_path", false, "creates or replaces a file"},
	"NotebookEdit": {Write, "notebook_path", false, "changes a notebook"},
	"WebFetch":     {Web, "url", false, "fetches a URL"},
	"WebSearch":    {Web, "", false, "searches the web through Anthropic"},
}

// quiet lists Claude Code's tools that act on nothing guard gates. Their
// work is gated elsewhere or is Claude Code's own bookkeeping, so guard has
// no opinion on them, whatever --unknown says.
var quiet = map[string]string{
	"Task":            "starts a subagent, whose own tool calls come through this hook",
	"Agent":           "starts a subagent, whose own tool calls come through this hook",
	"TodoWrite":       "updates Claude Code's task list",
	"ExitPlanMode":    "presents a plan to the user in Claude Code",
	"EnterPlanMode":   "switches Claude Code to planning",
	"AskUserQuestion": "asks the user a question in Claude Code",
	"BashOutput":      "reads the output of a Bash call already judged",
	"KillShell":       "stops a Bash call already judged",
	"KillBash":        "stops a Bash call already judged (older Claude Code)",
	"SlashCommand":    "expands a slash command into a prompt",
	"Skill":           "loads a skill's instructions; its tool calls come through this hook",
}

// Call maps the input's tool call onto guard. A tool guard does not know
// is Kind None with Why saying so; known says whether the tool is one of
// Claude Code's that guard deliberately leaves alone.
func (in *Input) Call() (c Call, known bool, err error) {
	c.Tool = in.ToolName
	if strings.HasPrefix(in.ToolName, "mcp__") {
		target, err := MCPTarget(in.ToolName)
		if err != nil {
			return c, true, err
		}
		c.Kind, c.Target = MCP, target
		return c, true, nil
	}
	if why, ok := quiet[in.ToolName]; ok {
		c.Why = in.ToolName + " " + why
		return c, true, nil
	}
	t, ok := tools[in.ToolName]
	if !ok {
		c.Why = "the tool " + in.ToolName + " is unknown to guard"
		return c, false, nil
	}
	c.Kind = t.kind
	if in.ToolName == "WebSearch" {
		c.Target = WebSearchHost
		return c, true, nil
	}
	v, present, err := str(in.ToolInput, t.field)
	if err != nil {
		return c, true, err
	}
	if !present || v == "" {
		if !t.optional {
			return c, true, bad("%s: tool_input.%s is missing or empty", in.ToolName, t.field)
		}
		v = in.Cwd
	}
	if strings.ContainsRune(v, 0) {
		return c, true, bad("%s: tool_input.%s holds a NUL byte, which no command or path can", in.ToolName, t.field)
	}
	switch t.kind {
	case Shell:
		c.Command = v
	case Web:
		c.Target = v
	default:
		c.Path = v
	}
	switch in.ToolName {
	case "Grep":
		c.Search = true
	case "Glob":
		pat, _, err := str(in.ToolInput, "pattern")
		if err != nil {
			return c, true, err
		}
		c.Path = globRoot(c.Path, pat)
	}
	if t.kind == Write {
		if c.Diff, err = in.diff(c.Path); err != nil {
			return c, true, err
		}
	}
	return c, true, nil
}

// MCPTarget turns Claude Code's mcp__server__tool into guard's server:tool.
// The server is what comes before the first "__" after the prefix.
func MCPTarget(name string) (string, error) {
	rest := strings.TrimPrefix(name, "mcp__")
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", bad("tool_name %q: want mcp__SERVER__TOOL", name)
	}
	if strings.ContainsAny(rest, " \t\n/:") {
		return "", bad("tool_name %q: an MCP tool's name holds no blank, slash or colon", name)
	}
	return server + ":" + tool, nil
}

// globRoot is where a Glob looks: its path joined with the part of the
// pattern before the first wildcard. A pattern may climb out of the path
// ("../../.ssh/*") or be absolute, and the read judged must be of where the
// tool actually looks. The parts are joined, not cleaned: guard resolves
// ".." after symlinks as the kernel does.
func globRoot(dir, pattern string) string {
	if pattern == "" {
		return dir
	}
	parts := strings.Split(pattern, "/")
	var lit []string
	for _, p := range parts[:len(parts)-1] {
		if strings.ContainsAny(p, "*?[{\\") {
			break
		}
		lit = append(lit, p)
	}
	// The last part is a file name (or a wildcard): the directory is what
	// is searched. A pattern with no wildcard at all names one path.
	if !strings.ContainsAny(pattern, "*?[{\\") {
		lit = parts
	}
	base := strings.Join(lit, "/")
	switch {
	case strings.HasPrefix(pattern, "/"):
		if base == "" {
			return "/"
		}
		return base
	case base == "":
		return dir
	}
	return strings.TrimSuffix(dir, "/") + "/" + base
}

// maxDiff bounds the diff guard builds for its reviewer: enough to review,
// short of the gate's own limit.
const maxDiff = 256 << 10

// diff shows a write's change in unified-diff form for guard's reviewer.
// Claude Code shows the user its own diff; this one is for the reviewer of
// auto mode and is never used to decide.
func (in *Input) diff(path string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
	pair := func(old, new string) {
		for _, l := range splitLines(old) {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range splitLines(new) {
			b.WriteString("+" + l + "\n")
		}
	}
	get := func(m map[string]json.RawMessage, k string) string {
		v, _, _ := str(m, k)
		return v
	}
	switch in.ToolName {
	case "Write":
		pair("", get(in.ToolInput, "content"))
	case "Edit":
		pair(get(in.ToolInput, "old_string"), get(in.ToolInput, "new_string"))
	case "NotebookEdit":
		pair("", get(in.ToolInput, "new_source"))
	case "MultiEdit":
		var edits []map[string]json.RawMessage
		if raw, ok := in.ToolInput["edits"]; ok {
			if err := json.Unmarshal(raw, &edits); err != nil {
				return "", bad("MultiEdit: tool_input.edits: want a list of edits: %v", err)
			}
		}
		for _, e := range edits {
			pair(get(e, "old_string"), get(e, "new_string"))
		}
	}
	s := b.String()
	if len(s) > maxDiff {
		cut := maxDiff
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n[diff cut at 256 KiB]\n"
	}
	return s, nil
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// ErrNotHTTP is a WebFetch URL guard will not judge.
var ErrNotHTTP = errors.New("not an http or https URL")

// URLHost is the host a WebFetch reaches. It reads the URL strictly, so
// that no URL guard and Claude Code's fetcher (a WHATWG URL parser) read as
// different hosts gets through: a backslash, a user-info part, blanks or
// control characters, a host that is not plain ASCII, are refused rather
// than guessed at. A trailing dot is dropped (example.com. is example.com).
func URLHost(raw string) (string, error) {
	if strings.ContainsAny(raw, "\\ \t\r\n") || strings.IndexFunc(raw, isControl) >= 0 {
		return "", fmt.Errorf("URL %q holds a backslash, blank or control character", clip(raw))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", fmt.Errorf("%q: %w", clip(raw), ErrNotHTTP)
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
	default:
		return "", fmt.Errorf("%q: %w", clip(raw), ErrNotHTTP)
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.Contains(authority, "@") {
		return "", fmt.Errorf("URL %q has a user-info part (user@host): guard refuses to guess which host it reaches", clip(raw))
	}
	host := authority
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return "", fmt.Errorf("URL %q: unclosed [ in the host", clip(raw))
		}
		host = host[:end+1]
	} else if h, port, ok := strings.Cut(host, ":"); ok {
		if strings.Trim(port, "0123456789") != "" {
			return "", fmt.Errorf("URL %q: bad port %q", clip(raw), port)
		}
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return "", fmt.Errorf("URL %q has no host", clip(raw))
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._[]:", r)) {
			return "", fmt.Errorf("URL %q: host %q holds %q; write an international name in its xn-- form", clip(raw), host, r)
		}
	}
	return host, nil
}
