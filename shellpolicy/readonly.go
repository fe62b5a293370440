package shellpolicy

import (
	"path"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// ReadOnlyCommand is a built-in read-only default: a command that can only
// read and print, allowed without a rule (source built-in) unless the
// settings say read_only_defaults = false.
type ReadOnlyCommand struct {
	// Pattern is the default as a shell rule pattern ("git status *").
	Pattern string
	Why     string

	name string // the command
	sub  string // its subcommand (git status)
	// guards are the forms of it that can write or run programs.
	guards []string

	// Made once, when the package starts: the guards themselves, what
	// words could hit one of them, and the built-in allow rule a covered
	// segment reports.
	guardList []*Guard
	filter    guardFilter
	allow     rule.Rule
}

// guardFilter tells, for most words, that no guard of a command can hit
// them without trying each: a guard's word is listed, a long option (or a
// prefix of one) begins with the first letter of one of the guards' long
// options, and a short option is one of their letters.
type guardFilter struct {
	words      bool      // some guard lists words
	longFirst  [256]bool // the first letters of the guards' long options
	shortChars [256]bool // the guards' short options
}

func newGuardFilter(guards []*Guard) guardFilter {
	var f guardFilter
	for _, g := range guards {
		f.words = f.words || len(g.words) > 0
		for _, l := range g.longs {
			if l != "" {
				f.longFirst[l[0]] = true
			}
		}
		for i := 0; i < len(g.shorts); i++ {
			f.shortChars[g.shorts[i]] = true
		}
	}
	return f
}

// mayHit reports whether some guard may hit the word; false is certain.
func (f *guardFilter) mayHit(gw guardWord) bool {
	switch {
	case f.words:
		return true
	case gw.isLong:
		return gw.long == "" || f.longFirst[gw.long[0]]
	default:
		for i := 0; i < len(gw.short); i++ {
			if f.shortChars[gw.short[i]] {
				return true
			}
		}
		return false
	}
}

// Guard is a form of a read-only command that can write files or run other
// programs. A guard hit keeps the read-only default from covering the
// command, which then falls to the default (it asks, and a permission mode
// may fold that ask), with the guard named as the reason. Guards are not ask
// rules: a user's ask rule asks even in bypass.
type Guard struct {
	ID      string
	Command string // the command it applies to, or "*" for every read-only command
	// Pattern shows the guarded form as a shell rule pattern.
	Pattern string
	Why     string

	longs    []string // long options, matched as the tool does (unique prefixes too)
	exact    []string // long options that share a prefix but are safe (git's --text)
	shorts   string   // short options, alone or clustered
	words    []string // words (find's predicates)
	operands int      // more operands than this are an output file (uniq IN OUT)

	ask rule.Rule // the built-in ask rule a segment that hits it reports, made once
}

// guardTable lists every guard, with why it exists.
var guardTable = []Guard{
	{ID: "git-config", Command: "git", Pattern: "git -c * *", Why: "git -c and --config-env set any configuration, such as an alias, pager or diff driver that runs a command",
		shorts: "c", longs: []string{"config-env"}},
	{ID: "git-exec-path", Command: "git", Pattern: "git --exec-path=* *", Why: "git --exec-path runs git's helper programs from another directory"},
	{ID: "git-other-repo", Command: "git", Pattern: "git -C * *", Why: "git -C, --git-dir and --work-tree outside the workspace read another repository's configuration, whose hooks, pager and fsmonitor run commands"},
	{ID: "git-unknown-option", Command: "git", Pattern: "git --* *", Why: "a global option guard does not know may change what git runs"},
	{ID: "git-output", Command: "git", Pattern: "git * --output*", Why: "--output writes the diff to a file", longs: []string{"output"}},
	{ID: "git-ext-diff", Command: "git", Pattern: "git * --ext-diff*", Why: "--ext-diff runs the external diff program", longs: []string{"ext-diff"}},
	{ID: "git-textconv", Command: "git", Pattern: "git * --textconv*", Why: "--textconv runs the configured text conversion programs", longs: []string{"textconv"}, exact: []string{"text"}},
	{ID: "rg-pre", Command: "rg", Pattern: "rg * --pre*", Why: "--pre runs a program on every file searched", longs: []string{"pre"}},
	{ID: "rg-pre-glob", Command: "rg", Pattern: "rg * --pre-glob*", Why: "--pre-glob chooses the files --pre runs on", longs: []string{"pre-glob"}},
	{ID: "rg-hostname-bin", Command: "rg", Pattern: "rg * --hostname-bin*", Why: "--hostname-bin runs a program to find the host name", longs: []string{"hostname-bin"}},
	{ID: "rg-config", Command: "rg", Pattern: "RIPGREP_CONFIG_PATH=* rg *", Why: "RIPGREP_CONFIG_PATH makes rg read options, such as --pre, from a file"},
	{ID: "find-exec", Command: "find", Pattern: "find * -exec*", Why: "-exec, -execdir, -ok and -okdir run a command on each file found",
		words: []string{"-exec", "-execdir", "-ok", "-okdir"}},
	{ID: "find-delete", Command: "find", Pattern: "find * -delete*", Why: "-delete deletes each file found", words: []string{"-delete"}},
	{ID: "find-fprint", Command: "find", Pattern: "find * -fprint*", Why: "-fprint, -fprint0, -fprintf and -fls write to a file",
		words: []string{"-fprint", "-fprint0", "-fprintf", "-fls"}},
	{ID: "sort-output", Command: "sort", Pattern: "sort * -o *", Why: "-o writes the result to a file", shorts: "o", longs: []string{"output"}},
	{ID: "sort-compress", Command: "sort", Pattern: "sort * --compress-program*", Why: "--compress-program runs a program", longs: []string{"compress-program"}},
	{ID: "sed-write", Command: "sed", Pattern: "sed *", Why: "sed can edit files in place (-i), write files (w) and run commands (e); only print-only scripts are read-only"},
	{ID: "uniq-output", Command: "uniq", Pattern: "uniq * IN OUT", Why: "a second operand is a file uniq writes", operands: 1},
	{ID: "xxd-output", Command: "xxd", Pattern: "xxd * IN OUT", Why: "a second operand is a file xxd writes", operands: 1},
	{ID: "printf-v", Command: "printf", Pattern: "printf -v *", Why: "-v assigns to a variable, whose subscript bash evaluates", shorts: "v"},
	{ID: "date-set", Command: "date", Pattern: "date -s *", Why: "-s sets the system clock", shorts: "s", longs: []string{"set"}},
	{ID: "tree-output", Command: "tree", Pattern: "tree * -o *", Why: "-o writes to a file, and -R writes an index in every directory", shorts: "oR"},
	{ID: "file-compile", Command: "file", Pattern: "file -C *", Why: "-C writes a compiled magic file", shorts: "C", longs: []string{"compile"}},
	{ID: "read-names", Command: "read", Pattern: "read NAME", Why: "read assigns variables; only lower-case shell variables, which no program reads, are read-only"},
	{ID: "set-options", Command: "set", Pattern: "set -o *", Why: "only set's options that do not change how later commands are read are read-only"},
	{ID: "declare-export", Command: "declare", Pattern: "export *", Why: "exported or special variables change what later programs do"},
	{ID: "assignment", Command: "*", Pattern: "NAME=* *", Why: "a variable set for the command (PAGER, LD_PRELOAD, GIT_*) can make it run other programs; only locale, time zone and colour settings are read-only"},
	{ID: "writes-file", Command: "*", Pattern: "*", Why: "the command writes or deletes a file through one of its options"},
	{ID: "dynamic-argument", Command: "*", Pattern: "* $X", Why: "a word known only at run time could be one of the command's guarded options"},
	{ID: "path-command", Command: "*", Pattern: "/path/to/cmd *", Why: "a command given by path may be any program of that name"},
}

var guardIndex = func() map[string]*Guard {
	m := make(map[string]*Guard, len(guardTable))
	for i := range guardTable {
		m[guardTable[i].ID] = &guardTable[i]
	}
	return m
}()

// readOnlyTable lists the read-only defaults.
var readOnlyTable = []ReadOnlyCommand{
	{name: "ls", Why: "lists directories"},
	{name: "pwd", Why: "prints the working directory"},
	{name: "cat", Why: "prints files"},
	{name: "head", Why: "prints the start of files"},
	{name: "tail", Why: "prints the end of files"},
	{name: "wc", Why: "counts lines, words and bytes"},
	{name: "stat", Why: "prints file metadata"},
	{name: "du", Why: "prints disk usage"},
	{name: "df", Why: "prints free space"},
	{name: "which", Why: "prints where a program is"},
	{name: "grep", Why: "searches text"},
	{name: "egrep", Why: "searches text"},
	{name: "fgrep", Why: "searches text"},
	{name: "rg", Why: "searches text", guards: []string{"rg-pre", "rg-pre-glob", "rg-hostname-bin"}},
	{name: "diff", Why: "compares files"},
	{name: "git", sub: "status", Why: "shows the working tree's state", guards: gitGuards},
	{name: "git", sub: "log", Why: "shows history", guards: gitGuards},
	{name: "git", sub: "show", Why: "shows objects", guards: gitGuards},
	{name: "git", sub: "diff", Why: "shows changes", guards: gitGuards},
	{name: "git", sub: "blame", Why: "shows who changed each line", guards: gitGuards},
	{name: "git", sub: "rev-parse", Why: "resolves names to object ids", guards: gitGuards},
	{name: "echo", Why: "prints its arguments"},
	{name: "printf", Why: "prints formatted text", guards: []string{"printf-v"}},
	{name: "true", Why: "does nothing"},
	{name: "false", Why: "does nothing"},
	{name: ":", Why: "does nothing"},
	{name: "test", Why: "evaluates a condition"},
	{name: "[", Why: "evaluates a condition"},
	{name: "basename", Why: "prints part of a path"},
	{name: "dirname", Why: "prints part of a path"},
	{name: "realpath", Why: "prints a resolved path"},
	{name: "readlink", Why: "prints a link's target"},
	{name: "sort", Why: "sorts text to standard output", guards: []string{"sort-output", "sort-compress"}},
	{name: "uniq", Why: "filters repeated lines to standard output", guards: []string{"uniq-output"}},
	{name: "cut", Why: "prints parts of lines"},
	{name: "tr", Why: "translates characters"},
	{name: "jq", Why: "filters JSON; it cannot write files or run programs"},
	{name: "find", Why: "lists files", guards: []string{"find-exec", "find-delete", "find-fprint"}},
	{name: "sed", Why: "prints edited text, in its print-only forms", guards: []string{"sed-write"}},
	{name: "cd", Why: "changes the shell's directory; later commands are judged there"},
	{name: "type", Why: "describes a command name"},
	{name: "whoami", Why: "prints the user name"},
	{name: "id", Why: "prints user and group ids"},
	{name: "uname", Why: "prints system information"},
	{name: "date", Why: "prints the date", guards: []string{"date-set"}},
	{name: "nproc", Why: "prints the number of CPUs"},
	{name: "tree", Why: "lists directories as a tree", guards: []string{"tree-output"}},
	{name: "file", Why: "guesses file types", guards: []string{"file-compile"}},
	{name: "xxd", Why: "dumps bytes to standard output", guards: []string{"xxd-output"}},
	{name: "od", Why: "dumps bytes"},
	{name: "hexdump", Why: "dumps bytes"},
	{name: "strings", Why: "prints the text in binary files"},
	{name: "base64", Why: "encodes and decodes to standard output"},
	{name: "md5sum", Why: "hashes files"},
	{name: "sha1sum", Why: "hashes files"},
	{name: "sha256sum", Why: "hashes files"},
	{name: "sha512sum", Why: "hashes files"},
	{name: "cmp", Why: "compares files"},
	{name: "comm", Why: "compares sorted files"},
	{name: "nl", Why: "numbers lines"},
	{name: "tac", Why: "prints lines in reverse"},
	{name: "rev", Why: "reverses lines"},
	{name: "seq", Why: "prints numbers"},
	{name: "sleep", Why: "waits"},
	{name: "column", Why: "formats columns"},
	{name: "fold", Why: "wraps lines"},
	{name: "paste", Why: "joins lines"},
	{name: "printenv", Why: "prints the environment"},
	{name: "exit", Why: "ends the shell"},
	{name: "read", Why: "reads a line into shell variables", guards: []string{"read-names"}},
	{name: "set", Why: "sets shell options that do not change how commands are read", guards: []string{"set-options"}},
}

var gitGuards = []string{"git-config", "git-exec-path", "git-other-repo", "git-unknown-option", "git-output", "git-ext-diff", "git-textconv"}

// The read-only defaults that are not commands: a shell variable set, a
// declaration, [[ ]] and arithmetic.
var (
	roAssign = ReadOnlyCommand{Pattern: "name=*", Why: "sets a shell variable with a lower-case name, which no program reads from the environment"}
	roDecl   = ReadOnlyCommand{Pattern: "local *", Why: "declares shell variables with lower-case names (declare, local, typeset, readonly)"}
	roTest   = ReadOnlyCommand{Pattern: "[[ * ]]", Why: "evaluates a condition"}
	roArith  = ReadOnlyCommand{Pattern: "(( * ))", Why: "computes with numbers"}
)

func init() {
	for i := range readOnlyTable {
		e := &readOnlyTable[i]
		if e.sub != "" {
			e.Pattern = e.name + " " + e.sub + " *"
		} else {
			e.Pattern = e.name + " *"
		}
		for _, id := range e.guards {
			e.guardList = append(e.guardList, guardIndex[id])
		}
		e.filter = newGuardFilter(e.guardList)
		e.allow = builtinRule(rule.Allow, e.Pattern, e.Why)
	}
	for _, e := range []*ReadOnlyCommand{&roAssign, &roDecl, &roTest, &roArith} {
		e.allow = builtinRule(rule.Allow, e.Pattern, e.Why)
	}
	for i := range guardTable {
		g := &guardTable[i]
		g.ask = builtinRule(rule.Ask, g.Pattern, g.Why)
	}
}

// wrapperReadOnly holds, for each wrapper that changes nothing itself, the
// read-only default that covers it as a segment (the command it runs is
// judged on its own).
var wrapperReadOnly = func() map[string]*ReadOnlyCommand {
	m := map[string]*ReadOnlyCommand{}
	for _, ws := range wrapperTable {
		if ws.ReadOnly {
			e := &ReadOnlyCommand{Pattern: ws.Name + " *", Why: ws.Why, name: ws.Name}
			e.allow = builtinRule(rule.Allow, e.Pattern, e.Why)
			m[ws.Name] = e
		}
	}
	return m
}()

var readOnlyIndex = func() map[string][]*ReadOnlyCommand {
	m := map[string][]*ReadOnlyCommand{}
	for i := range readOnlyTable {
		e := &readOnlyTable[i]
		m[e.name] = append(m[e.name], e)
	}
	return m
}()

// ReadOnlyCommands returns the table of read-only defaults.
func ReadOnlyCommands() []ReadOnlyCommand {
	out := append([]ReadOnlyCommand(nil), readOnlyTable...)
	return append(out, roAssign, roDecl, roTest, roArith)
}

// Guards returns the table of guards.
func Guards() []Guard { return append([]Guard(nil), guardTable...) }

// BuiltinRules returns the read-only defaults as allow rules and the guards
// as ask rules, of source built-in, with why each exists: what `guard rules
// list` shows. The guards are matched by reading the command's options, not
// by these patterns, which only show them.
func BuiltinRules() []rule.Rule {
	var out []rule.Rule
	for _, e := range ReadOnlyCommands() {
		out = append(out, builtinRule(rule.Allow, e.Pattern, e.Why))
	}
	for _, g := range guardTable {
		out = append(out, builtinRule(rule.Ask, g.Pattern, g.Why))
	}
	for _, wr := range wrapperTable {
		if wr.ReadOnly {
			out = append(out, builtinRule(rule.Allow, wr.Name+" *", wr.Why+"; the command it runs is judged on its own"))
		}
	}
	return out
}

func builtinRule(a rule.Action, pattern, why string) rule.Rule {
	return rule.Rule{Action: a, Kind: rule.Shell, Pattern: pattern, Written: "shell(" + pattern + ")", Source: rule.SourceBuiltin, Why: why}
}

// roResult is how the read-only defaults judge a segment.
type roResult struct {
	entry  *ReadOnlyCommand // the default that covers the command; nil if none
	guard  *Guard           // the guard that keeps it from covering this use
	detail string           // what the guard found
}

func (r roResult) covered() bool { return r.entry != nil && r.guard == nil }

// safeAssignTable lists the variables that may be set for a read-only
// command: none of them makes a program run another. Values, where given,
// are the only ones allowed.
var safeAssignTable = map[string][]string{
	"LANG":      nil, // the locale
	"LANGUAGE":  nil,
	"LC_ALL":    nil,
	"TZ":        nil, // the time zone
	"NO_COLOR":  nil, // colour off
	"CLICOLOR":  nil,
	"COLUMNS":   nil, // the terminal's width
	"LINES":     nil,
	"PAGER":     {"cat", ""}, // a pager that only prints
	"GIT_PAGER": {"cat", ""},
}

func safeAssign(a Assign) bool {
	name := a.Name
	if strings.HasPrefix(name, "LC_") && isName(name) {
		name = "LC_ALL"
	}
	values, ok := safeAssignTable[name]
	if !ok {
		return false
	}
	if values == nil {
		return true
	}
	v, ok := a.Value.Literal()
	return ok && containsString(values, v)
}

// unsafeLowerNames are lower-case variables that programs do read from the
// environment.
var unsafeLowerNames = map[string]string{
	"http_proxy":  "sends HTTP traffic through a proxy",
	"https_proxy": "sends HTTPS traffic through a proxy",
	"ftp_proxy":   "sends FTP traffic through a proxy",
	"all_proxy":   "sends traffic through a proxy",
	"no_proxy":    "changes which hosts bypass the proxy",
}

// shellVariable reports whether a bare assignment sets only a shell variable:
// a lower-case name no program reads from the environment.
func shellVariable(name string) bool {
	name = baseName(name)
	if !isName(name) || strings.ToLower(name) != name {
		return false
	}
	_, unsafe := unsafeLowerNames[name]
	return !unsafe
}

// readOnlyOf judges a segment by the read-only defaults.
func readOnlyOf(s *Segment, opts Options) roResult {
	switch s.kind {
	case segAssign:
		for _, a := range s.Assigns {
			if !shellVariable(a.Name) {
				return roResult{entry: &roAssign, guard: guardIndex["assignment"], detail: a.Name}
			}
		}
		return roResult{entry: &roAssign}
	case segDecl:
		return readOnlyDecl(s)
	case segTest:
		return roResult{entry: &roTest}
	case segArith:
		return roResult{entry: &roArith}
	}
	name, ok := s.Name()
	if !ok {
		return roResult{}
	}
	var entry *ReadOnlyCommand
	if e := wrapperReadOnly[s.Wrapper]; s.Wrapper != "" && e != nil {
		entry = e
	} else if entry = lookupReadOnly(s.command(name).readOnly, s.Words); entry == nil {
		return roResult{}
	}
	res := roResult{entry: entry}
	if strings.Contains(name, "/") {
		res.guard, res.detail = guardIndex["path-command"], name
		return res
	}
	for _, a := range s.Assigns {
		if !safeAssign(a) {
			id := "assignment"
			if a.Name == "RIPGREP_CONFIG_PATH" {
				id = "rg-config"
			}
			res.guard, res.detail = guardIndex[id], a.Name+"="+a.Value.String()
			return res
		}
	}
	for _, f := range s.Files {
		if !f.Redirect && (f.Op == rule.Write || f.Op == rule.Delete) {
			res.guard, res.detail = guardIndex["writes-file"], f.By+" "+f.Path.String()
			return res
		}
	}
	if len(entry.guards) == 0 {
		return res
	}
	if g, detail := guardHit(entry, s, opts); g != nil {
		res.guard, res.detail = g, detail
	}
	return res
}

// lookupReadOnly finds the read-only default for a command among the
// entries of its name: for git, by the subcommand after its global options.
func lookupReadOnly(entries []*ReadOnlyCommand, words []Word) *ReadOnlyCommand {
	if len(entries) == 0 {
		return nil
	}
	if entries[0].sub == "" {
		return entries[0]
	}
	r := gitGlobalOpts.parse(words[1:], true, false)
	if r.end >= len(words)-1 {
		return nil
	}
	sub, ok := words[1+r.end].Literal()
	if !ok {
		return nil
	}
	for _, e := range entries {
		if e.sub == sub {
			return e
		}
	}
	return nil
}

func readOnlyDecl(s *Segment) roResult {
	variant, _ := s.Name()
	if variant == "export" {
		return roResult{entry: &roDecl, guard: guardIndex["declare-export"], detail: "export"}
	}
	for _, wd := range s.Words[1:] {
		head, _ := literalHead(wd)
		if strings.HasPrefix(head, "-") || strings.HasPrefix(head, "+") {
			if strings.ContainsAny(head[1:], "xniIgtuclF") && head[0] == '-' {
				return roResult{entry: &roDecl, guard: guardIndex["declare-export"], detail: head}
			}
			continue
		}
		name, _, _ := strings.Cut(head, "=")
		if !shellVariable(name) {
			return roResult{entry: &roDecl, guard: guardIndex["declare-export"], detail: name}
		}
	}
	return roResult{entry: &roDecl}
}

// guardHit finds the first guard of entry that the segment's words hit.
func guardHit(entry *ReadOnlyCommand, s *Segment, opts Options) (*Guard, string) {
	args := s.Words[1:]
	if entry.name == "git" {
		if g, d := gitGlobalGuard(args, s.Dirs, opts); g != nil {
			return g, d
		}
		r := gitGlobalOpts.parse(args, true, false)
		args = args[r.end+1:]
	}
	if entry.name == "sed" {
		if why := sedNotPrintOnly(args); why != "" {
			return guardIndex["sed-write"], why
		}
		return nil, ""
	}
	if entry.name == "read" {
		b := builtinTable["read"]
		r := b.opts.parse(args, false, false)
		for _, o := range r.values(b.names...) {
			if n, _ := o.value.Literal(); !shellVariable(n) {
				return guardIndex["read-names"], n
			}
		}
		for _, i := range r.operands {
			if n, _ := args[i].Literal(); !shellVariable(n) {
				return guardIndex["read-names"], args[i].String()
			}
		}
		return nil, ""
	}
	if entry.name == "set" {
		for _, a := range args {
			v, ok := a.Literal()
			if !ok {
				return guardIndex["set-options"], a.String()
			}
			if v == "--" || (!strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+")) {
				break
			}
			if v == "-o" || v == "+o" {
				continue
			}
			if strings.Trim(v[1:], "euxvfCETo") != "" {
				return guardIndex["set-options"], v
			}
		}
		for i, a := range args {
			v, _ := a.Literal()
			if (v == "-o" || v == "+o") && i+1 < len(args) {
				o, _ := args[i+1].Literal()
				if _, safe := safeShellOptions[o]; !safe {
					return guardIndex["set-options"], v + " " + o
				}
			}
		}
		return nil, ""
	}
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		head, whole := literalHead(a)
		if !whole && (head == "" || strings.HasPrefix(head, "-")) {
			return guardIndex["dynamic-argument"], a.String()
		}
		if head == "--" && whole {
			operands += len(args) - i - 1
			break
		}
		matched := false
		gw := readGuardWord(head)
		if !entry.filter.mayHit(gw) {
			if !strings.HasPrefix(head, "-") || head == "-" {
				operands++
			}
			continue
		}
		for _, g := range entry.guardList {
			if g.hits(gw) {
				return g, head
			}
			if len(g.words) > 0 && containsString(g.words, head) {
				matched = true
			}
		}
		if !matched && (!strings.HasPrefix(head, "-") || head == "-") {
			operands++
		}
	}
	for _, g := range entry.guardList {
		if g.operands > 0 {
			if fc := fileTableIndex[entry.name]; fc != nil {
				// Count operands as the tool does, skipping option values.
				operands = len(fc.opts.parse(args, false, false).operands)
			}
			if operands > g.operands {
				return g, "a second operand"
			}
		}
	}
	return nil, ""
}

