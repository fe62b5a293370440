package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/guard-sh/guard/rule"
)

// Edit is what an in-place edit of a settings file did.
type Edit struct {
	File    string // the file edited (symlinks resolved)
	Changed bool   // false: the file already said so, and was left alone
	Created bool   // the file did not exist before
	Line    int    // the line of the rule or setting (for a removal, where it was)
	Removed int    // RemoveRule: how many entries went (equivalent spellings count)
}

// EditOption adjusts an edit.
type EditOption func(*editOptions)

type editOptions struct {
	header string
}

// WithHeader gives the comment written at the top of the file when the
// edit creates it (the workspace's own settings name their workspace).
func WithHeader(text string) EditOption {
	return func(o *editOptions) { o.header = text }
}

// RuleNotFoundError is RemoveRule's answer for a rule the file does not
// hold. Close lists the file's rules that look like it, "action rule" each.
type RuleNotFoundError struct {
	File   string
	Action rule.Action
	Rule   string
	Close  []string
}

func (e *RuleNotFoundError) Error() string {
	msg := fmt.Sprintf("%s has no %s rule %s", e.File, e.Action, e.Rule)
	if len(e.Close) > 0 {
		msg += "; close: " + strings.Join(e.Close, ", ")
	}
	return msg
}

// AddRule adds a rule to [permissions] allow, ask or deny in file, keeping
// the rest of the file byte for byte, and creating the file, the table or
// the key when missing. An invalid rule is refused with rule.Parse's reason.
// A rule the file already holds (in any spelling) is left alone: Changed is
// false and Line says where it is.
func AddRule(file string, action rule.Action, text string, opts ...EditOption) (Edit, error) {
	r, err := rule.New(action, text)
	if err != nil {
		return Edit{}, fmt.Errorf("invalid rule %q: %v", text, err)
	}
	return editFile(file, opts, func(src string, lay *tlayout, m map[string]any, nl string) (string, Edit, error) {
		p := tpath("").key("permissions").key(string(action))
		list, err := ruleList(m, lay, p, file)
		if err != nil {
			return "", Edit{}, err
		}
		for i, e := range list {
			if sameRule(action, e, r) {
				return src, Edit{Line: lay.line(p.index(i))}, nil
			}
		}
		want := append(append([]any{}, toAny(list)...), text)
		setIn(m, []any{"permissions", string(action)}, want)
		q := QuoteTOML(text)
		var out string
		if v := lay.vals[p]; v != nil {
			out = insertElem(src, v, q, nl)
		} else {
			out = insertKey(src, lay, "permissions", string(action), "["+q+"]", nl, false)
		}
		if err := verify(out, m, file); err != nil {
			return "", Edit{}, err
		}
		return out, Edit{Changed: true, Line: layout(out).line(p.index(len(want) - 1))}, nil
	})
}

// RemoveRule removes a rule from [permissions] allow, ask or deny in file,
// in any spelling that means the same rule (Bash(git push:*) removes
// shell(git push *)), or written exactly so (to remove an invalid entry).
// A rule the file does not hold is a *RuleNotFoundError listing close ones.
func RemoveRule(file string, action rule.Action, text string) (Edit, error) {
	r, rerr := rule.New(action, text)
	if !action.Valid() {
		return Edit{}, rerr
	}
	return editFile(file, nil, func(src string, lay *tlayout, m map[string]any, nl string) (string, Edit, error) {
		p := tpath("").key("permissions").key(string(action))
		list, err := ruleList(m, lay, p, file)
		if err != nil {
			return "", Edit{}, err
		}
		var idx []int
		var keep []any
		for i, e := range list {
			if e == text || rerr == nil && sameRule(action, e, r) {
				idx = append(idx, i)
			} else {
				keep = append(keep, e)
			}
		}
		if len(idx) == 0 {
			return "", Edit{}, &RuleNotFoundError{File: file, Action: action, Rule: text, Close: closeRules(m, text)}
		}
		ed := Edit{Changed: true, Removed: len(idx), Line: lay.line(p.index(idx[0]))}
		v := lay.vals[p]
		out := src
		for i := len(idx) - 1; i >= 0; i-- {
			out = removeElem(out, v, idx[i])
		}
		if keep == nil {
			keep = []any{}
		}
		setIn(m, []any{"permissions", string(action)}, keep)
		return out, ed, verify(out, m, file)
	})
}

