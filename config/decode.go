package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/guard-sh/guard/rule"
)

// layer is what one settings file says, checked and with the line of each
// setting, before the sources are merged. A nil pointer is a setting the file
// leaves alone.
type layer struct {
	source rule.Source
	file   string
	exists bool
	data   []byte

	mode          *val[Mode]
	autoApprove   *val[bool]
	disableBypass *val[bool]
	rules         []rule.Rule // deny, ask and allow, each in file order
	readOnly      *val[bool]
	reviewer      *Reviewer
	reviewerLine  int

	network      *val[bool] // true: "on"
	networkFor   []rule.Rule
	tcp          []val[uint16]
	writes       []pathEntry
	sockets      []pathEntry
	shareCaches  *val[bool]
	envDeny      *val[[]val[string]]
	envKeep      []val[string]
	autoCommands []rule.Rule
	unattended   []rule.Rule
	hooks        []Hook
	diffLines    *val[int]

	warnings []Warning
}

// val is a setting's value and the line it is on.
type val[T any] struct {
	v    T
	line int
}

// pathEntry is an entry of allow_write or allow_unix_sockets as written.
type pathEntry struct {
	raw       string
	dangerous bool
	line      int
}

// Limits on values, so that a typo cannot make guard wait an hour.
const (
	defaultReviewerTimeout = 2 * time.Minute
	defaultHookTimeout     = time.Minute
	maxTimeout             = time.Hour
	defaultDiffLines       = 120
	maxDiffLines           = 100000
)

type decoder struct {
	l   *layer
	lay *tlayout
}

