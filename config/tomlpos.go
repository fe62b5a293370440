package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// BurntSushi/toml decodes values but keeps the position of keys to itself.
// Warnings must name the line of the key they are about, every rule keeps its
// file and line, and in-place edits need byte offsets. So, once the decoder
// has accepted a file, layout scans the same text again for where each key,
// value and array element is. It trusts the decoder on validity: on text the
// decoder refused it still terminates, but its answers mean nothing.

// tpath names a key the way layout and the settings walker both build it:
// each key segment is "\x00"+name and each array index "\x01"+index, so that
// "hooks.pre_tool_use[1].command" and a quoted key "a.b" cannot collide.
type tpath string

func (p tpath) key(name string) tpath { return p + "\x00" + tpath(name) }
func (p tpath) index(i int) tpath     { return p + "\x01" + tpath(strconv.Itoa(i)) }

// String is the path as a user would write it: permissions.allow[2].
func (p tpath) String() string {
	var b strings.Builder
	for _, seg := range splitPath(p) {
		switch seg[0] {
		case 0:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(quoteKey(seg[1:]))
		case 1:
			b.WriteString("[" + seg[1:] + "]")
		}
	}
	return b.String()
}

// last is the final key name of p ("allow" for permissions.allow).
func (p tpath) last() string {
	segs := splitPath(p)
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i][0] == 0 {
			return segs[i][1:]
		}
	}
	return ""
}

func splitPath(p tpath) []string {
	var out []string
	s := string(p)
	for len(s) > 0 {
		j := strings.IndexAny(s[1:], "\x00\x01")
		if j < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:j+1])
		s = s[j+1:]
	}
	return out
}

func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(k)
		}
	}
	return k
}

// Value kinds in a layout.
const (
	valOther  = 'o' // numbers, booleans, dates
	valString = 's'
	valArray  = 'a'
	valTable  = 't' // an inline table
)

// tval is where a value is: [start, end) in the text, and for arrays their
// elements.
type tval struct {
	kind       byte
	start, end int
	elems      []*tval
	close      int // arrays and inline tables: offset of the closing bracket
}

// tkey is a key = value line (or an inline table's field).
type tkey struct {
	path     tpath
	table    *ttable // the header it sits under; nil inside an inline table
	keyStart int
	keyEnd   int
	rel      []string // the key as written, relative to its table
	val      *tval
}

// ttable is a [header] or [[header]], or the root table (header offsets -1).
type ttable struct {
	path       tpath
	names      []string
	array      bool
	start, end int // the header, from '[' to after ']' or ']]'
	keys       []*tkey
}

// tlayout is the layout of one TOML text.
type tlayout struct {
	src    string
	starts []int // offset of each line's start
	tables []*ttable
	keys   []*tkey
	// first maps a path to the first offset where it appears: a key, a
	// header, or a header or dotted key that defines it implicitly.
	first map[tpath]int
	vals  map[tpath]*tval
}

type scanner struct {
	s   string
	i   int
	out *tlayout
	// arrays counts the [[tables]] seen at each resolved path.
	arrays map[tpath]int
}

// layout scans src. It never fails: text it cannot follow ends the scan.
func layout(src string) *tlayout {
	l := &tlayout{src: src, first: map[tpath]int{}, vals: map[tpath]*tval{}}
	l.starts = append(l.starts, 0)
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	sc := &scanner{s: src, out: l, arrays: map[tpath]int{}}
	root := &ttable{start: -1, end: -1}
	l.tables = append(l.tables, root)
	sc.document(root)
	return l
}

// pos returns the 1-based line and column of a byte offset. Columns count
// characters, not bytes.
func (l *tlayout) pos(off int) (line, col int) {
	if off < 0 {
		return 0, 0
	}
	if off > len(l.src) {
		off = len(l.src)
	}
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return i + 1, utf8.RuneCountInString(l.src[l.starts[i]:off]) + 1
}

// textPos is the 1-based line and column of off in src.
func textPos(src string, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	ls := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:ls], "\n") + 1, utf8.RuneCountInString(src[ls:off]) + 1
}

// line returns the line where path first appears, or 0 when unknown.
func (l *tlayout) line(p tpath) int {
	if l == nil {
		return 0
	}
	off, ok := l.first[p]
	if !ok {
		return 0
	}
	line, _ := l.pos(off)
	return line
}

// valuePos returns the line and column of path's value, or of the key when
// the value is unknown.
func (l *tlayout) valuePos(p tpath) (line, col int) {
	if l == nil {
		return 0, 0
	}
	if v, ok := l.vals[p]; ok {
		return l.pos(v.start)
	}
	if off, ok := l.first[p]; ok {
		return l.pos(off)
	}
	return 0, 0
}