// guardWord is a word read once for matching against every guard.
type guardWord struct {
	word   string
	long   string // the name of a long option (--name or --name=value)
	isLong bool
	short  string // the letters of a short option or cluster (-abc)
}

func readGuardWord(word string) guardWord {
	gw := guardWord{word: word}
	switch {
	case strings.HasPrefix(word, "--") && len(word) > 2:
		gw.long, _, _ = strings.Cut(word[2:], "=")
		gw.isLong = true
	case strings.HasPrefix(word, "-") && len(word) > 1:
		gw.short = word[1:]
	}
	return gw
}

// hits reports whether a word is one of the guard's words or options: a
// short option alone or in a cluster, or a long option or, as getopt_long
// reads them, any unambiguous prefix of one.
func (g *Guard) hits(gw guardWord) bool {
	if len(g.words) > 0 && containsString(g.words, gw.word) {
		return true
	}
	switch {
	case gw.isLong:
		if containsString(g.exact, gw.long) {
			return false
		}
		for _, l := range g.longs {
			if strings.HasPrefix(l, gw.long) {
				return true
			}
		}
	case gw.short != "" && g.shorts != "":
		return strings.ContainsAny(gw.short, g.shorts)
	}
	return false
}

// gitGlobalOpts are the options git reads before its subcommand.
var gitGlobalOpts = optSpec{flags: "pPvh", args: "Cc", exact: true,
	long: []string{"paginate", "no-pager", "bare", "no-replace-objects", "literal-pathspecs", "glob-pathspecs", "noglob-pathspecs",
		"icase-pathspecs", "no-optional-locks", "no-lazy-fetch", "no-advice", "version", "help", "html-path", "man-path", "info-path"},
	longArg: []string{"git-dir", "work-tree", "namespace", "super-prefix", "config-env", "attr-source"},
	longOpt: []string{"exec-path", "list-cmds"}}