// decodeLayer parses one settings file's text. A file that does not parse,
// or a setting of the wrong type or an impossible value, is a *FileError;
// unknown keys, invalid rules and lint notes are warnings in the layer.
func decodeLayer(source rule.Source, file string, data []byte) (*layer, error) {
	l := &layer{source: source, file: file, exists: true, data: data}
	m, err := decodeTOML(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{l: l, lay: layout(string(data))}
	if err := d.root(m); err != nil {
		return nil, err
	}
	sort.SliceStable(l.warnings, func(i, j int) bool { return l.warnings[i].Line < l.warnings[j].Line })
	return l, nil
}

// decodeTOML decodes a settings file's text into maps, refusing text
// shaped to make the decoder slow (see [checkShape]).
func decodeTOML(file string, data []byte) (map[string]any, error) {
	src := string(data)
	if off, why := checkShape(src); off >= 0 {
		line, col := textPos(src, off)
		return nil, &FileError{File: file, Line: line, Col: col, Msg: why}
	}
	m := map[string]any{}
	if _, err := toml.Decode(src, &m); err != nil {
		return nil, parseError(file, data, err)
	}
	return m, nil
}

func parseError(file string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// The decoder's line and column can be off by one line at a
		// newline; its byte offset is not.
		line, col := pe.Position.Line, pe.Position.Col
		if pe.Position.Start > 0 || line <= 1 {
			line, col = textPos(string(data), pe.Position.Start)
		}
		return &FileError{File: file, Line: line, Col: col, Msg: "invalid TOML: " + pe.Message}
	}
	return &FileError{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
}

// fail is a *FileError at p's value.
func (d *decoder) fail(p tpath, format string, args ...any) error {
	line, col := d.lay.valuePos(p)
	return &FileError{File: d.l.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) warn(p tpath, format string, args ...any) {
	d.l.warnings = append(d.l.warnings, Warning{File: d.l.file, Line: d.lay.line(p), Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) typeError(p tpath, want string, got any) error {
	return d.fail(p, "%s: want %s, not %s", p, want, typeName(got))
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// table checks that v is a table and warns about the keys schema does not
// know in it.
func (d *decoder) table(v any, p tpath, name string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, d.typeError(p, "a table", v)
	}
	d.unknownKeys(m, p, name)
	return m, nil
}

func (d *decoder) unknownKeys(m map[string]any, p tpath, name string) {
	known := map[string]bool{}
	for _, k := range schema[name] {
		known[k] = true
	}
	var unknown []string
	for k := range m {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		return d.lay.line(p.key(unknown[i])) < d.lay.line(p.key(unknown[j]))
	})
	for _, k := range unknown {
		msg := fmt.Sprintf("unknown key %s in %s; guard ignores it", quoteKey(k), tableName(strings.TrimSuffix(name, "[]")))
		if name == "" {
			msg = fmt.Sprintf("unknown table or key %s; guard ignores it", quoteKey(k))
		}
		if hint := suggest(name, k); hint != "" {
			msg += " (" + hint + ")"
		}
		d.warn(p.key(k), "%s", msg)
	}
}

func (d *decoder) root(m map[string]any) error {
	d.unknownKeys(m, "", "")
	steps := []struct {
		name string
		fn   func(map[string]any, tpath) error
	}{
		{"guard", d.guard},
		{"permissions", d.permissions},
		{"sandbox", d.sandbox},
		{"tools", d.tools},
		{"unattended", d.unattendedTable},
		{"hooks", d.hooksTable},
		{"ui", d.ui},
	}
	for _, s := range steps {
		v, ok := m[s.name]
		if !ok {
			continue
		}
		p := tpath("").key(s.name)
		t, err := d.table(v, p, s.name)
		if err != nil {
			return err
		}
		if err := s.fn(t, p); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) guard(m map[string]any, p tpath) error {
	if v, ok := m["permission_mode"]; ok {
		kp := p.key("permission_mode")
		s, ok := v.(string)
		if !ok {
			return d.typeError(kp, "a string", v)
		}
		mode, err := ParseMode(s)
		if err != nil {
			return d.fail(kp, "%s: %v", kp, err)
		}
		d.l.mode = &val[Mode]{mode, d.lay.line(kp)}
	}
	var err error
	if d.l.autoApprove, err = d.boolean(m, p, "auto_approve"); err != nil {
		return err
	}
	d.l.disableBypass, err = d.boolean(m, p, "disable_bypass")
	return err
}

func (d *decoder) boolean(m map[string]any, p tpath, key string) (*val[bool], error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	kp := p.key(key)
	b, ok := v.(bool)
	if !ok {
		return nil, d.typeError(kp, "true or false", v)
	}
	return &val[bool]{b, d.lay.line(kp)}, nil
}

// strings returns the elements of an array of strings, each with its line.
func (d *decoder) strings(m map[string]any, p tpath, key string) ([]val[string], bool, error) {
	v, ok := m[key]
	if !ok {
		return nil, false, nil
	}
	kp := p.key(key)
	arr, ok := v.([]any)
	if !ok {
		return nil, true, d.typeError(kp, "an array of strings", v)
	}
	out := make([]val[string], 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, true, d.typeError(kp.index(i), "a string", e)
		}
		out = append(out, val[string]{s, d.elemLine(kp, i)})
	}
	return out, true, nil
}

// elemLine is the line of element i of the array at p, or of the key when
// the layout lost track of it.
func (d *decoder) elemLine(p tpath, i int) int {
	if n := d.lay.line(p.index(i)); n > 0 {
		return n
	}
	return d.lay.line(p)
}

func (d *decoder) permissions(m map[string]any, p tpath) error {
	for _, a := range rule.Actions {
		entries, _, err := d.strings(m, p, string(a))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if r, ok := d.rule(a, e, false, string(a)); ok {
				d.l.rules = append(d.l.rules, r)
			}
		}
	}
	var err error
	if d.l.readOnly, err = d.boolean(m, p, "read_only_defaults"); err != nil {
		return err
	}
	if v, ok := m["auto"]; ok {
		ap := p.key("auto")
		t, err := d.table(v, ap, "permissions.auto")
		if err != nil {
			return err
		}
		rv := &Reviewer{Timeout: defaultReviewerTimeout, From: d.where(ap)}
		if rv.Command, err = d.command(t, ap); err != nil {
			return err
		}
		if rv.Timeout, err = d.duration(t, ap, defaultReviewerTimeout); err != nil {
			return err
		}
		if ev, ok := t["environment"]; ok {
			s, ok := ev.(string)
			if !ok {
				return d.typeError(ap.key("environment"), "a string", ev)
			}
			rv.Environment = s
		}
		if rv.Command == nil {
			d.warn(ap, "[permissions.auto] has no command: auto mode will ask the user instead")
		}
		d.l.reviewer, d.l.reviewerLine = rv, d.lay.line(ap)
	}
	return nil
}

// rule parses a rule of the file; an invalid one is dropped with a warning.
// commands: the entry is a command pattern (auto_approve_commands,
// allow_network_for), where "make *" means shell(make *).
func (d *decoder) rule(a rule.Action, e val[string], commands bool, key string) (rule.Rule, bool) {
	var r rule.Rule
	var err error
	if commands {
		r, err = commandRule(a, e.v)
	} else {
		r, err = rule.New(a, e.v)
	}
	if err != nil {
		d.l.warnings = append(d.l.warnings, Warning{File: d.l.file, Line: e.line,
			Msg: fmt.Sprintf("invalid %s rule %q dropped: %v", key, e.v, err)})
		return rule.Rule{}, false
	}
	r.Source, r.File, r.Line = d.l.source, d.l.file, e.line
	for _, note := range rule.Lint(r) {
		d.l.warnings = append(d.l.warnings, Warning{File: d.l.file, Line: e.line, Msg: note})
	}
	return r, true
}

// commandRule reads an entry that names commands: a shell pattern ("make *")
// or a shell rule in any spelling ("shell(make *)", "Bash(make:*)").
func commandRule(a rule.Action, text string) (rule.Rule, error) {
	if strings.HasSuffix(strings.TrimSpace(text), ")") {
		if r, err := rule.New(a, text); err == nil {
			if r.Kind != rule.Shell {
				return rule.Rule{}, fmt.Errorf("%s is a %s rule; this list takes commands (like \"make *\" or \"shell(make *)\")", r, r.Kind)
			}
			return r, nil
		}
	}
	r, err := rule.New(a, "shell("+text+")")
	if err != nil {
		return rule.Rule{}, err
	}
	r.Written = text
	return r, nil
}

// command reads a program to run: an array (the program and its arguments)
// or a string, which /bin/sh runs.
func (d *decoder) command(t map[string]any, p tpath) ([]string, error) {
	v, ok := t["command"]
	if !ok {
		return nil, nil
	}
	kp := p.key("command")
	switch c := v.(type) {
	case string:
		if strings.TrimSpace(c) == "" {
			return nil, d.fail(kp, "%s: empty command", kp)
		}
		return []string{"/bin/sh", "-c", c}, nil
	case []any:
		var argv []string
		for i, e := range c {
			s, ok := e.(string)
			if !ok {
				return nil, d.typeError(kp.index(i), "a string", e)
			}
			argv = append(argv, s)
		}
		if len(argv) == 0 || argv[0] == "" {
			return nil, d.fail(kp, "%s: empty command; write the program and its arguments, like [\"my-reviewer\", \"--strict\"]", kp)
		}
		return argv, nil
	}
	return nil, d.typeError(kp, "an array of strings (the program and its arguments) or a string", v)
}

func (d *decoder) duration(t map[string]any, p tpath, def time.Duration) (time.Duration, error) {
	v, ok := t["timeout"]
	if !ok {
		return def, nil
	}
	kp := p.key("timeout")
	s, ok := v.(string)
	if !ok {
		return 0, d.typeError(kp, `a duration like "30s" or "2m"`, v)
	}
	dur, err := time.ParseDuration(s)
	if err != nil || dur <= 0 || dur > maxTimeout {
		return 0, d.fail(kp, "%s: %q is not a duration between 1ns and %v (write \"30s\" or \"2m\")", kp, s, maxTimeout)
	}
	return dur, nil
}

func (d *decoder) where(p tpath) string {
	if n := d.lay.line(p); n > 0 {
		return fmt.Sprintf("%s:%d", d.l.file, n)
	}
	return d.l.file
}

func (d *decoder) sandbox(m map[string]any, p tpath) error {
	if v, ok := m["network"]; ok {
		kp := p.key("network")
		s, isStr := v.(string)
		switch {
		case isStr && s == "on":
			d.l.network = &val[bool]{true, d.lay.line(kp)}
		case isStr && s == "off":
			d.l.network = &val[bool]{false, d.lay.line(kp)}
		case isStr:
			return d.fail(kp, "%s: %q: want \"on\" or \"off\"", kp, s)
		default:
			return d.fail(kp, "%s: want \"on\" or \"off\", not %s", kp, typeName(v))
		}
	}
	entries, _, err := d.strings(m, p, "allow_network_for")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if r, ok := d.rule(rule.Allow, e, true, "allow_network_for"); ok {
			d.l.networkFor = append(d.l.networkFor, r)
		}
	}
	if v, ok := m["allow_tcp_connect"]; ok {
		kp := p.key("allow_tcp_connect")
		arr, ok := v.([]any)
		if !ok {
			return d.typeError(kp, "an array of port numbers", v)
		}
		for i, e := range arr {
			n, ok := e.(int64)
			if !ok {
				return d.typeError(kp.index(i), "a port number", e)
			}
			if n < 1 || n > 65535 {
				return d.fail(kp.index(i), "%s: port %d is not between 1 and 65535", kp, n)
			}
			d.l.tcp = append(d.l.tcp, val[uint16]{uint16(n), d.elemLine(kp, i)})
		}
	}
	if d.l.writes, err = d.paths(m, p, "allow_write"); err != nil {
		return err
	}
	if d.l.sockets, err = d.paths(m, p, "allow_unix_sockets"); err != nil {
		return err
	}
	if d.l.shareCaches, err = d.boolean(m, p, "share_caches"); err != nil {
		return err
	}
	deny, set, err := d.strings(m, p, "env_deny")
	if err != nil {
		return err
	}
	if set {
		var ok []val[string]
		for _, e := range deny {
			if !validEnvGlob(e.v, true) {
				d.l.warnings = append(d.l.warnings, Warning{File: d.l.file, Line: e.line,
					Msg: fmt.Sprintf("env_deny entry %q dropped: want a variable name, * matching any run of characters", e.v)})
				continue
			}
			ok = append(ok, e)
		}
		d.l.envDeny = &val[[]val[string]]{ok, d.lay.line(p.key("env_deny"))}
	}
	keep, _, err := d.strings(m, p, "env_keep")
	if err != nil {
		return err
	}
	for _, e := range keep {
		if !validEnvGlob(e.v, false) {
			d.l.warnings = append(d.l.warnings, Warning{File: d.l.file, Line: e.line,
				Msg: fmt.Sprintf("env_keep entry %q dropped: want a variable's exact name (no *: keeping is done by name)", e.v)})
			continue
		}
		d.l.envKeep = append(d.l.envKeep, e)
	}
	return nil
}

func validEnvGlob(s string, star bool) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || star && c == '*') {
			return false
		}
	}
	return true
}

