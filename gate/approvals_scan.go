package gate

import (
	"time"
	"unicode/utf8"
)

// scanApprovals answers Has without decoding approvals.json into values: a
// lookup on every remembered command must not cost milliseconds when a
// thousand approvals are saved.
//
// It reads only the exact shape guard writes (json.MarshalIndent of
// approvalsDoc, or the same compact): {"version":1,"rules":[{"key":...,
// "label":...,"added":...},...]}, with the keys in that order, strings
// whose escapes are JSON's, and any JSON whitespace between tokens. It
// checks everything the decoder would (the version, a key in every rule,
// "added" a time as time.Time reads it), so that a document it accepts is
// one that decode accepts with the same keys. ok is false for anything
// else — another spelling of a valid document (keys in another order, an
// unknown field, a NUL escaped as \u0000 is fine but a surrogate escape is
// not) or a corrupt file — and the caller then decodes the file with
// encoding/json, which answers as before and names what is wrong.
func scanApprovals(data []byte, key string) (found, ok bool) {
	s := approvalScanner{b: data}
	if !s.lit("{") || !s.lit(`"version"`) || !s.lit(":") || !s.number1() || !s.lit(",") ||
		!s.lit(`"rules"`) || !s.lit(":") || !s.lit("[") {
		return false, false
	}
	if !s.peek(']') {
		for {
			match, ok := s.rule(key)
			if !ok {
				return false, false
			}
			found = found || match
			if s.peek(']') {
				break
			}
			if !s.lit(",") {
				return false, false
			}
		}
	}
	if !s.lit("]") || !s.lit("}") {
		return false, false
	}
	s.ws()
	return found, s.i == len(s.b)
}

// approvalScanner reads approvals.json's tokens.
type approvalScanner struct {
	b   []byte
	i   int
	key []byte // the decoded key of the rule being read
}

func (s *approvalScanner) ws() {
	i, b := s.i, s.b
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	s.i = i
}

// lit reads t after any whitespace.
func (s *approvalScanner) lit(t string) bool {
	s.ws()
	if len(s.b)-s.i < len(t) || string(s.b[s.i:s.i+len(t)]) != t {
		return false
	}
	s.i += len(t)
	return true
}

func (s *approvalScanner) peek(c byte) bool {
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == c
}

// number1 reads the version, which must be the number 1 written as such.
func (s *approvalScanner) number1() bool {
	if !s.lit("1") {
		return false
	}
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == ','
}

// rule reads {"key":...,"label":...,"added":...} and reports whether its
// key is want.
func (s *approvalScanner) rule(want string) (match, ok bool) {
	if !s.lit("{") || !s.lit(`"key"`) || !s.lit(":") {
		return false, false
	}
	key, ok := s.str(true)
	if !ok || len(key) == 0 {
		return false, false
	}
	match = string(key) == want
	if !s.lit(",") || !s.lit(`"label"`) || !s.lit(":") {
		return false, false
	}
	if _, ok := s.str(false); !ok || !s.lit(",") || !s.lit(`"added"`) || !s.lit(":") {
		return false, false
	}
	s.ws()
	start := s.i
	if _, ok := s.str(false); !ok {
		return false, false
	}
	// The decoder hands time.Time the string as written, quotes and all.
	var t time.Time
	if err := t.UnmarshalJSON(s.b[start:s.i]); err != nil {
		return false, false
	}
	return match, s.lit("}")
}

// str reads a JSON string. With decode, it returns its value (valid until
// the next call); it refuses what the decoder would read differently from
// its bytes or refuse: a raw control character, invalid UTF-8 (which the
// decoder replaces), an escape of a surrogate (which it may replace).
func (s *approvalScanner) str(decode bool) ([]byte, bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	s.i++
	s.key = s.key[:0]
	start := s.i
	ascii := true
	for s.i < len(s.b) {
		// A run of bytes that stand for themselves.
		run, i, b := s.i, s.i, s.b
		for i < len(b) && strClass[b[i]] == strPlain {
			i++
		}
		s.i = i
		if decode {
			s.key = append(s.key, s.b[run:s.i]...)
		}
		if s.i >= len(s.b) {
			return nil, false
		}
		switch c := s.b[s.i]; {
		case c >= 0x80:
			ascii = false
			if decode {
				s.key = append(s.key, c)
			}
			s.i++
			continue
		case c == '"':
			if !ascii && !utf8.Valid(s.b[start:s.i]) {
				return nil, false
			}
			s.i++
			return s.key, true
		case c < 0x20:
			return nil, false
		}
		// An escape.
		if s.i+1 >= len(s.b) {
			return nil, false
		}
		e := s.b[s.i+1]
		s.i += 2
		var r rune
		switch e {
		case '"', '\\', '/':
			r = rune(e)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if s.i+4 > len(s.b) {
				return nil, false
			}
			for _, h := range s.b[s.i : s.i+4] {
				r <<= 4
				switch {
				case h >= '0' && h <= '9':
					r |= rune(h - '0')
				case h >= 'a' && h <= 'f':
					r |= rune(h - 'a' + 10)
				case h >= 'A' && h <= 'F':
					r |= rune(h - 'A' + 10)
				default:
					return nil, false
				}
			}
			s.i += 4
			if r >= 0xd800 && r < 0xe000 {
				return nil, false
			}
		default:
			return nil, false
		}
		if decode {
			s.key = utf8.AppendRune(s.key, r)
		}
	}
	return nil, false
}

// strClass sorts the bytes of a JSON string's text: strPlain stand for
// themselves; strEnd end a run of them (the closing quote, an escape, a
// control character, a byte of a UTF-8 sequence, which must be checked).
// A table, derived once and never changed, so that the loop over a string's
// text costs one load per byte.
var strClass = func() (t [256]uint8) {
	for c := range t {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			t[c] = strEnd
		}
	}
	return t
}()

const (
	strPlain = 0
	strEnd   = 1
)