func (l *tlayout) note(p tpath, off int) {
	if _, ok := l.first[p]; !ok {
		l.first[p] = off
	}
}

func (sc *scanner) eof() bool { return sc.i >= len(sc.s) }

func (sc *scanner) peek(off int) byte {
	if sc.i+off < len(sc.s) {
		return sc.s[sc.i+off]
	}
	return 0
}

func (sc *scanner) skipBlank() {
	for !sc.eof() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *scanner) skipComment() {
	if sc.peek(0) == '#' {
		for !sc.eof() && sc.s[sc.i] != '\n' {
			sc.i++
		}
	}
}

// skipSpace skips blanks, newlines and comments.
func (sc *scanner) skipSpace() {
	for !sc.eof() {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.i++
		case '#':
			sc.skipComment()
		default:
			return
		}
	}
}

func (sc *scanner) document(root *ttable) {
	cur := root
	for {
		sc.skipSpace()
		if sc.eof() {
			return
		}
		start := sc.i
		if sc.s[sc.i] == '[' {
			t := sc.header()
			if t == nil {
				return
			}
			sc.out.tables = append(sc.out.tables, t)
			cur = t
		} else {
			k := sc.keyValue(cur.path, start)
			if k == nil {
				return
			}
			k.table = cur
			cur.keys = append(cur.keys, k)
		}
		sc.skipBlank()
		sc.skipComment()
		if sc.i == start {
			return // no progress: not TOML
		}
	}
}

// header reads [a.b] or [[a.b]] and resolves the path it opens.
func (sc *scanner) header() *ttable {
	start := sc.i
	array := sc.peek(1) == '['
	if array {
		sc.i += 2
	} else {
		sc.i++
	}
	sc.skipBlank()
	names, _, ok := sc.key()
	if !ok {
		return nil
	}
	sc.skipBlank()
	if array {
		if sc.peek(0) != ']' || sc.peek(1) != ']' {
			return nil
		}
		sc.i += 2
	} else {
		if sc.peek(0) != ']' {
			return nil
		}
		sc.i++
	}
	var p tpath
	for n, name := range names {
		p = p.key(name)
		last := n == len(names)-1
		switch {
		case last && array:
			sc.out.note(p, start)
			idx := sc.arrays[p]
			sc.arrays[p] = idx + 1
			p = p.index(idx)
		case sc.arrays[p] > 0:
			// A parent that is an array of tables: the header continues
			// its latest element.
			p = p.index(sc.arrays[p] - 1)
		}
		sc.out.note(p, start)
	}
	return &ttable{path: p, names: names, array: array, start: start, end: sc.i}
}

// keyValue reads key = value under the table at base.
func (sc *scanner) keyValue(base tpath, start int) *tkey {
	names, end, ok := sc.key()
	if !ok {
		return nil
	}
	sc.skipBlank()
	if sc.peek(0) != '=' {
		return nil
	}
	sc.i++
	sc.skipBlank()
	p := base
	for _, name := range names {
		p = p.key(name)
		sc.out.note(p, start)
	}
	k := &tkey{path: p, keyStart: start, keyEnd: end, rel: names}
	v := sc.value(p)
	if v == nil {
		return nil
	}
	k.val = v
	sc.out.keys = append(sc.out.keys, k)
	return k
}