// SetMode sets [guard] permission_mode in file, creating what is missing and
// keeping the rest byte for byte.
func SetMode(file string, mode Mode, opts ...EditOption) (Edit, error) {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return Edit{}, err
	}
	return editFile(file, opts, func(src string, lay *tlayout, m map[string]any, nl string) (string, Edit, error) {
		p := tpath("").key("guard").key("permission_mode")
		g, _ := m["guard"].(map[string]any)
		if cur, ok := g["permission_mode"].(string); ok {
			if cm, err := ParseMode(cur); err == nil && cm == mode {
				return src, Edit{Line: lay.line(p)}, nil
			}
		}
		if _, ok := m["guard"]; ok && g == nil {
			return "", Edit{}, fmt.Errorf("%s:%d: guard is not a table; fix it by hand", file, lay.line(tpath("").key("guard")))
		}
		setIn(m, []any{"guard", "permission_mode"}, string(mode))
		q := QuoteTOML(string(mode))
		var out string
		if v := lay.vals[p]; v != nil {
			out = src[:v.start] + q + src[v.end:]
		} else {
			out = insertKey(src, lay, "guard", "permission_mode", q, nl, true)
		}
		if err := verify(out, m, file); err != nil {
			return "", Edit{}, err
		}
		return out, Edit{Changed: true, Line: layout(out).line(p)}, nil
	})
}

type editFunc func(src string, lay *tlayout, m map[string]any, nl string) (string, Edit, error)

// editFile runs a read-modify-write of file under its lock.
func editFile(file string, opts []EditOption, fn editFunc) (Edit, error) {
	var o editOptions
	for _, f := range opts {
		f(&o)
	}
	if !filepath.IsAbs(file) {
		return Edit{}, fmt.Errorf("settings file %q is not an absolute path", file)
	}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	var ed Edit
	err := withLock(file, func() error {
		data, exists, err := readSettings(file)
		if err != nil {
			return err
		}
		src := string(data)
		m, err := decodeTOML(file, data)
		if err != nil {
			fe := err.(*FileError)
			fe.Msg += "; fix the file before guard edits it"
			return fe
		}
		nl := "\n"
		if strings.Contains(src, "\r\n") {
			nl = "\r\n"
		}
		if !exists && o.header != "" {
			src = commentBlock(o.header, nl) + nl
		}
		out, e, err := fn(src, layout(src), m, nl)
		if err != nil {
			return err
		}
		e.File = file
		ed = e
		if !e.Changed {
			return nil
		}
		ed.Created = !exists
		if strings.TrimSpace(strings.ReplaceAll(out, nl, "\n")) != "" && !strings.HasSuffix(out, "\n") {
			out += nl
		}
		return writeAtomic(file, []byte(out), 0o600, true)
	})
	if err != nil {
		var fe *FileError
		var nf *RuleNotFoundError
		if errors.As(err, &fe) || errors.As(err, &nf) || errors.Is(err, errEdit) {
			return Edit{}, err
		}
		return Edit{}, fmt.Errorf("editing %s: %w", file, unwrapFS(err))
	}
	return ed, nil
}

func unwrapFS(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// errEdit marks an edit guard refused to make because the result would not
// say exactly what was asked.
var errEdit = errors.New("cannot edit in place")

// verify decodes the edited text and checks that it says exactly want: the
// old settings with the one change. An edit that would change anything
// else (a layout guard misread) is refused, never written.
func verify(out string, want map[string]any, file string) error {
	got := map[string]any{}
	if _, err := toml.Decode(out, &got); err != nil || !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%w: %s is laid out in a way guard cannot edit safely; make the change by hand", errEdit, file)
	}
	return nil
}

// ruleList returns [permissions] ACTION as strings.
func ruleList(m map[string]any, lay *tlayout, p tpath, file string) ([]string, error) {
	perms, ok := m["permissions"]
	if !ok {
		return nil, nil
	}
	pm, ok := perms.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s:%d: permissions is not a table; fix it by hand", file, lay.line(tpath("").key("permissions")))
	}
	v, ok := pm[p.last()]
	if !ok {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s:%d: [permissions] %s is not an array; fix it by hand", file, lay.line(p), p.last())
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s:%d: [permissions] %s holds %s; fix it by hand", file, lay.line(p.index(i)), p.last(), typeName(e))
		}
		out[i] = s
	}
	return out, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func setIn(m map[string]any, path []any, v any) {
	for _, k := range path[:len(path)-1] {
		sub, ok := m[k.(string)].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k.(string)] = sub
		}
		m = sub
	}
	m[path[len(path)-1].(string)] = v
}

