package gitconfig

import (
	"bytes"
	"errors"
	"strings"
)

// entry is one variable of a configuration file: its full name as git
// has it (section and key lower-case, a subsection as written:
// "filter.Lfs.clean") and its value.
type entry struct {
	name  string
	value string
	line  int
}

// split returns the section, subsection and key of the name, split at its
// first and last dot as git does.
func (e entry) split() (section, subsection, key string) {
	first, last := strings.IndexByte(e.name, '.'), strings.LastIndexByte(e.name, '.')
	if first < 0 {
		return "", "", e.name
	}
	if first < last {
		subsection = e.name[first+1 : last]
	}
	return e.name[:first], subsection, e.name[last+1:]
}

// errSyntax is a file git itself refuses to read (and then refuses to run
// at all in that repository). The caller keeps what was read before it.
var errSyntax = errors.New("not git configuration syntax")

// parse reads a git configuration file the way git's own reader does
// (config.c: git_parse_source, get_base_var, get_value, parse_value), so
// that what guard finds in a file is what git will act on: sections
// "[name]", `[name "subsection"]` and the old "[name.subsection]"; keys
// compared without case; values with "..." quoting, the escapes \" \\ \n \t
// \b, comments after # or ; outside quotes, and a backslash at the end of a
// line continuing the value. It returns the entries read up to the first
// error.
func parse(src string) ([]entry, error) {
	p := parser{src: strings.TrimPrefix(src, "\ufeff"), line: 1}
	return p.run()
}

type parser struct {
	src  string
	i    int
	line int
	eof  bool

	// stem is the current section header's part of a variable's name:
	// "core", "filter.Lfs" ("" before any header).
	stem string
	out  []entry
}

// next is git's get_next_char: "\r\n" reads as "\n", and the end of the
// file as a last "\n" (with eof set).
func (p *parser) next() byte {
	if p.i >= len(p.src) {
		p.eof = true
		return '\n'
	}
	c := p.src[p.i]
	p.i++
	if c == '\r' && p.i < len(p.src) && p.src[p.i] == '\n' {
		p.i++
		c = '\n'
	}
	if c == '\n' {
		p.line++
	}
	return c
}

func (p *parser) run() ([]entry, error) {
	comment := false
	for {
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return p.out, nil
			}
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			if err := p.header(); err != nil {
				return p.out, err
			}
		case isAlpha(c):
			if err := p.variable(c); err != nil {
				return p.out, err
			}
		default:
			return p.out, errSyntax
		}
	}
}

// header reads a section header after its "[" (get_base_var).
func (p *parser) header() error {
	var name strings.Builder
	for {
		c := p.next()
		switch {
		case p.eof:
			return errSyntax
		case c == ']':
			if name.Len() == 0 {
				return errSyntax
			}
			// The old "[section.subsection]": git lower-cases it whole.
			p.stem = strings.ToLower(name.String())
			return nil
		case isSpace(c):
			return p.subsectionHeader(strings.ToLower(name.String()), c)
		case isKeyChar(c) || c == '.':
			name.WriteByte(c)
		default:
			return errSyntax
		}
	}
}

// subsectionHeader reads ` "subsection"]` after the section's name base
// (get_extended_base_var): within the quotes a backslash takes the next
// character as it is.
func (p *parser) subsectionHeader(base string, c byte) error {
	for {
		if c == '\n' {
			return errSyntax
		}
		c = p.next()
		if !isSpace(c) || c == '\n' {
			break
		}
	}
	if c != '"' {
		return errSyntax
	}
	var sub strings.Builder
	for {
		c := p.next()
		switch {
		case c == '\n':
			return errSyntax
		case c == '"':
			if p.next() != ']' {
				return errSyntax
			}
			p.stem = base + "." + sub.String()
			return nil
		case c == '\\':
			c = p.next()
			if c == '\n' {
				return errSyntax
			}
			sub.WriteByte(c)
		default:
			sub.WriteByte(c)
		}
	}
}

// variable reads "key [= value]" whose first letter is first (get_value).
// A key alone is a boolean true.
func (p *parser) variable(first byte) error {
	var key strings.Builder
	key.WriteByte(lower(first))
	c := p.next()
	for !p.eof && isKeyChar(c) {
		key.WriteByte(lower(c))
		c = p.next()
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	e := entry{name: key.String(), line: p.line, value: "true"}
	if p.stem != "" {
		e.name = p.stem + "." + e.name
	}
	// git keeps the name as a C string: a NUL in a subsection ends it.
	if i := strings.IndexByte(e.name, 0); i >= 0 {
		e.name = e.name[:i]
	}
	if c != '\n' {
		if c != '=' {
			return errSyntax
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		e.value = v
	} else {
		e.line-- // the newline was read
	}
	p.out = append(p.out, e)
	return nil
}

// value reads a value after its "=" (parse_value): leading and trailing
// blanks outside quotes dropped, each one between made a space.
func (p *parser) value() (string, error) {
	var b []byte
	quote, comment := false, false
	trim := -1 // where trailing blanks began, if they are trailing
	for {
		c := p.next()
		if c == '\n' {
			if quote {
				return "", errSyntax
			}
			if trim >= 0 {
				b = b[:trim]
			}
			// git uses the value as a C string: a NUL ends it.
			if i := bytes.IndexByte(b, 0); i >= 0 {
				b = b[:i]
			}
			return string(b), nil
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if trim < 0 {
				trim = len(b)
			}
			if len(b) > 0 {
				b = append(b, ' ') // every blank as a space, as git has it
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		trim = -1
		switch c {
		case '\\':
			switch e := p.next(); e {
			case '\n':
				// A continued line (at the end of the file, the end).
			case 't':
				b = append(b, '\t')
			case 'b':
				b = append(b, '\b')
			case 'n':
				b = append(b, '\n')
			case '\\', '"':
				b = append(b, e)
			default:
				return "", errSyntax
			}
		case '"':
			quote = !quote
		default:
			b = append(b, c)
		}
	}
}

// isSpace is git's own isspace (sane_ctype): space, tab, newline and
// carriage return, not \v or \f.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
