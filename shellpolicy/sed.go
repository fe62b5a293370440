package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// sedPrintOpt reports whether a sed option leaves it only printing.
func sedPrintOpt(opt string) bool {
	switch opt {
	case "-n", "--quiet", "--silent",
		"-E", "-r", "--regexp-extended",
		"-s", "--separate",
		"-u", "--unbuffered",
		"-z", "--null-data",
		"--posix", "--debug", "--sandbox":
		return true
	}
	return false
}

// sedNotPrintOnly says why a sed command may do more than print, or "" when
// it only prints: options among sedPrintOpt's and scripts made only of
// addresses and the commands p, P, =, l, d, D, q, Q, n, N, g, G, h, H, x, y,
// { } and s/// without the w and e flags.
func sedNotPrintOnly(args []Word) string {
	var scripts []string
	operandScript := true
	for i := 0; i < len(args); i++ {
		s, ok := args[i].Literal()
		if !ok {
			return "the word " + args[i].String() + " is known only at run time"
		}
		switch {
		case s == "--":
			i = len(args)
		case s == "-e" || s == "--expression":
			if i+1 >= len(args) {
				return "-e lacks its script"
			}
			i++
			v, ok := args[i].Literal()
			if !ok {
				return "the script is known only at run time"
			}
			scripts = append(scripts, v)
			operandScript = false
		case strings.HasPrefix(s, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(s, "--expression="))
			operandScript = false
		case strings.HasPrefix(s, "--"):
			if !sedPrintOpt(s) {
				return "the option " + s
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			for j := 1; j < len(s); j++ {
				c := s[j]
				if c == 'e' {
					v := s[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							return "-e lacks its script"
						}
						i++
						var ok bool
						if v, ok = args[i].Literal(); !ok {
							return "the script is known only at run time"
						}
					}
					scripts = append(scripts, v)
					operandScript = false
					break
				}
				if !sedPrintOpt("-" + string(c)) {
					return "the option -" + string(c)
				}
			}
		default:
			if operandScript {
				scripts = append(scripts, s)
				operandScript = false
			}
		}
	}
	if len(scripts) == 0 {
		return "no script"
	}
	for _, sc := range scripts {
		if why := sedScriptNotPrintOnly(sc); why != "" {
			return why
		}
	}
	return ""
}

// sedScriptNotPrintOnly checks one script.
func sedScriptNotPrintOnly(sc string) string {
	i := 0
	skipBlanks := func() {
		for i < len(sc) && (sc[i] == ' ' || sc[i] == '\t') {
			i++
		}
	}
	for i < len(sc) {
		skipBlanks()
		if i >= len(sc) {
			break
		}
		if sc[i] == ';' || sc[i] == '\n' || sc[i] == '}' {
			i++
			continue
		}
		// Up to two addresses.
		for n := 0; n < 2; n++ {
			var ok bool
			if i, ok = sedAddress(sc, i); !ok {
				return "an address guard does not read"
			}
			if n == 0 && i < len(sc) && sc[i] == ',' {
				i++
				continue
			}
			break
		}
		skipBlanks()
		if i < len(sc) && sc[i] == '!' {
			i++
			skipBlanks()
		}
		if i >= len(sc) {
			return "a script that ends after an address"
		}
		c := sc[i]
		i++
		switch c {
		case 'p', 'P', '=', 'l', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '{':
		case 'q', 'Q':
			for i < len(sc) && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == ' ') {
				i++
			}
		case 's', 'y':
			if i >= len(sc) {
				return "an unfinished s command"
			}
			delim := sc[i]
			if delim == '\\' || delim == '\n' || delim == ' ' {
				return "an s command with an unusual delimiter"
			}
			i++
			for part := 0; part < 2; part++ {
				var ok bool
				if i, ok = sedDelimited(sc, i, delim); !ok {
					return "an s command guard does not read"
				}
			}
			if c == 's' {
				for i < len(sc) && strings.IndexByte("gpiImM0123456789", sc[i]) >= 0 {
					i++
				}
			}
		default:
			return "the sed command " + string(c)
		}
		skipBlanks()
		if i < len(sc) && sc[i] != ';' && sc[i] != '\n' && sc[i] != '}' {
			return "text after a command: " + sc[i:]
		}
	}
	return ""
}

// sedAddress reads an optional address at i: a line number, first~step, $,
// or /regex/.
func sedAddress(sc string, i int) (int, bool) {
	switch {
	case i >= len(sc):
		return i, true
	case sc[i] >= '0' && sc[i] <= '9':
		for i < len(sc) && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == '~') {
			i++
		}
		return i, true
	case sc[i] == '$':
		return i + 1, true
	case sc[i] == '/':
		j, ok := sedDelimited(sc, i+1, '/')
		if !ok {
			return i, false
		}
		for j < len(sc) && (sc[j] == 'I' || sc[j] == 'M') {
			j++
		}
		return j, true
	case sc[i] == '\\':
		return i, false
	}
	return i, true
}

// sedDelimited reads up to and past the next unescaped delim. A bracket
// expression holding the delimiter is refused: sed versions disagree on
// whether it ends the part there.
func sedDelimited(sc string, i int, delim byte) (int, bool) {
	inBracket := false
	for ; i < len(sc); i++ {
		c := sc[i]
		switch {
		case c == '\n':
			return i, false
		case c == '\\':
			i++
		case inBracket && c == ']':
			inBracket = false
		case c == '[':
			inBracket = true
			// "[]" and "[^]" begin a bracket expression holding "]".
			if i+1 < len(sc) && sc[i+1] == '^' {
				i++
			}
			if i+1 < len(sc) && sc[i+1] == ']' {
				i++
			}
		case c == delim:
			if inBracket {
				return i, false
			}
			return i + 1, true
		}
	}
	return i, false
}

