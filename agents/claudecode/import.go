package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// MaxSettings bounds a Claude Code settings file guard imports.
const MaxSettings = 4 << 20

// Imported is a Claude Code settings file's permissions in guard's terms.
type Imported struct {
	// Rules are the guard rules, in the file's order: deny, ask, allow.
	Rules []Rule
	// Mode is defaultMode in guard's spelling, "" when the file sets none
	// (or one guard cannot carry over).
	Mode config.Mode
	// ModeFrom is defaultMode as written.
	ModeFrom string
	// Dirs are additionalDirectories as guard path patterns (~/x, /x, ./x).
	Dirs []Dir
	// Warnings say what was not carried over, or carried over with another
	// meaning, and why.
	Warnings []Warning
}

// Rule is one guard rule carried over from a Claude Code rule.
type Rule struct {
	Action rule.Action
	Text   string // guard's spelling: "shell(git push *)"
	From   string // Claude Code's: "Bash(git push:*)"
}

// Dir is an additional directory.
type Dir struct {
	Path string // guard's path pattern
	From string
}

// Warning is a note on one entry of the file.
type Warning struct {
	// Where is the entry: "permissions.allow[3]", "permissions.defaultMode".
	Where string
	// From is the entry as written.
	From string
	// Dropped: nothing was carried over for it.
	Dropped bool
	Msg     string
}

func (w Warning) String() string {
	verb := "carried over, but"
	if w.Dropped {
		verb = "not carried over:"
	}
	if w.From == "" {
		return fmt.Sprintf("%s: %s %s", w.Where, verb, w.Msg)
	}
	return fmt.Sprintf("%s %q: %s %s", w.Where, w.From, verb, w.Msg)
}

// Import reads a Claude Code settings.json (comments, which some people
// write, are allowed) and carries over its permissions: allow, ask and deny
// rules, defaultMode and additionalDirectories.
func Import(data []byte) (*Imported, error) {
	if len(data) > MaxSettings {
		return nil, fmt.Errorf("larger than %d bytes: not a settings file", MaxSettings)
	}
	top, err := object(stripComments(data), "the settings file")
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "malformed hook input: "))
	}
	im := &Imported{}
	raw, ok := top["permissions"]
	if !ok || string(raw) == "null" {
		im.Warnings = append(im.Warnings, Warning{Where: "permissions", Dropped: true, Msg: "the file has no permissions; nothing to import"})
		return im, nil
	}
	perms, err := object(raw, "permissions")
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "malformed hook input: "))
	}
	for _, action := range []rule.Action{rule.Deny, rule.Ask, rule.Allow} {
		list, err := strings_(perms, string(action))
		if err != nil {
			return nil, err
		}
		for i, text := range list {
			where := fmt.Sprintf("permissions.%s[%d]", action, i)
			if text == nil {
				im.Warnings = append(im.Warnings, Warning{Where: where, Dropped: true, Msg: "not a string"})
				continue
			}
			texts, note, err := TranslateRule(action, *text)
			if err != nil {
				im.Warnings = append(im.Warnings, Warning{Where: where, From: *text, Dropped: true, Msg: err.Error()})
				continue
			}
			if note != "" {
				im.Warnings = append(im.Warnings, Warning{Where: where, From: *text, Msg: note})
			}
			for _, t := range texts {
				im.Rules = append(im.Rules, Rule{Action: action, Text: t, From: *text})
			}
		}
	}
	if m, ok, err := str(perms, "defaultMode"); err != nil {
		return nil, fmt.Errorf("permissions.defaultMode: want a string")
	} else if ok {
		im.ModeFrom = m
		mode, note, err := TranslateMode(m)
		switch {
		case err != nil:
			im.Warnings = append(im.Warnings, Warning{Where: "permissions.defaultMode", From: m, Dropped: true, Msg: err.Error()})
		default:
			im.Mode = mode
			if note != "" {
				im.Warnings = append(im.Warnings, Warning{Where: "permissions.defaultMode", From: m, Msg: note})
			}
		}
	}
	dirs, err := strings_(perms, "additionalDirectories")
	if err != nil {
		return nil, err
	}
	for i, d := range dirs {
		where := fmt.Sprintf("permissions.additionalDirectories[%d]", i)
		if d == nil {
			im.Warnings = append(im.Warnings, Warning{Where: where, Dropped: true, Msg: "not a string"})
			continue
		}
		p, note, err := TranslateDir(*d)
		if err != nil {
			im.Warnings = append(im.Warnings, Warning{Where: where, From: *d, Dropped: true, Msg: err.Error()})
			continue
		}
		if note != "" {
			im.Warnings = append(im.Warnings, Warning{Where: where, From: *d, Msg: note})
		}
		im.Dirs = append(im.Dirs, Dir{Path: p, From: *d})
	}
	if _, ok := perms["disableBypassPermissionsMode"]; ok {
		im.Warnings = append(im.Warnings, Warning{Where: "permissions.disableBypassPermissionsMode", Dropped: true,
			Msg: "guard's equivalent, disable_bypass = true, belongs in the managed settings (/etc/guard/managed.toml)"})
	}
	if _, ok := top["sandbox"]; ok {
		im.Warnings = append(im.Warnings, Warning{Where: "sandbox", Dropped: true,
			Msg: "Claude Code's own sandbox settings are not guard's; set guard's [sandbox] table yourself (docs/settings.md)"})
	}
	return im, nil
}

// strings_ reads an optional list of strings; a non-string element is nil.
func strings_(m map[string]json.RawMessage, name string) ([]*string, error) {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("permissions.%s: want a list of strings", name)
	}
	out := make([]*string, len(list))
	for i, r := range list {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out[i] = &s
		}
	}
	return out, nil
}

// TranslateMode carries defaultMode over. note says how guard's mode of the
// same name differs.
func TranslateMode(m string) (config.Mode, string, error) {
	mode, err := config.ParseMode(m)
	if err != nil {
		return "", "", fmt.Errorf("guard has no mode %q", m)
	}
	switch mode {
	case config.ModeBypass:
		return mode, "guard's bypass applies only to commands run under guard's sandbox (guard exec); Claude Code's own tools, and its Bash without guard hook claude-code --sandbox, stay gated", nil
	case config.ModeAuto:
		return mode, "guard's auto mode asks your own reviewer ([permissions.auto] command), not Claude Code's classifier; without one it asks you", nil
	}
	return mode, "", nil
}

// TranslateDir carries an additional directory over as a path pattern.
func TranslateDir(d string) (string, string, error) {
	d = strings.TrimSpace(d)
	switch {
	case d == "":
		return "", "", fmt.Errorf("empty path")
	case strings.ContainsAny(d, "*?["):
		return "", "", fmt.Errorf("a directory, not a pattern, is expected")
	case strings.IndexFunc(d, isControl) >= 0:
		return "", "", fmt.Errorf("holds a control character")
	case d == "~" || strings.HasPrefix(d, "~/") || strings.HasPrefix(d, "/"):
		return strings.TrimSuffix(d, "/"), "", nil
	case strings.HasPrefix(d, "~"):
		return "", "", fmt.Errorf("~user is not supported; write the directory's path")
	}
	return "./" + strings.TrimPrefix(strings.TrimSuffix(d, "/"), "./"), "a relative directory is taken relative to the workspace", nil
}

// TranslateRule carries one Claude Code rule over as guard rules (a path
// rule may need two). note says how the guard rules' meaning differs; err
// says why nothing could be carried over.
//
// The direction of every difference is chosen so that nothing gets looser
// unseen: a deny or ask rule may come out covering more than Claude Code's,
// never less; an allow rule that comes out covering more is noted.
func TranslateRule(action rule.Action, text string) (rules []string, note string, err error) {
	text = strings.TrimSpace(text)
	name, arg, hasArg := text, "", false
	if i := strings.IndexByte(text, '('); i > 0 && strings.HasSuffix(text, ")") {
		name, arg, hasArg = text[:i], text[i+1:len(text)-1], true
	}
	if why, ok := notCarried[name]; ok {
		return nil, "", fmt.Errorf("%s", why)
	}
	switch name {
	case "WebSearch":
		if hasArg {
			return nil, "", fmt.Errorf("Claude Code's WebSearch takes no pattern")
		}
		return []string{"web(" + WebSearchHost + ")"}, "", nil
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "NotebookRead":
		rules, note, err := pathRule(action, name, arg, hasArg)
		if err != nil {
			return nil, "", err
		}
		// What is written must read back as written (a name ending in a
		// blank does not: rule text is trimmed), or a deny rule would be
		// dropped at the next load.
		for _, r := range rules {
			if _, err := rule.New(action, r); err != nil {
				return nil, "", fmt.Errorf("guard cannot write it as a rule that reads back the same: %v", err)
			}
		}
		return rules, note, nil
	}
	r, err := rule.New(action, text)
	if err != nil {
		return nil, "", fmt.Errorf("%v", err)
	}
	if r.Kind == rule.Shell && !r.Bare && strings.Contains(arg, ":*") && !strings.HasSuffix(arg, ":*") {
		return nil, "", fmt.Errorf("Claude Code reads :* only at the end of a Bash pattern; guard cannot tell what this one meant")
	}
	return []string{r.String()}, "", nil
}

// notCarried are Claude Code's tools guard has no rules for, each with why.
var notCarried = map[string]string{
	"Task":            "guard does not gate subagents; their own tool calls still come through guard hook claude-code",
	"Agent":           "guard does not gate subagents; their own tool calls still come through guard hook claude-code",
	"Skill":           "guard does not gate skills; the tool calls a skill makes still come through guard hook claude-code",
	"SlashCommand":    "guard does not gate slash commands",
	"TodoWrite":       "Claude Code's task list is not an action guard gates",
	"ExitPlanMode":    "Claude Code's planning is not an action guard gates (guard plan submit is guard's)",
	"AskUserQuestion": "asking the user is not an action guard gates",
	"BashOutput":      "reading a running command's output is not an action guard gates",
	"KillShell":       "stopping a running command is not an action guard gates",
}

// pathTools are the kinds of Claude Code's file tools. Claude Code applies
// Edit rules to every tool that edits files and Read rules to every tool
// that reads them (Read, Grep, Glob).
var pathTools = map[string]rule.Kind{
	"Read": rule.Read, "Glob": rule.Read, "Grep": rule.Read, "LS": rule.Read, "NotebookRead": rule.Read,
	"Edit": rule.Write, "Write": rule.Write, "MultiEdit": rule.Write, "NotebookEdit": rule.Write,
}

// maxDoubleStars bounds the "**/" a pattern may hold: each doubles the guard
// rules it becomes.
const maxDoubleStars = 3

func pathRule(action rule.Action, name, arg string, hasArg bool) ([]string, string, error) {
	kind := pathTools[name]
	var notes []string
	if name != "Read" && name != "Edit" && hasArg {
		notes = append(notes, fmt.Sprintf("Claude Code documents path patterns for Read and Edit only; guard reads %s(...) as %s(...)", name, kind))
	}
	if !hasArg {
		switch {
		case action == rule.Allow && kind == rule.Read && name != "Read":
			return nil, "", fmt.Errorf("guard has no per-tool rules: allowing every %s would allow every read, anywhere; guard already allows reads inside the workspace (add allow read yourself if you mean every read)", name)
		case action != rule.Allow && name != "Read" && name != "Edit":
			notes = append(notes, fmt.Sprintf("guard has no per-tool rules: %s %s covers every %s, by any tool, not just %s", action, kind, kind, name))
		}
		return []string{string(kind)}, strings.Join(notes, "; "), nil
	}
	pats, note, err := pathPatterns(action, strings.TrimSpace(arg))
	if err != nil {
		return nil, "", err
	}
	if note != "" {
		notes = append(notes, note)
	}
	var out []string
	for _, p := range pats {
		r, err := rule.New(action, string(kind)+"("+p+")")
		if err != nil {
			return nil, "", err
		}
		out = append(out, r.String())
	}
	return dedupe(out), strings.Join(notes, "; "), nil
}

// pathPatterns turns a Claude Code path pattern (gitignore syntax, anchored
// as Claude Code documents: //abs, ~/home, /project-root, else the current
// directory) into guard path patterns.
//
// guard's '*' crosses '/', gitignore's does not; gitignore's "**" does. A
// pattern without a slash matches at any depth in gitignore. "?", "[...]"
// and "\" escapes have no guard equivalent.
func pathPatterns(action rule.Action, p string) ([]string, string, error) {
	loosening := action == rule.Allow
	var notes []string
	switch {
	case p == "":
		return nil, "", fmt.Errorf("empty pattern")
	case strings.HasPrefix(p, "!"):
		return nil, "", fmt.Errorf("a negated pattern (!) has no guard equivalent")
	case strings.IndexFunc(p, isControl) >= 0:
		return nil, "", fmt.Errorf("the pattern holds a control character")
	}
	if strings.ContainsAny(p, "?[\\") {
		if loosening {
			return nil, "", fmt.Errorf("guard has no ?, [...] or \\ escapes, and an allow rule may not be widened to fit")
		}
		p = widenSpecials(p)
		notes = append(notes, "guard has no ?, [...] or \\ escapes: each became *, so the rule covers more")
	}
	var lead, rest string
	relative := false
	switch {
	case strings.HasPrefix(p, "//"):
		lead, rest = "/", strings.TrimLeft(p, "/")
	case p == "~" || strings.HasPrefix(p, "~/"):
		lead, rest = "~/", strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	case strings.HasPrefix(p, "~"):
		return nil, "", fmt.Errorf("~user is not supported; write the home directory's path")
	case strings.HasPrefix(p, "/"):
		lead, rest = "./", strings.TrimLeft(p, "/") // the project's root
	default:
		lead, rest, relative = "./", strings.TrimPrefix(p, "./"), true
	}
	rest = strings.TrimSuffix(rest, "/") // "dir/": guard's rule on dir covers what is inside
	if rest == "" {
		root := map[string]string{"/": "/", "~/": "~", "./": "."}[lead]
		return []string{root}, strings.Join(notes, "; "), nil
	}
	if loosening && hasSingleStar(rest) {
		notes = append(notes, "Claude Code's * stays within one directory, guard's crosses '/': this allow rule covers more (write the directory's depth out, or use a narrower pattern)")
	}
	// gitignore: a pattern with no slash matches at any depth below where
	// it applies. A deny or ask rule must keep covering that; an allow rule
	// is carried over for the top directory only (it may cover less, never
	// more). A pattern that starts with * already crosses directories.
	if relative && !strings.Contains(rest, "/") && !strings.HasPrefix(rest, "*") {
		if loosening {
			notes = append(notes, "Claude Code (gitignore) also matches it in every subdirectory; guard's allow rule covers the top of the workspace only")
		} else {
			rest = "{top}" + rest
		}
	}
	expanded, err := expandDoubleStars(rest)
	if err != nil {
		return nil, "", err
	}
	var out []string
	for _, e := range expanded {
		out = append(out, lead+e)
	}
	return out, strings.Join(notes, "; "), nil
}

// hasSingleStar reports whether p holds a '*' that is not part of "**" and
// so stays within one directory in gitignore. A segment right after a "**"
// segment does not count: "**/*.ts" reaches every depth either way.
func hasSingleStar(p string) bool {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if i > 0 && segs[i-1] == "**" {
			continue
		}
		if segmentHasSingleStar(s) {
			return true
		}
	}
	return false
}

func segmentHasSingleStar(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '*' {
			continue
		}
		j := i
		for j < len(p) && p[j] == '*' {
			j++
		}
		if j-i == 1 {
			return true
		}
		i = j
	}
	return false
}

// widenSpecials replaces "?", "[...]" and "\x" with "*": every string one
// matched, the "*" matches too.
func widenSpecials(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '?':
			b.WriteByte('*')
		case '\\':
			b.WriteByte('*')
			i++ // the escaped character
		case '[':
			if j := strings.IndexByte(p[i:], ']'); j > 0 {
				i += j
			}
			b.WriteByte('*')
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// expandDoubleStars turns gitignore's "**" into guard patterns that match
// exactly what it does: "a/**/b" is "a/b" or "a/*/b" (guard's * crosses
// '/'), a leading "**/" is nothing or "*/", a trailing "/**" is "/*". The
// marker "{top}" (a pattern that matches at any depth) expands the same
// way as a leading "**/".
func expandDoubleStars(p string) ([]string, error) {
	p = strings.Replace(p, "{top}", "**/", 1)
	if strings.HasSuffix(p, "/**") {
		p = strings.TrimSuffix(p, "**") + "*"
	}
	segs := strings.Split(p, "/")
	n := 0
	for _, s := range segs[:len(segs)-1] {
		if s == "**" {
			n++
		}
	}
	if n > maxDoubleStars {
		return nil, fmt.Errorf("more than %d **/ in one pattern", maxDoubleStars)
	}
	outs := []string{""}
	for i, s := range segs {
		last := i == len(segs)-1
		if s == "**" && !last {
			var next []string
			for _, o := range outs {
				next = append(next, o, o+"*/")
			}
			outs = next
			continue
		}
		for strings.Contains(s, "**") {
			s = strings.ReplaceAll(s, "**", "*")
		}
		if !last {
			s += "/"
		}
		for k := range outs {
			outs[k] += s
		}
	}
	return dedupe(outs), nil
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// stripComments removes // and /* */ comments outside strings, which some
// people write in settings.json; what is left must be plain JSON.
func stripComments(data []byte) []byte {
	var out bytes.Buffer
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			out.WriteByte(c)
			if c == '\\' && i+1 < len(data) {
				i++
				out.WriteByte(data[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out.WriteByte(c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out.Bytes() // an unclosed comment: the JSON decoder says what is wrong
			}
			i += end + 3
			out.WriteByte(' ')
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}
