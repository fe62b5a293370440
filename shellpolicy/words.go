package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// Why a command's words cannot be known before it runs, beyond the unknown
// spans themselves: constructs with which bash runs code that is not written
// in the command.
const (
	whyArithVar = "bash evaluates a variable's value as arithmetic here, and a value like a[$(cmd)] runs cmd"
	whyIndirect = "${!name} expands the variable whose name another variable holds, and a name like a[$(cmd)] runs cmd"
	whyPrompt   = "${x@P} expands prompt escapes, which run command substitutions in the variable's value"
)

// wordBuilder accumulates the spans of one word.
type wordBuilder struct {
	spans   rule.Text
	cur     strings.Builder // the literal run being built
	started bool            // some text has been added
	split   bool
	tilde   bool // the word begins with ~ meaning the user's home
}

func (b *wordBuilder) lit(s string) {
	b.started = true
	b.cur.WriteString(s)
}

func (b *wordBuilder) flush() {
	if b.cur.Len() > 0 {
		b.spans = append(b.spans, rule.Span{Lit: b.cur.String()})
		b.cur.Reset()
	}
}

func (b *wordBuilder) unknown(src string) {
	b.started = true
	b.flush()
	if n := len(b.spans); n > 0 && b.spans[n-1].Unknown {
		b.spans[n-1].Lit += src
		return
	}
	b.spans = append(b.spans, rule.Span{Lit: src, Unknown: true})
}

func (b *wordBuilder) word() Word {
	b.flush()
	if len(b.spans) == 0 {
		return Word{Text: rule.Known(""), Split: b.split}
	}
	return Word{Text: b.spans, Split: b.split, tildeHome: b.tilde}
}

// plainWord returns the value of a word that is plain unquoted text with
// nothing to resolve: no escapes, globs, ~ or braces.
func plainWord(x *syntax.Word) (string, bool) {
	if l, ok := plainLit(x); ok {
		return l.Value, true
	}
	return "", false
}

// plainLit is plainWord's literal.
func plainLit(x *syntax.Word) (*syntax.Lit, bool) {
	if len(x.Parts) != 1 {
		return nil, false
	}
	l, ok := x.Parts[0].(*syntax.Lit)
	if !ok || hasLitBytes(l.Value, litResolve|litBrace) {
		return nil, false
	}
	return l, true
}

// The bytes of unquoted text that make it more than its own value.
const (
	litResolve = 1 << iota // \ ~ * ? [ : an escape, a tilde prefix or a glob
	litBrace               // { : a brace expansion may begin
)

// litBytes classes each byte (all ASCII: the bytes of a multi-byte UTF-8
// character never match, as they never match in strings.ContainsAny).
var litBytes = [256]uint8{'\\': litResolve, '~': litResolve, '*': litResolve, '?': litResolve, '[': litResolve, '{': litBrace}

// hasLitBytes reports whether s holds a byte of the classes in mask.
func hasLitBytes(s string, mask uint8) bool {
	for i := 0; i < len(s); i++ {
		if litBytes[s[i]]&mask != 0 {
			return true
		}
	}
	return false
}

// quickLiteral returns the value of a word made only of parts whose value is
// their text, and which therefore needs neither guard's reading nor the
// shell library's expansion: unquoted text with nothing to resolve (see
// plainWord), '...', and "..." of text without backslashes. Its value is
// the parts' text joined. (FuzzQuickLiteral holds it to the library's
// expansion.) It marks the quoted text, as renderWord does.
func quickLiteral(x *syntax.Word, f *frame) (string, bool) {
	for _, part := range x.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if hasLitBytes(p.Value, litResolve|litBrace) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, in := range p.Parts {
				if lit, ok := in.(*syntax.Lit); !ok || strings.IndexByte(lit.Value, '\\') >= 0 {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	for _, part := range x.Parts {
		switch p := part.(type) {
		case *syntax.SglQuoted:
			f.markQuoted(p.Pos().Offset(), p.End().Offset())
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				f.markQuoted(in.Pos().Offset(), in.End().Offset())
			}
		}
	}
	if len(x.Parts) == 1 {
		switch p := x.Parts[0].(type) {
		case *syntax.Lit:
			return p.Value, true
		case *syntax.SglQuoted:
			return p.Value, true
		case *syntax.DblQuoted:
			if len(p.Parts) == 0 {
				return "", true
			}
			if len(p.Parts) == 1 {
				return p.Parts[0].(*syntax.Lit).Value, true
			}
		}
	}
	var b strings.Builder
	for _, part := range x.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				b.WriteString(in.(*syntax.Lit).Value)
			}
		}
	}
	return b.String(), true
}

