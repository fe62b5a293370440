package audit

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// marshal writes rec as encoding/json would, byte for byte, without its
// reflection: the first json.Marshal of a type in a process builds the
// type's encoder, which cost a run of guard exec a third of a millisecond
// for its one audit record. A record whose time encoding/json refuses (a
// year outside 0–9999) goes through json.Marshal for the same error.
func marshal(rec *Record) ([]byte, error) {
	t, err := rec.Time.MarshalJSON()
	if err != nil {
		return json.Marshal(rec)
	}
	b := make([]byte, 0, 256+len(rec.Detail)+len(rec.Message))
	b = append(b, `{"time":`...)
	b = append(b, t...)
	field := func(name, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = appendString(b, v)
	}
	field("workspace", rec.Workspace, true)
	field("session", rec.Session, true)
	field("mode", rec.Mode, true)
	field("tool", rec.Tool, true)
	field("kind", rec.Kind, false)
	field("detail", rec.Detail, false)
	if len(rec.Targets) > 0 {
		b = append(b, `,"targets":[`...)
		for i, s := range rec.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	field("decision", rec.Decision, false)
	field("reason", rec.Reason, false)
	field("rule", rec.Rule, true)
	field("source", rec.Source, true)
	field("where", rec.Where, true)
	b = append(b, `,"waited_ms":`...)
	b = strconv.AppendInt(b, rec.WaitedMS, 10)
	field("message", rec.Message, true)
	field("comment", rec.Comment, true)
	if rec.PID != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(rec.PID), 10)
	}
	if rec.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	return append(b, '}'), nil
}

// appendString appends s as a JSON string as encoding/json writes it with
// its HTML escaping (json.Marshal's): <, > and & as \u003c and the like,
// control characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