// sameRule reports whether the written entry e means rule r.
func sameRule(a rule.Action, e string, r rule.Rule) bool {
	if e == r.Written {
		return true
	}
	er, err := rule.New(a, e)
	return err == nil && er.Kind == r.Kind && er.Bare == r.Bare && er.Pattern == r.Pattern
}

// closeRules lists the rules of a file that look like text, as "action rule".
func closeRules(m map[string]any, text string) []string {
	pm, _ := m["permissions"].(map[string]any)
	type cand struct {
		s string
		d int
	}
	var cs []cand
	for _, a := range rule.Actions {
		arr, _ := pm[string(a)].([]any)
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				continue
			}
			d := editDistance(s, text)
			if r, err := rule.New(a, text); err == nil {
				if er, err := rule.New(a, s); err == nil {
					d = min(d, editDistance(er.String(), r.String()))
				}
			}
			if d <= max(3, len(text)/4) || strings.Contains(s, text) || strings.Contains(text, s) {
				cs = append(cs, cand{string(a) + " " + s, d})
			}
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i, c := range cs {
		if i == 5 {
			break
		}
		out = append(out, c.s)
	}
	return out
}

// QuoteTOML writes s as a TOML string: basic quotes unless s holds a quote
// or a backslash, then literal quotes, and escapes as a last resort. Every
// settings text guard writes (guard rules add, guard init, the presets)
// quotes with it.
func QuoteTOML(s string) string {
	if !strings.ContainsAny(s, "\"\\") && !hasControl(s) {
		return `"` + s + `"`
	}
	if !strings.ContainsAny(s, "'") && !hasControl(s) {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// commentBlock turns text into TOML comment lines. Control characters
// (a newline in a hostile directory name) cannot end the comment early.
func commentBlock(text, nl string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
				return '?'
			}
			return r
		}, line)
		b.WriteString("# " + line + nl)
	}
	return b.String()
}