// simpleQuoted reports whether a word is one quoted string with nothing to
// resolve: '...', or "..." of text without backslashes or expansions.
func simpleQuoted(x *syntax.Word) bool {
	if len(x.Parts) != 1 {
		return false
	}
	switch p := x.Parts[0].(type) {
	case *syntax.SglQuoted:
		return !p.Dollar
	case *syntax.DblQuoted:
		if p.Dollar {
			return false
		}
		for _, part := range p.Parts {
			if lit, ok := part.(*syntax.Lit); !ok || strings.Contains(lit.Value, `\`) {
				return false
			}
		}
		return true
	}
	return false
}

// word renders a shell word: quotes removed, escapes resolved, and every part
// known only at run time an unknown span. Command and process substitutions
// in it are walked: their commands become segments. Constructs that make bash
// run code not written in the command mark c unverifiable.
func (w *walker) word(x *syntax.Word, c *cmdCtx) Word { return w.renderWord(x, c, false) }

// assignValue renders the value of NAME=value, where bash also expands ~
// after "=" and ":".
func (w *walker) assignValue(x *syntax.Word, c *cmdCtx) Word {
	if x == nil {
		return known("")
	}
	return w.renderWord(x, c, true)
}

func (w *walker) renderWord(x *syntax.Word, c *cmdCtx, assignValue bool) Word {
	if v, ok := quickLiteral(x, c.f); ok {
		// The common case, read the short way: readWord would give the same
		// (FuzzQuickLiteral).
		return Word{Text: w.knownText(v)}
	}
	return w.readWord(x, c, assignValue)
}

// readWord is renderWord the long way, for any word.
func (w *walker) readWord(x *syntax.Word, c *cmdCtx, assignValue bool) Word {
	var b wordBuilder
	src := c.f.slice(x)
	start := x.Pos().Offset()
	// In a word that looks like an assignment (a=~/x, also as an argument),
	// bash expands ~ after the "=" and after each ":".
	assignLike := assignValue || looksLikeAssignment(x)
	for i, part := range x.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			later := ""
			if off := int(p.End().Offset() - start); off >= 0 && off <= len(src) {
				later = src[off:]
			}
			w.unquotedLit(&b, p.Value, litPlace{
				wordStart:  i == 0,
				lastPart:   i == len(x.Parts)-1,
				assignLike: assignLike,
				assignVal:  assignValue,
				later:      later,
			})
		case *syntax.SglQuoted:
			c.f.markQuoted(p.Pos().Offset(), p.End().Offset())
			if !p.Dollar {
				b.lit(p.Value)
				continue
			}
			if v, ok := dollarSingle(p.Value); ok {
				b.lit(v)
			} else {
				b.unknown(c.f.slice(p))
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				// $"..." is translated through the locale's message
				// catalogue before use.
				w.dblQuoted(&wordBuilder{}, p.Parts, c)
				b.unknown(c.f.slice(p))
				continue
			}
			w.dblQuoted(&b, p.Parts, c)
		default:
			w.dynamicPart(part, c)
			b.unknown(c.f.slice(part))
			b.split = true
		}
	}
	if braceExpands(x) {
		// bash expands {a,b} and {1..3} into several words before anything
		// else; guard does not expand them itself, so the word is unknown.
		return Word{Text: rule.Text{{Lit: src, Unknown: true}}, Split: true}
	}
	out := b.word()
	if _, ok := plainWord(x); ok {
		return out // its value is its text
	}
	if simpleQuoted(x) {
		return out // '...' or "..." of plain text: its value is its content
	}
	if lit, ok := out.Literal(); ok && !assignValue {
		// A wholly literal word: take its value from the shell library's own
		// expansion (no environment, no globbing), which resolves quotes and
		// escapes as bash does. (A fresh Config each time: the library's
		// nil default is shared and written to.) Anything but exactly one field means the
		// word is not what it seems: treat it as unknown.
		if fields, err := expand.Fields(&expand.Config{}, x); err == nil && len(fields) == 1 {
			if fields[0] != lit {
				return Word{Text: rule.Text{{Lit: src, Unknown: true}}, Split: true}
			}
		} else if !(err == nil && len(fields) == 0 && lit == "") {
			return Word{Text: rule.Text{{Lit: src, Unknown: true}}, Split: true}
		}
	}
	return out
}

// dynamicPart walks a part whose value is known only at run time, for the
// commands inside it and the constructs that run hidden code.
func (w *walker) dynamicPart(part syntax.WordPart, c *cmdCtx) {
	switch p := part.(type) {
	case *syntax.ParamExp:
		w.paramExp(p, c)
	case *syntax.CmdSubst:
		via := "$(...)"
		if p.Backquotes {
			via = "`...`"
		}
		w.substitution(p.Stmts, via, c)
	case *syntax.ArithmExp:
		w.arith(p.X, c)
	case *syntax.ProcSubst:
		via := "<(...)"
		if p.Op == syntax.CmdOut {
			via = ">(...)"
		}
		w.substitution(p.Stmts, via, c)
	case *syntax.ExtGlob:
		// bash reads @(...), !(...) and the like only after shopt -s
		// extglob, and otherwise as a syntax error or as other words.
		c.unverifiable("the extended glob " + c.f.slice(p) + " reads differently unless shopt -s extglob is on")
	case *syntax.DblQuoted:
		w.dblQuoted(&wordBuilder{}, p.Parts, c)
	}
}

// dblQuoted renders the parts of a double-quoted string: no globbing, no
// word splitting, no ~; expansions are unknown.
func (w *walker) dblQuoted(b *wordBuilder, parts []syntax.WordPart, c *cmdCtx) {
	for _, part := range parts {
		if lit, ok := part.(*syntax.Lit); ok {
			c.f.markQuoted(lit.Pos().Offset(), lit.End().Offset())
			b.lit(dblQuotedLit(lit))
			continue
		}
		w.dynamicPart(part, c)
		b.unknown(c.f.slice(part))
	}
}

// dblQuotedLit resolves the escapes of literal text in double quotes through
// the shell library (\" \\ \$ \` lose their backslash, others keep it).
func dblQuotedLit(lit *syntax.Lit) string {
	if !strings.Contains(lit.Value, `\`) {
		return lit.Value
	}
	v, err := expand.Literal(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{
		&syntax.DblQuoted{Parts: []syntax.WordPart{lit}},
	}})
	if err != nil {
		return lit.Value
	}
	return v
}

// dollarSingle is the value of $'...', through the shell library's escape
// handling. ok is false for escapes whose value bash takes from the locale
// (\u, \U) or that the library and bash may read differently (\c).
func dollarSingle(v string) (string, bool) {
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		switch v[i+1] {
		case 'u', 'U', 'c':
			return "", false
		}
		i++
	}
	s, err := expand.Literal(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{
		&syntax.SglQuoted{Dollar: true, Value: v},
	}})
	if err != nil {
		return "", false
	}
	return s, true
}

// litPlace is where an unquoted literal sits in its word.
type litPlace struct {
	wordStart  bool   // the first part of the word
	lastPart   bool   // the last part of the word
	assignLike bool   // the word looks like NAME=value
	assignVal  bool   // the word is an assignment's value (the part after "=")
	later      string // the word's source after this part
}

// unquotedLit renders unquoted literal text: a backslash quotes the next
// character; unquoted *, ? and [...] are globs and a leading ~ is the home
// directory, all known only at run time.
func (w *walker) unquotedLit(b *wordBuilder, s string, at litPlace) {
	if !hasLitBytes(s, litResolve) {
		b.lit(s) // the common case: nothing to resolve
		return
	}
	// Where ~ may begin a tilde prefix: the start of the word, and in
	// assignments after "=" and ":".
	tildeOK := at.wordStart
	seenEq := at.assignVal
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\':
			if i+1 < len(s) {
				b.lit(s[i+1 : i+2])
				i++
			} else {
				b.lit(`\`)
			}
			tildeOK = false
			continue
		case ch == '~' && tildeOK:
			end := len(s)
			for j := i + 1; j < len(s); j++ {
				if s[j] == '/' || (at.assignLike && seenEq && s[j] == ':') {
					end = j
					break
				}
			}
			if end == len(s) && !at.lastPart {
				// The tilde prefix runs into a quoted or expanded part: bash
				// leaves such a ~ alone.
				b.lit("~")
				tildeOK = false
				continue
			}
			prefix := s[i:end]
			if validTildePrefix(prefix[1:]) {
				if prefix == "~" && i == 0 && at.wordStart && !at.assignVal && !w.homeChanged && !b.started {
					b.tilde = true
				}
				b.unknown(prefix)
				i = end - 1
			} else {
				b.lit(prefix)
				i = end - 1
			}
			tildeOK = false
			continue
		case ch == '*' || ch == '?':
			b.unknown(s[i : i+1])
			b.split = true
		case ch == '[' && (strings.IndexByte(s[i+1:], ']') >= 0 || strings.IndexByte(at.later, ']') >= 0):
			b.unknown("[")
			b.split = true
		default:
			b.lit(s[i : i+1])
		}
		tildeOK = false
		if at.assignLike {
			if ch == '=' && !seenEq {
				seenEq = true
				tildeOK = true
			} else if ch == ':' && seenEq {
				tildeOK = true
			}
		}
	}
}

// validTildePrefix reports whether bash would expand ~prefix: ~, ~+, ~-, ~N
// and ~user (a login name, which may or may not exist).
func validTildePrefix(p string) bool {
	if p == "" || p == "+" || p == "-" {
		return true
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '+') {
			return false
		}
	}
	return true
}

// looksLikeAssignment reports whether a word reads NAME=..., for which bash
// expands ~ after the "=" even as an argument.
func looksLikeAssignment(x *syntax.Word) bool {
	if len(x.Parts) == 0 {
		return false
	}
	lit, ok := x.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	eq := strings.IndexByte(lit.Value, '=')
	return eq > 0 && isName(strings.TrimSuffix(lit.Value[:eq], "+"))
}

// braceExpands reports whether bash could brace-expand the word: an unquoted
// "{" followed by an unquoted "," or ".." and then an unquoted "}". It errs
// towards yes: a quoted comma inside still counts.
func braceExpands(x *syntax.Word) bool {
	state := 0 // 0: before "{", 1: inside, 2: seen "," or ".."
	for _, part := range x.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		s := lit.Value
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\':
				i++
			case c == '{':
				if state == 0 {
					state = 1
				}
			case state >= 1 && (c == ',' || c == '.' && i+1 < len(s) && s[i+1] == '.'):
				state = 2
			case c == '}' && state == 2:
				return true
			}
		}
	}
	return false
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// paramExp walks a parameter expansion: the words inside it (${x:-$(cmd)})
// and the forms with which bash runs code held in a variable.
func (w *walker) paramExp(p *syntax.ParamExp, c *cmdCtx) {
	if p.Excl && p.Names == 0 && !isAtStar(p.Index) {
		c.unverifiable(whyIndirect)
	}
	if p.Exp != nil {
		if p.Exp.Op == syntax.OtherParamOps {
			if p.Exp.Word == nil || strings.Contains(p.Exp.Word.Lit(), "P") || p.Exp.Word.Lit() == "" {
				c.unverifiable(whyPrompt)
			}
		}
		if (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
			w.assigned(p.Param.Value, c)
		}
		if p.Exp.Word != nil {
			w.word(p.Exp.Word, c)
		}
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil {
			w.word(p.Repl.Orig, c)
		}
		if p.Repl.With != nil {
			w.word(p.Repl.With, c)
		}
	}
	if p.Index != nil && !isAtStar(p.Index) {
		w.arith(p.Index, c)
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			w.arith(p.Slice.Offset, c)
		}
		if p.Slice.Length != nil {
			w.arith(p.Slice.Length, c)
		}
	}
	if p.NestedParam != nil {
		w.dynamicPart(p.NestedParam, c)
	}
}

func isAtStar(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := wd.Lit()
	return l == "@" || l == "*"
}

// arith walks an arithmetic expression. bash evaluates the value of every
// variable it reads as arithmetic in turn, and an array subscript in that
// value (a[$(cmd)]) runs a command: so reading a variable makes the command
// unverifiable. Numbers, and variables only assigned to, are safe.
func (w *walker) arith(x syntax.ArithmExpr, c *cmdCtx) {
	switch x := x.(type) {
	case *syntax.Word:
		if isArithNumber(x.Lit()) {
			return
		}
		w.word(x, c)
		c.unverifiable(whyArithVar)
	case *syntax.BinaryArithm:
		if x.Op == syntax.Assgn {
			if wd, ok := x.X.(*syntax.Word); ok && isName(wd.Lit()) {
				w.assigned(wd.Lit(), c)
				w.arith(x.Y, c)
				return
			}
		}
		w.arith(x.X, c)
		w.arith(x.Y, c)
	case *syntax.UnaryArithm:
		w.arith(x.X, c)
	case *syntax.ParenArithm:
		w.arith(x.X, c)
	case *syntax.FlagsArithm:
		if x.X != nil {
			w.arith(x.X, c)
		}
	case nil:
	default:
		c.unverifiable(whyArithVar)
	}
}

// isArithNumber reports whether s is an integer constant in bash arithmetic:
// 42, 0x2a, 052, 16#2a.
func isArithNumber(s string) bool {
	if s == "" {
		return false
	}
	if i := strings.IndexByte(s, '#'); i > 0 {
		for _, c := range s[:i] {
			if c < '0' || c > '9' {
				return false
			}
		}
		for _, c := range s[i+1:] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '_') {
				return false
			}
		}
		return i+1 < len(s)
	}
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		for _, c := range s[2:] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
