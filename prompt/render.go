package prompt

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of what a prompt shows. Each says how much of a hostile request can
// fill the screen; the marker of a cut says so, so that the user can refuse
// what they could not read.
const (
	maxDetailShown  = 4000 // characters of the detail
	maxTargetsShown = 50   // targets needing approval
	maxLineShown    = 500  // characters of one diff or target line
	maxBodyLines    = 400  // lines of a question's body (a plan)
)

// ANSI colours of the prompt.
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	cyan   = "\x1b[36m"
	bold   = "\x1b[1m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

func decodeRune(b []byte) (rune, int) {
	if !utf8.FullRune(b) {
		return 0, 0
	}
	return utf8.DecodeRune(b)
}

// printable reports whether r shows as itself on a terminal. Control
// characters, escape, DEL, the C1 range, bidirectional overrides and other
// format characters (which can reorder or hide what the user reads) do not.
func printable(r rune) bool {
	return r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r))
}

// escape makes one line of text safe to show: every character that is not
// printable is written as a visible escape (\x1b, \r, \u202e), and invalid
// UTF-8 as \xNN. A tab becomes spaces.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case printable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// escapeLines escapes each line of s, keeping the line breaks.
func escapeLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = escape(l)
	}
	return lines
}

// cutRunes cuts s to n runes, saying how much was left out.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf(" [… %d more characters not shown]", len(r)-n)
}

// paint colours s when colour is on.
func (t *Terminal) paint(colour, s string) string {
	if !t.Color || s == "" {
		return s
	}
	return colour + s + reset
}

// diff renders a unified diff: at most DiffLines lines, additions green,
// removals red, hunk headers cyan, and a line saying how much was cut.
func (t *Terminal) diff(d string) []string {
	limit := t.DiffLines
	if limit <= 0 {
		limit = DefaultDiffLines
	}
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if i == limit {
			out = append(out, t.paint(yellow, fmt.Sprintf("… %d more lines of the diff not shown ([ui] diff_lines = %d)", len(lines)-limit, limit)))
			break
		}
		l = escape(cutRunes(l, maxLineShown))
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			l = t.paint(bold, l)
		case strings.HasPrefix(l, "+"):
			l = t.paint(green, l)
		case strings.HasPrefix(l, "-"):
			l = t.paint(red, l)
		case strings.HasPrefix(l, "@@"):
			l = t.paint(cyan, l)
		}
		out = append(out, l)
	}
	return out
}