func lineStart(src string, off int) int {
	return strings.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd is the offset of the newline ending off's line, or len(src).
func lineEnd(src string, off int) int {
	if i := strings.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

func indentOf(src string, off int) string {
	ls := lineStart(src, off)
	i := ls
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return src[ls:i]
}

func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

// skipBlanks moves past blanks from off.
func skipBlanks(src string, off int) int {
	for off < len(src) && (src[off] == ' ' || src[off] == '\t') {
		off++
	}
	return off
}

// restIsComment reports whether what follows off on its line is only
// blanks and maybe a comment.
func restIsComment(src string, off int) bool {
	off = skipBlanks(src, off)
	return off >= len(src) || src[off] == '\n' || src[off] == '\r' || src[off] == '#'
}

// insertElem adds the quoted q as the last element of array v, following
// the array's layout: one element a line, or all on one.
func insertElem(src string, v *tval, q, nl string) string {
	multi := strings.Contains(src[v.start:v.end], "\n")
	if len(v.elems) == 0 {
		if multi {
			ls := lineStart(src, v.close)
			if isBlank(src[ls:v.close]) {
				return src[:ls] + indentOf(src, v.start) + "    " + q + "," + nl + src[ls:]
			}
		}
		return src[:v.close] + q + src[v.close:]
	}
	last := v.elems[len(v.elems)-1]
	after := skipSpaceComments(src, last.end)
	trailing := after < len(src) && src[after] == ','
	if !multi {
		return src[:last.end] + ", " + q + src[last.end:]
	}
	p := last.end
	if trailing {
		p = after + 1
	}
	comma := ""
	if trailing {
		comma = ","
	}
	indent := indentOf(src, last.start)
	if restIsComment(src, p) {
		le := lineEnd(src, p)
		if le >= len(src) {
			return src
		}
		out := src[:le+1] + indent + q + comma + nl + src[le+1:]
		if !trailing {
			out = out[:last.end] + "," + out[last.end:]
		}
		return out
	}
	// Something follows on the line (the closing bracket): the new
	// element goes on a line of its own before it.
	pre := ","
	if trailing {
		pre = ""
	}
	return src[:p] + pre + nl + indent + q + comma + src[p:]
}

// skipSpaceComments skips blanks, newlines and comments.
func skipSpaceComments(src string, off int) int {
	for off < len(src) {
		switch src[off] {
		case ' ', '\t', '\r', '\n':
			off++
		case '#':
			off = lineEnd(src, off)
		default:
			return off
		}
	}
	return off
}

// removeElem removes element i of array v: its whole line when it has one
// to itself, else the element and one comma.
func removeElem(src string, v *tval, i int) string {
	e := v.elems[i]
	ls := lineStart(src, e.start)
	j := skipBlanks(src, e.end)
	if j < len(src) && src[j] == ',' {
		j++
	}
	if isBlank(src[ls:e.start]) && ls > v.start && restIsComment(src, j) {
		le := lineEnd(src, j)
		if le < len(src) {
			le++
		}
		return src[:ls] + src[le:]
	}
	switch {
	case i+1 < len(v.elems):
		return src[:e.start] + src[v.elems[i+1].start:]
	case i > 0:
		return src[:v.elems[i-1].end] + src[e.end:]
	}
	end := e.end
	if k := skipBlanks(src, end); k < len(src) && src[k] == ',' {
		end = k + 1
	}
	return src[:e.start] + src[end:]
}

// insertKey writes `key = value` into the top-level table name: after the
// table's last key, or into its inline table, or beside its dotted keys,
// or in a new [name] table. A new table goes before the first of its
// sub-tables, else (top) before the first table of the file, else at the end.
func insertKey(src string, lay *tlayout, name, key, value, nl string, top bool) string {
	tp := tpath("").key(name)
	line := quoteKey(key) + " = " + value
	for _, t := range lay.tables {
		if t.path != tp || t.array {
			continue
		}
		at := t.end
		indent := ""
		if n := len(t.keys); n > 0 {
			at = t.keys[n-1].val.end
			indent = indentOf(src, t.keys[n-1].keyStart)
		}
		return insertLineAfter(src, at, indent+line, nl)
	}
	if v := lay.vals[tp]; v != nil && v.kind == valTable {
		p := v.close
		for p > v.start+1 && (src[p-1] == ' ' || src[p-1] == '\t') {
			p--
		}
		sep := ""
		if !isBlank(src[v.start+1 : p]) {
			sep = ", "
		}
		return src[:p] + sep + line + src[p:]
	}
	for i := len(lay.keys) - 1; i >= 0; i-- {
		k := lay.keys[i]
		if k.table != nil && k.table.path == "" && len(k.rel) >= 2 && k.rel[0] == name {
			return insertLineAfter(src, k.val.end, indentOf(src, k.keyStart)+quoteKey(name)+"."+line, nl)
		}
	}
	block := "[" + quoteKey(name) + "]" + nl + line + nl
	for _, t := range lay.tables[1:] {
		sub := strings.HasPrefix(string(t.path), string(tp)+"\x00") || strings.HasPrefix(string(t.path), string(tp)+"\x01")
		if sub || top {
			at := attachedComments(src, lineStart(src, t.start))
			return src[:at] + block + nl + src[at:]
		}
	}
	if strings.TrimSpace(src) == "" {
		return src + block
	}
	if !strings.HasSuffix(src, "\n") {
		src += nl
	}
	if !strings.HasSuffix(src, nl+nl) {
		src += nl
	}
	return src + block
}

// insertLineAfter puts text on a new line after the line holding off.
func insertLineAfter(src string, off int, text, nl string) string {
	le := lineEnd(src, off)
	if le >= len(src) {
		if !strings.HasSuffix(src, "\n") {
			return src + nl + text + nl
		}
		return src + text + nl
	}
	return src[:le+1] + text + nl + src[le+1:]
}

// attachedComments moves a header's line start up over the comment lines
// directly above it, which describe that table.
func attachedComments(src string, ls int) int {
	for ls > 0 {
		prev := lineStart(src, ls-1)
		t := strings.TrimSpace(src[prev:ls])
		if !strings.HasPrefix(t, "#") {
			break
		}
		ls = prev
	}
	return ls
}