// key reads a possibly dotted key; end is the offset after its last segment.
func (sc *scanner) key() (names []string, end int, ok bool) {
	for {
		sc.skipBlank()
		var name string
		switch sc.peek(0) {
		case '"':
			s, e := sc.basicString()
			if e < 0 {
				return nil, 0, false
			}
			name = unquoteBasic(s)
		case '\'':
			s, e := sc.literalString()
			if e < 0 {
				return nil, 0, false
			}
			name = s[1 : len(s)-1]
		default:
			st := sc.i
			for !sc.eof() && isBareKeyChar(sc.s[sc.i]) {
				sc.i++
			}
			if sc.i == st {
				return nil, 0, false
			}
			name = sc.s[st:sc.i]
		}
		names = append(names, name)
		end = sc.i
		sc.skipBlank()
		if sc.peek(0) != '.' {
			return names, end, true
		}
		sc.i++
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value reads the value of the key at p and records it.
func (sc *scanner) value(p tpath) *tval {
	start := sc.i
	v := &tval{start: start}
	switch c := sc.peek(0); {
	case c == '"':
		v.kind = valString
		if _, e := sc.basicString(); e < 0 {
			return nil
		}
	case c == '\'':
		v.kind = valString
		if _, e := sc.literalString(); e < 0 {
			return nil
		}
	case c == '[':
		v.kind = valArray
		sc.i++
		for n := 0; ; n++ {
			sc.skipSpace()
			if sc.eof() {
				return nil
			}
			if sc.s[sc.i] == ']' {
				v.close = sc.i
				sc.i++
				break
			}
			el := sc.value(p.index(n))
			if el == nil {
				return nil
			}
			sc.out.note(p.index(n), el.start)
			v.elems = append(v.elems, el)
			sc.skipSpace()
			if sc.peek(0) == ',' {
				sc.i++
			} else if sc.peek(0) != ']' {
				return nil
			}
		}
	case c == '{':
		v.kind = valTable
		sc.i++
		for {
			sc.skipSpace()
			if sc.eof() {
				return nil
			}
			if sc.s[sc.i] == '}' {
				v.close = sc.i
				sc.i++
				break
			}
			if sc.keyValue(p, sc.i) == nil {
				return nil
			}
			sc.skipSpace()
			if sc.peek(0) == ',' {
				sc.i++
			} else if sc.peek(0) != '}' {
				return nil
			}
		}
	default:
		v.kind = valOther
		sc.scalar()
		if sc.i == start {
			return nil
		}
	}
	v.end = sc.i
	sc.out.vals[p] = v
	return v
}

// scalar reads a number, boolean or date. A date and a time may be
// separated by a blank ("1979-05-27 07:32:00Z").
func (sc *scanner) scalar() {
	st := sc.i
	sc.word()
	w := sc.s[st:sc.i]
	if len(w) == 10 && w[4] == '-' && w[7] == '-' && sc.peek(0) == ' ' && isDigit(sc.peek(1)) && isDigit(sc.peek(2)) && sc.peek(3) == ':' {
		sc.i++
		sc.word()
	}
}

func (sc *scanner) word() {
	for !sc.eof() && !strings.ContainsRune(" \t\r\n,]}#", rune(sc.s[sc.i])) {
		sc.i++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// basicString reads "..." or """...""" and returns its source text; end is
// -1 when it does not close.
func (sc *scanner) basicString() (src string, end int) {
	return sc.quoted('"', true)
}

func (sc *scanner) literalString() (src string, end int) {
	return sc.quoted('\'', false)
}

func (sc *scanner) quoted(q byte, escapes bool) (string, int) {
	start := sc.i
	multi := sc.peek(1) == q && sc.peek(2) == q
	if multi {
		sc.i += 3
	} else {
		sc.i++
	}
	for !sc.eof() {
		c := sc.s[sc.i]
		switch {
		case escapes && c == '\\':
			sc.i += 2
			continue
		case !multi && c == '\n':
			return "", -1
		case c == q && !multi:
			sc.i++
			return sc.s[start:sc.i], sc.i
		case c == q && sc.peek(1) == q && sc.peek(2) == q:
			sc.i += 3
			// Up to two quotes may end the content just before the
			// closing three: """a"""" is `a"`.
			for n := 0; n < 2 && sc.peek(0) == q; n++ {
				sc.i++
			}
			return sc.s[start:sc.i], sc.i
		}
		sc.i++
	}
	sc.i = len(sc.s)
	return "", -1
}

// unquoteBasic decodes a one-line basic string well enough to name a key;
// an escape Go does not know leaves the text as written.
func unquoteBasic(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, `"`)
}

// Limits on the shape of a settings file. The decoder takes time that grows
// with the square of the nesting depth and of a dotted key's length; a
// hostile project file could stall guard for minutes with either. guard's
// settings need three levels and three dots.
const (
	maxNesting     = 16
	maxDotsPerLine = 32
)

// checkShape scans src once for nesting deeper than maxNesting or a line
// with more than maxDotsPerLine dots outside strings and comments. It
// returns the offset of the first excess and why, or -1. Text it cannot
// follow is left to the decoder to report.
func checkShape(src string) (int, string) {
	depth, dots := 0, 0
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '\n':
			dots = 0
			i++
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '"', '\'':
			sc := scanner{s: src, i: i}
			if _, end := sc.quoted(c, c == '"'); end < 0 {
				return -1, ""
			}
			if strings.Contains(src[i:sc.i], "\n") {
				dots = 0
			}
			i = sc.i
		case '[', '{':
			depth++
			if depth > maxNesting {
				return i, fmt.Sprintf("nested more than %d levels deep; guard's settings need three", maxNesting)
			}
			i++
		case ']', '}':
			if depth > 0 {
				depth--
			}
			i++
		case '.':
			dots++
			if dots > maxDotsPerLine {
				return i, fmt.Sprintf("more than %d dots on one line; guard's keys have at most three", maxDotsPerLine)
			}
			i++
		default:
			i++
		}
	}
	return -1, ""
}