// sedScripts returns the scripts of a sed command line, and whether they
// could all be told apart from its files.
func sedScripts(args []Word) ([]string, bool) {
	var scripts []string
	operandScript := true
	for i := 0; i < len(args); i++ {
		s, ok := args[i].Literal()
		if !ok {
			head, _ := literalHead(args[i])
			if operandScript || strings.HasPrefix(head, "-") || head == "" {
				return scripts, false
			}
			continue
		}
		switch {
		case s == "--":
			if operandScript && i+1 < len(args) {
				v, ok := args[i+1].Literal()
				if !ok {
					return scripts, false
				}
				scripts = append(scripts, v)
			}
			return scripts, true
		case s == "-e" || s == "--expression" || s == "-f" || s == "--file":
			if i+1 >= len(args) {
				return scripts, true
			}
			i++
			v, ok := args[i].Literal()
			if !ok {
				return scripts, false
			}
			if s == "-e" || s == "--expression" {
				scripts = append(scripts, v)
			}
			operandScript = false
		case strings.HasPrefix(s, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(s, "--expression="))
			operandScript = false
		case strings.HasPrefix(s, "--file="):
			operandScript = false
		case strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && len(s) > 1:
			for j := 1; j < len(s); j++ {
				if s[j] == 'e' || s[j] == 'f' {
					v := s[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						var ok bool
						if v, ok = args[i].Literal(); !ok {
							return scripts, false
						}
					}
					if s[j] == 'e' {
						scripts = append(scripts, v)
					}
					operandScript = false
					break
				}
				if s[j] == 'l' {
					i++ // -l N
					break
				}
			}
		case strings.HasPrefix(s, "--"):
		default:
			if operandScript {
				scripts = append(scripts, s)
				operandScript = false
			}
		}
	}
	// A script in a file (-f) is like a shell script run from a file: its
	// commands are not visible, and need not be.
	return scripts, true
}

// sedExec finds what a sed script runs: the text of each e command, which
// GNU sed runs through the shell, and whether an e without text or the e
// flag of s runs text known only at run time.
func sedExec(sc string) (codes []string, dynamic bool, ok bool) {
	i := 0
	rest := func() string {
		j := strings.IndexByte(sc[i:], '\n')
		if j < 0 {
			j = len(sc) - i
		}
		s := sc[i : i+j]
		i += j
		return s
	}
	for i < len(sc) {
		for i < len(sc) && strings.IndexByte(" \t\n;}", sc[i]) >= 0 {
			i++
		}
		if i >= len(sc) {
			break
		}
		if sc[i] == '#' {
			rest()
			continue
		}
		for n := 0; n < 2; n++ {
			var good bool
			if i, good = sedAddress(sc, i); !good {
				return codes, dynamic, false
			}
			if n == 0 && i < len(sc) && sc[i] == ',' {
				i++
				continue
			}
			break
		}
		for i < len(sc) && (sc[i] == ' ' || sc[i] == '!') {
			i++
		}
		if i >= len(sc) {
			return codes, dynamic, false
		}
		c := sc[i]
		i++
		switch c {
		case 'e':
			text := strings.TrimSpace(rest())
			if text == "" {
				dynamic = true // runs the pattern space
			} else {
				codes = append(codes, text)
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', 'b', 't', 'T', ':', 'v':
			// Text, a file name or a label: to the end of the line (labels
			// end at ";" too, which only makes the rest shorter here).
			if c == 'b' || c == 't' || c == 'T' || c == 'v' {
				for i < len(sc) && sc[i] != ';' && sc[i] != '\n' {
					i++
				}
			} else {
				rest()
			}
		case 's', 'y':
			if i >= len(sc) {
				return codes, dynamic, false
			}
			delim := sc[i]
			if delim == '\\' || delim == '\n' {
				return codes, dynamic, false
			}
			i++
			for part := 0; part < 2; part++ {
				var good bool
				if i, good = sedDelimited(sc, i, delim); !good {
					return codes, dynamic, false
				}
			}
			for c == 's' && i < len(sc) && sc[i] != ';' && sc[i] != '\n' && sc[i] != '}' {
				switch sc[i] {
				case 'e':
					dynamic = true // runs the result of the substitution
				case 'w':
					i++
					rest()
					continue
				}
				i++
			}
		case 'q', 'Q', 'l', 'L':
			for i < len(sc) && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == ' ') {
				i++
			}
		case '{', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return codes, dynamic, false
		}
	}
	return codes, dynamic, true
}

// sed follows what a sed command runs: GNU sed's e command and the e flag
// of s run shell commands.
func (w *walker) sed(args []Word, p *plan) {
	scripts, complete := sedScripts(args)
	for _, sc := range scripts {
		codes, dynamic, ok := sedExec(sc)
		if !ok {
			if strings.Contains(sc, "e") {
				p.setUnv("sed: guard cannot read this script, and its e command would run shell commands")
			}
			continue
		}
		if dynamic {
			p.setUnv("sed: the e command or the e flag of s runs text known only at run time as a shell command")
		}
		for _, c := range codes {
			w.code(p, c, syntax.LangPOSIX, "sed e", false)
		}
	}
	if !complete {
		p.setUnv("sed: its script is known only at run time, and its e command would run shell commands")
	}
}