// gitGlobalGuard judges git's global options.
func gitGlobalGuard(args []Word, dirs Dirs, opts Options) (*Guard, string) {
	r := gitGlobalOpts.parse(args, true, true)
	if r.err != "" {
		return guardIndex["git-unknown-option"], r.err
	}
	for _, o := range r.opts {
		switch o.name {
		case "-c", "--config-env":
			return guardIndex["git-config"], o.name + " " + o.value.String()
		case "--exec-path":
			if o.has {
				return guardIndex["git-exec-path"], o.name + "=" + o.value.String()
			}
		case "--git-dir", "--work-tree":
			return guardIndex["git-other-repo"], o.name + " " + o.value.String()
		case "-C":
			if !insideWorkspace(o.value, dirs, opts) {
				return guardIndex["git-other-repo"], "-C " + o.value.String()
			}
			dirs = dirsAfter(o.value, dirs, opts)
		}
	}
	if opts.Workspace != "" && !dirsInside(dirs, opts.Workspace) {
		// git run outside the workspace reads that repository's
		// configuration.
		return guardIndex["git-other-repo"], "git run outside the workspace"
	}
	return nil, ""
}

func dirsAfter(w Word, dirs Dirs, opts Options) Dirs {
	p, ok := w.Path(opts.Home)
	switch {
	case !ok:
		return unknownDirs
	case path.IsAbs(p):
		return knownDir(p)
	}
	return dirs.join(p)
}

func insideWorkspace(w Word, dirs Dirs, opts Options) bool {
	if opts.Workspace == "" {
		return false
	}
	return dirsInside(dirsAfter(w, dirs, opts), opts.Workspace)
}

func dirsInside(d Dirs, ws string) bool {
	if d.Unknown || len(d.Known) == 0 {
		return false
	}
	ws = path.Clean(ws)
	prefix := strings.TrimSuffix(ws, "/") // x is inside when it is prefix + "/" + ...
	for _, x := range d.Known {
		if x != ws && !(len(x) > len(prefix) && x[len(prefix)] == '/' && strings.HasPrefix(x, prefix)) {
			return false
		}
	}
	return true
}
