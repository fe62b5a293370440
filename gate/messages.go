package gate

import (
	"strconv"
	"strings"
	"unicode"
)

// maxShown is how much of a detail a one-line message quotes.
const maxShown = 120

// quoteDetail quotes s for a one-line message on a terminal: Go quoting
// escapes control characters, escape sequences and bidirectional overrides,
// so that a hostile command cannot rewrite what the user reads.
func quoteDetail(s string) string {
	if r := []rune(s); len(r) > maxShown {
		return strconv.Quote(string(r[:maxShown-1])) + "…"
	}
	return strconv.Quote(s)
}

// oneLine makes s fit in a suggested rule: every character a terminal would
// not print as itself becomes "?" (which a rule matches literally, so that
// part of the suggestion can only be narrower), and past maxShown runes it
// is cut to a prefix rule, which the user reads before adding.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxShown {
		s = string(r[:maxShown-2]) + " *"
	}
	return s
}

// shellQuoteInner escapes s for use between single quotes in a shell
// command that the user may copy.
func shellQuoteInner(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }
