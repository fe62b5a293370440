package rule

import (
	"errors"
	"fmt"
	"strings"
)

// Parse reads a rule as written, without its action. It accepts guard's own
// spelling, kind(pattern) or a bare kind, and Claude Code's:
//
//	Bash(git push:*)       shell(git push *)
//	Bash(npm run *)        shell(npm run *)
//	Read(~/.ssh/**)        read(~/.ssh/*)
//	Read(//etc/shadow)     read(/etc/shadow)
//	Edit(src/*) Write(x)   write(./src/*) write(./x)
//	WebFetch(domain:x.com) web(x.com)
//	mcp__github__get_issue mcp(github:get_issue)
//
// The pattern it returns is normalized: path patterns are cleaned, web hosts
// lower-cased, mcp patterns always hold a colon.
func Parse(text string) (k Kind, pattern string, bare bool, err error) {
	if text == "" {
		return "", "", false, errors.New("empty rule")
	}
	if i := strings.IndexFunc(text, isControl); i >= 0 {
		return "", "", false, fmt.Errorf("control character %q at byte %d: rules are plain text", text[i], i)
	}
	text = strings.TrimSpace(text)
	name, arg, hasArg, err := splitCall(text)
	if err != nil {
		return "", "", false, err
	}
	if strings.HasPrefix(name, "mcp__") {
		if hasArg {
			return "", "", false, fmt.Errorf("%q: Claude Code's mcp__server__tool takes no parentheses", text)
		}
		return parseClaudeMCP(name)
	}
	if k := Kind(name); k.Valid() {
		if !hasArg {
			return k, "", true, nil
		}
		pat, err := normalize(k, arg)
		return k, pat, false, err
	}
	if ck, ok := claudeTools[name]; ok {
		if !hasArg {
			return ck, "", true, nil
		}
		pat, err := claudePattern(name, ck, arg)
		if err != nil {
			return "", "", false, err
		}
		pat, err = normalize(ck, pat)
		return ck, pat, false, err
	}
	if strings.EqualFold(name, "shell") || strings.EqualFold(name, "read") || strings.EqualFold(name, "write") ||
		strings.EqualFold(name, "delete") || strings.EqualFold(name, "web") || strings.EqualFold(name, "mcp") {
		return "", "", false, fmt.Errorf("unknown kind %q: kinds are lower case (%s)", name, strings.ToLower(name))
	}
	return "", "", false, fmt.Errorf("unknown kind %q: want one of shell, read, write, delete, web, mcp (or Claude Code's Bash, Read, Edit, Write, WebFetch, mcp__server__tool)", name)
}

// claudeTools maps Claude Code's permission-rule tool names onto guard's kinds.
// Glob and Grep read files; Edit, MultiEdit and NotebookEdit write them.
var claudeTools = map[string]Kind{
	"Bash":         Shell,
	"Read":         Read,
	"Glob":         Read,
	"Grep":         Read,
	"LS":           Read,
	"Edit":         Write,
	"Write":        Write,
	"MultiEdit":    Write,
	"NotebookEdit": Write,
	"WebFetch":     Web,
}

func splitCall(text string) (name, arg string, hasArg bool, err error) {
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.ContainsAny(text, ") \t") {
			return "", "", false, fmt.Errorf("%q: want kind(pattern) or a bare kind", text)
		}
		return text, "", false, nil
	}
	if !strings.HasSuffix(text, ")") {
		return "", "", false, fmt.Errorf("%q: missing closing parenthesis", text)
	}
	name, arg = text[:open], text[open+1:len(text)-1]
	if name == "" || strings.ContainsAny(name, " \t)") {
		return "", "", false, fmt.Errorf("%q: want kind(pattern)", text)
	}
	if strings.TrimSpace(arg) == "" {
		return "", "", false, fmt.Errorf("%q: empty pattern (write the bare kind %q to match everything)", text, name)
	}
	return name, arg, true, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// claudePattern turns the argument of a Claude Code rule into guard's pattern
// syntax, before normalization.
func claudePattern(tool string, k Kind, arg string) (string, error) {
	switch k {
	case Shell:
		// "git push:*" is Claude Code's prefix form: the command and anything after a blank.
		if strings.HasSuffix(arg, ":*") {
			base := strings.TrimSpace(strings.TrimSuffix(arg, ":*"))
			if base == "" {
				return "*", nil
			}
			return base + " *", nil
		}
		return arg, nil
	case Web:
		host, ok := strings.CutPrefix(arg, "domain:")
		if !ok {
			return "", fmt.Errorf("%s(%s): only %s(domain:HOST) can be carried over: guard matches the host", tool, arg, tool)
		}
		return host, nil
	default:
		// Claude Code's path rules follow gitignore: //abs is absolute, ~/x is
		// home, /x is relative to the project root, x and ./x to the current
		// directory. guard's * already crosses "/", so ** becomes *.
		p := arg
		for strings.Contains(p, "**") {
			p = strings.ReplaceAll(p, "**", "*")
		}
		switch {
		case strings.HasPrefix(p, "//"):
			return p[1:], nil
		case strings.HasPrefix(p, "~"):
			return p, nil
		case strings.HasPrefix(p, "/"):
			return "." + p, nil
		case strings.HasPrefix(p, "./"):
			return p, nil
		default:
			return "./" + p, nil
		}
	}
}

func parseClaudeMCP(name string) (Kind, string, bool, error) {
	rest := strings.TrimPrefix(name, "mcp__")
	server, tool, hasTool := strings.Cut(rest, "__")
	if server == "" || (hasTool && tool == "") {
		return "", "", false, fmt.Errorf("%q: want mcp__server or mcp__server__tool", name)
	}
	if !hasTool {
		tool = "*"
	}
	pat, err := normalize(MCP, server+":"+tool)
	return MCP, pat, false, err
}

// normalize checks a guard pattern for kind k and returns its canonical form.
func normalize(k Kind, pat string) (string, error) {
	pat = strings.TrimSpace(pat)
	if pat == "" {
		return "", errors.New("empty pattern")
	}
	switch k {
	case Shell:
		return pat, nil
	case Web:
		return normalizeHost(pat)
	case MCP:
		server, tool, ok := strings.Cut(pat, ":")
		if !ok {
			tool = "*"
		}
		if server == "" || tool == "" {
			return "", fmt.Errorf("mcp pattern %q: want server:tool", pat)
		}
		if strings.ContainsAny(server+tool, " \t/") {
			return "", fmt.Errorf("mcp pattern %q: server and tool names have no blanks or slashes", pat)
		}
		return server + ":" + tool, nil
	default:
		return normalizePath(pat)
	}
}

func normalizeHost(pat string) (string, error) {
	if strings.Contains(pat, "://") || strings.ContainsAny(pat, "/?#@ ") {
		return "", fmt.Errorf("web pattern %q: web rules match a host (like web(example.com) or web(*.example.com)), not a URL", pat)
	}
	h := strings.ToLower(strings.TrimSuffix(pat, "."))
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '*' || c == ':' || c == '[' || c == ']') {
			return "", fmt.Errorf("web pattern %q: %q cannot appear in a host name", pat, c)
		}
	}
	if h == "" {
		return "", fmt.Errorf("web pattern %q: empty host", pat)
	}
	// An empty label (".x", "x..y", "x.."): no host has one, and cleaning
	// it away would make the rule another than it reads.
	if strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("web pattern %q: a host name has no empty parts between dots", pat)
	}
	return h, nil
}

// normalizePath cleans a path pattern. Canonical paths never hold "..", "."
// or doubled slashes, so a pattern that relies on them could never match: "."
// and empty parts are cleaned away and ".." is refused.
func normalizePath(pat string) (string, error) {
	var lead, rest string
	switch {
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		lead, rest = "~/", pat[1:]
	case strings.HasPrefix(pat, "~"):
		return "", fmt.Errorf("path pattern %q: ~user is not supported; write the home directory's path", pat)
	case strings.HasPrefix(pat, "/"):
		lead, rest = "/", pat
	case strings.HasPrefix(pat, "*"):
		lead, rest = "", pat // matches anywhere: the * absorbs the root
	default:
		lead, rest = "./", pat
	}
	var out []string
	for _, s := range strings.Split(rest, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("path pattern %q: \"..\" never appears in a canonical path; write the path it leads to", pat)
		}
		out = append(out, s)
	}
	joined := strings.Join(out, "/")
	switch {
	case joined == "" && lead == "~/":
		return "~", nil
	case joined == "" && lead == "./":
		return ".", nil
	}
	return lead + joined, nil
}

// IsRelativePath reports whether a normalized path pattern is relative to the
// workspace.
func IsRelativePath(pattern string) bool { return pattern == "." || strings.HasPrefix(pattern, "./") }

// Lint returns notes on a valid rule that is probably not what its author
// meant. They are warnings, never errors.
func Lint(r Rule) []string {
	var notes []string
	if r.Kind.IsPath() && !r.Bare && IsRelativePath(r.Pattern) {
		notes = append(notes, fmt.Sprintf("%s is relative: it matches only inside the workspace", r))
	}
	if r.Action == Ask && (r.Bare || r.Pattern == "*") {
		notes = append(notes, fmt.Sprintf("ask %s matches everything and so outranks every allow rule of its kind; with no match a command asks anyway", r))
	}
	if r.Action == Allow && (r.Bare || r.Pattern == "*") {
		notes = append(notes, fmt.Sprintf("allow %s allows every %s request that no deny or ask rule catches", r, r.Kind))
	}
	return notes
}