// paths reads allow_write or allow_unix_sockets: each entry a path or a
// table {path = "...", dangerous = true}.
func (d *decoder) paths(m map[string]any, p tpath, key string) ([]pathEntry, error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	kp := p.key(key)
	arr, ok := v.([]any)
	if !ok {
		return nil, d.typeError(kp, "an array of paths", v)
	}
	var out []pathEntry
	for i, e := range arr {
		ep := kp.index(i)
		line := d.elemLine(kp, i)
		switch x := e.(type) {
		case string:
			if x == "" {
				return nil, d.fail(ep, "%s: empty path", ep)
			}
			out = append(out, pathEntry{raw: x, line: line})
		case map[string]any:
			d.unknownKeys(x, ep, "sandbox.path")
			pv, ok := x["path"]
			if !ok {
				return nil, d.fail(ep, "%s: a table entry needs path = \"...\"", ep)
			}
			ps, ok := pv.(string)
			if !ok {
				return nil, d.typeError(ep.key("path"), "a string", pv)
			}
			if ps == "" {
				return nil, d.fail(ep, "%s: empty path", ep)
			}
			dg, err := d.boolean(x, ep, "dangerous")
			if err != nil {
				return nil, err
			}
			out = append(out, pathEntry{raw: ps, dangerous: dg != nil && dg.v, line: line})
		default:
			return nil, d.typeError(ep, `a path or {path = "...", dangerous = true}`, e)
		}
	}
	return out, nil
}

func (d *decoder) tools(m map[string]any, p tpath) error {
	entries, _, err := d.strings(m, p, "auto_approve_commands")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if r, ok := d.rule(rule.Allow, e, true, "auto_approve_commands"); ok {
			d.l.autoCommands = append(d.l.autoCommands, r)
		}
	}
	return nil
}

func (d *decoder) unattendedTable(m map[string]any, p tpath) error {
	entries, _, err := d.strings(m, p, "permissions")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if r, ok := d.rule(rule.Allow, e, false, "unattended permissions"); ok {
			d.l.unattended = append(d.l.unattended, r)
		}
	}
	return nil
}

func (d *decoder) hooksTable(m map[string]any, p tpath) error {
	v, ok := m["pre_tool_use"]
	if !ok {
		return nil
	}
	kp := p.key("pre_tool_use")
	var list []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		list = x
	case []any:
		for i, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				return d.typeError(kp.index(i), "a table", e)
			}
			list = append(list, t)
		}
	default:
		return d.typeError(kp, "an array of tables ([[hooks.pre_tool_use]])", v)
	}
	for i, t := range list {
		ep := kp.index(i)
		d.unknownKeys(t, ep, "hooks.pre_tool_use[]")
		argv, err := d.command(t, ep)
		if err != nil {
			return err
		}
		if argv == nil {
			return d.fail(ep, "%s: a hook needs a command", ep)
		}
		timeout, err := d.duration(t, ep, defaultHookTimeout)
		if err != nil {
			return err
		}
		d.l.hooks = append(d.l.hooks, Hook{Command: argv, Timeout: timeout, From: d.where(ep)})
	}
	return nil
}

func (d *decoder) ui(m map[string]any, p tpath) error {
	v, ok := m["diff_lines"]
	if !ok {
		return nil
	}
	kp := p.key("diff_lines")
	n, ok := v.(int64)
	if !ok {
		return d.typeError(kp, "an integer", v)
	}
	if n < 0 || n > maxDiffLines {
		return d.fail(kp, "%s: %d is not between 0 and %d", kp, n, maxDiffLines)
	}
	d.l.diffLines = &val[int]{int(n), d.lay.line(kp)}
	return nil
}
