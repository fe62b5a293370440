package shellpolicy

import (
	"path"
	"slices"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// ReadOnlyCommand is a built-in read-only default: a command that can only
// read and print, allowed without a rule (source built-in) unless the
// settings say read_only_defaults = false.
type ReadOnlyCommand struct {
	// Pattern is the default as a shell rule pattern ("git status *"):
	// the name, the subcommand if any, and " *" (TestReadOnlyTableWellFormed).
	Pattern string
	Why     string

	name string // the command
	sub  string // its subcommand (git status)
	// guards are the forms of it that can write or run programs.
	guards []guardID
}

// guardFilter tells, for most words, that no guard of a command can hit
// them without trying each: a guard's word is listed, a long option (or a
// prefix of one) begins with the first letter of one of the guards' long
// options, and a short option is one of their letters.
type guardFilter struct {
	words      bool    // some guard lists words
	longFirst  byteSet // the first letters of the guards' long options
	shortChars byteSet // the guards' short options
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// newGuardFilter is the filter of a command's guards.
func newGuardFilter(guards []guardID) guardFilter {
	var f guardFilter
	for _, id := range guards {
		g := id.guard()
		f.words = f.words || len(g.words) > 0
		for _, l := range g.longs {
			if l != "" {
				f.longFirst.add(l[0])
			}
		}
		for i := 0; i < len(g.shorts); i++ {
			f.shortChars.add(g.shorts[i])
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
		return gw.long == "" || f.longFirst.has(gw.long[0])
	default:
		for i := 0; i < len(gw.short); i++ {
			if f.shortChars.has(gw.short[i]) {
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
}

// guardID names a guard: its index in guardTable.
type guardID uint8

// The guards, in the order of guardTable.
const (
	guardGitConfig guardID = iota
	guardGitExecPath
	guardGitOtherRepo
	guardGitUnknownOption
	guardGitOutput
	guardGitExtDiff
	guardGitTextconv
	guardRgPre
	guardRgPreGlob
	guardRgHostnameBin
	guardRgConfig
	guardFindExec
	guardFindDelete
	guardFindFprint
	guardSortOutput
	guardSortCompress
	guardSedWrite
	guardUniqOutput
	guardXxdOutput
	guardPrintfV
	guardDateSet
	guardTreeOutput
	guardFileCompile
	guardReadNames
	guardSetOptions
	guardDeclareExport
	guardAssignment
	guardWritesFile
	guardDynamicArgument
	guardPathCommand
	guardCount // the number of guards
)

// guard is the guard of an id.
func (id guardID) guard() *Guard { return &guardTable[id] }

// guardTable lists every guard, with why it exists. It is an array indexed
// by guardID, so that the compiler lays it out and checks every name: the
// package builds nothing for it when it starts.
var guardTable = [guardCount]Guard{
	guardGitConfig: {ID: "git-config", Command: "git", Pattern: "git -c * *", Why: "git -c and --config-env set any configuration, such as an alias, pager or diff driver that runs a command",
		shorts: "c", longs: []string{"config-env"}},
	guardGitExecPath:      {ID: "git-exec-path", Command: "git", Pattern: "git --exec-path=* *", Why: "git --exec-path runs git's helper programs from another directory"},
	guardGitOtherRepo:     {ID: "git-other-repo", Command: "git", Pattern: "git -C * *", Why: "git -C, --git-dir and --work-tree outside the workspace read another repository's configuration, whose hooks, pager and fsmonitor run commands"},
	guardGitUnknownOption: {ID: "git-unknown-option", Command: "git", Pattern: "git --* *", Why: "a global option guard does not know may change what git runs"},
	guardGitOutput:        {ID: "git-output", Command: "git", Pattern: "git * --output*", Why: "--output writes the diff to a file", longs: []string{"output"}},
	guardGitExtDiff:       {ID: "git-ext-diff", Command: "git", Pattern: "git * --ext-diff*", Why: "--ext-diff runs the external diff program", longs: []string{"ext-diff"}},
	guardGitTextconv:      {ID: "git-textconv", Command: "git", Pattern: "git * --textconv*", Why: "--textconv runs the configured text conversion programs", longs: []string{"textconv"}, exact: []string{"text"}},
	guardRgPre:            {ID: "rg-pre", Command: "rg", Pattern: "rg * --pre*", Why: "--pre runs a program on every file searched", longs: []string{"pre"}},
	guardRgPreGlob:        {ID: "rg-pre-glob", Command: "rg", Pattern: "rg * --pre-glob*", Why: "--pre-glob chooses the files --pre runs on", longs: []string{"pre-glob"}},
	guardRgHostnameBin:    {ID: "rg-hostname-bin", Command: "rg", Pattern: "rg * --hostname-bin*", Why: "--hostname-bin runs a program to find the host name", longs: []string{"hostname-bin"}},
	guardRgConfig:         {ID: "rg-config", Command: "rg", Pattern: "RIPGREP_CONFIG_PATH=* rg *", Why: "RIPGREP_CONFIG_PATH makes rg read options, such as --pre, from a file"},
	guardFindExec: {ID: "find-exec", Command: "find", Pattern: "find * -exec*", Why: "-exec, -execdir, -ok and -okdir run a command on each file found",
		words: []string{"-exec", "-execdir", "-ok", "-okdir"}},
	guardFindDelete: {ID: "find-delete", Command: "find", Pattern: "find * -delete*", Why: "-delete deletes each file found", words: []string{"-delete"}},
	guardFindFprint: {ID: "find-fprint", Command: "find", Pattern: "find * -fprint*", Why: "-fprint, -fprint0, -fprintf and -fls write to a file",
		words: []string{"-fprint", "-fprint0", "-fprintf", "-fls"}},
	guardSortOutput:      {ID: "sort-output", Command: "sort", Pattern: "sort * -o *", Why: "-o writes the result to a file", shorts: "o", longs: []string{"output"}},
	guardSortCompress:    {ID: "sort-compress", Command: "sort", Pattern: "sort * --compress-program*", Why: "--compress-program runs a program", longs: []string{"compress-program"}},
	guardSedWrite:        {ID: "sed-write", Command: "sed", Pattern: "sed *", Why: "sed can edit files in place (-i), write files (w) and run commands (e); only print-only scripts are read-only"},
	guardUniqOutput:      {ID: "uniq-output", Command: "uniq", Pattern: "uniq * IN OUT", Why: "a second operand is a file uniq writes", operands: 1},
	guardXxdOutput:       {ID: "xxd-output", Command: "xxd", Pattern: "xxd * IN OUT", Why: "a second operand is a file xxd writes", operands: 1},
	guardPrintfV:         {ID: "printf-v", Command: "printf", Pattern: "printf -v *", Why: "-v assigns to a variable, whose subscript bash evaluates", shorts: "v"},
	guardDateSet:         {ID: "date-set", Command: "date", Pattern: "date -s *", Why: "-s sets the system clock", shorts: "s", longs: []string{"set"}},
	guardTreeOutput:      {ID: "tree-output", Command: "tree", Pattern: "tree * -o *", Why: "-o writes to a file, and -R writes an index in every directory", shorts: "oR"},
	guardFileCompile:     {ID: "file-compile", Command: "file", Pattern: "file -C *", Why: "-C writes a compiled magic file", shorts: "C", longs: []string{"compile"}},
	guardReadNames:       {ID: "read-names", Command: "read", Pattern: "read NAME", Why: "read assigns variables; only lower-case shell variables, which no program reads, are read-only"},
	guardSetOptions:      {ID: "set-options", Command: "set", Pattern: "set -o *", Why: "only set's options that do not change how later commands are read are read-only"},
	guardDeclareExport:   {ID: "declare-export", Command: "declare", Pattern: "export *", Why: "exported or special variables change what later programs do"},
	guardAssignment:      {ID: "assignment", Command: "*", Pattern: "NAME=* *", Why: "a variable set for the command (PAGER, LD_PRELOAD, GIT_*) can make it run other programs; only locale, time zone and colour settings are read-only"},
	guardWritesFile:      {ID: "writes-file", Command: "*", Pattern: "*", Why: "the command writes or deletes a file through one of its options"},
	guardDynamicArgument: {ID: "dynamic-argument", Command: "*", Pattern: "* $X", Why: "a word known only at run time could be one of the command's guarded options"},
	guardPathCommand:     {ID: "path-command", Command: "*", Pattern: "/path/to/cmd *", Why: "a command given by path may be any program of that name"},
}

// readOnlyTable lists the read-only defaults.
var readOnlyTable = []ReadOnlyCommand{
	{name: "ls", Pattern: "ls *", Why: "lists directories"},
	{name: "pwd", Pattern: "pwd *", Why: "prints the working directory"},
	{name: "cat", Pattern: "cat *", Why: "prints files"},
	{name: "head", Pattern: "head *", Why: "prints the start of files"},
	{name: "tail", Pattern: "tail *", Why: "prints the end of files"},
	{name: "wc", Pattern: "wc *", Why: "counts lines, words and bytes"},
	{name: "stat", Pattern: "stat *", Why: "prints file metadata"},
	{name: "du", Pattern: "du *", Why: "prints disk usage"},
	{name: "df", Pattern: "df *", Why: "prints free space"},
	{name: "which", Pattern: "which *", Why: "prints where a program is"},
	{name: "grep", Pattern: "grep *", Why: "searches text"},
	{name: "egrep", Pattern: "egrep *", Why: "searches text"},
	{name: "fgrep", Pattern: "fgrep *", Why: "searches text"},
	{name: "rg", Pattern: "rg *", Why: "searches text", guards: []guardID{guardRgPre, guardRgPreGlob, guardRgHostnameBin}},
	{name: "diff", Pattern: "diff *", Why: "compares files"},
	{name: "git", sub: "status", Pattern: "git status *", Why: "shows the working tree's state", guards: gitGuards},
	{name: "git", sub: "log", Pattern: "git log *", Why: "shows history", guards: gitGuards},
	{name: "git", sub: "show", Pattern: "git show *", Why: "shows objects", guards: gitGuards},
	{name: "git", sub: "diff", Pattern: "git diff *", Why: "shows changes", guards: gitGuards},
	{name: "git", sub: "blame", Pattern: "git blame *", Why: "shows who changed each line", guards: gitGuards},
	{name: "git", sub: "rev-parse", Pattern: "git rev-parse *", Why: "resolves names to object ids", guards: gitGuards},
	{name: "echo", Pattern: "echo *", Why: "prints its arguments"},
	{name: "printf", Pattern: "printf *", Why: "prints formatted text", guards: []guardID{guardPrintfV}},
	{name: "true", Pattern: "true *", Why: "does nothing"},
	{name: "false", Pattern: "false *", Why: "does nothing"},
	{name: ":", Pattern: ": *", Why: "does nothing"},
	{name: "test", Pattern: "test *", Why: "evaluates a condition"},
	{name: "[", Pattern: "[ *", Why: "evaluates a condition"},
	{name: "basename", Pattern: "basename *", Why: "prints part of a path"},
	{name: "dirname", Pattern: "dirname *", Why: "prints part of a path"},
	{name: "realpath", Pattern: "realpath *", Why: "prints a resolved path"},
	{name: "readlink", Pattern: "readlink *", Why: "prints a link's target"},
	{name: "sort", Pattern: "sort *", Why: "sorts text to standard output", guards: []guardID{guardSortOutput, guardSortCompress}},
	{name: "uniq", Pattern: "uniq *", Why: "filters repeated lines to standard output", guards: []guardID{guardUniqOutput}},
	{name: "cut", Pattern: "cut *", Why: "prints parts of lines"},
	{name: "tr", Pattern: "tr *", Why: "translates characters"},
	{name: "jq", Pattern: "jq *", Why: "filters JSON; it cannot write files or run programs"},
	{name: "find", Pattern: "find *", Why: "lists files", guards: []guardID{guardFindExec, guardFindDelete, guardFindFprint}},
	{name: "sed", Pattern: "sed *", Why: "prints edited text, in its print-only forms", guards: []guardID{guardSedWrite}},
	{name: "cd", Pattern: "cd *", Why: "changes the shell's directory; later commands are judged there"},
	{name: "type", Pattern: "type *", Why: "describes a command name"},
	{name: "whoami", Pattern: "whoami *", Why: "prints the user name"},
	{name: "id", Pattern: "id *", Why: "prints user and group ids"},
	{name: "uname", Pattern: "uname *", Why: "prints system information"},
	{name: "date", Pattern: "date *", Why: "prints the date", guards: []guardID{guardDateSet}},
	{name: "nproc", Pattern: "nproc *", Why: "prints the number of CPUs"},
	{name: "tree", Pattern: "tree *", Why: "lists directories as a tree", guards: []guardID{guardTreeOutput}},
	{name: "file", Pattern: "file *", Why: "guesses file types", guards: []guardID{guardFileCompile}},
	{name: "xxd", Pattern: "xxd *", Why: "dumps bytes to standard output", guards: []guardID{guardXxdOutput}},
	{name: "od", Pattern: "od *", Why: "dumps bytes"},
	{name: "hexdump", Pattern: "hexdump *", Why: "dumps bytes"},
	{name: "strings", Pattern: "strings *", Why: "prints the text in binary files"},
	{name: "base64", Pattern: "base64 *", Why: "encodes and decodes to standard output"},
	{name: "md5sum", Pattern: "md5sum *", Why: "hashes files"},
	{name: "sha1sum", Pattern: "sha1sum *", Why: "hashes files"},
	{name: "sha256sum", Pattern: "sha256sum *", Why: "hashes files"},
	{name: "sha512sum", Pattern: "sha512sum *", Why: "hashes files"},
	{name: "cmp", Pattern: "cmp *", Why: "compares files"},
	{name: "comm", Pattern: "comm *", Why: "compares sorted files"},
	{name: "nl", Pattern: "nl *", Why: "numbers lines"},
	{name: "tac", Pattern: "tac *", Why: "prints lines in reverse"},
	{name: "rev", Pattern: "rev *", Why: "reverses lines"},
	{name: "seq", Pattern: "seq *", Why: "prints numbers"},
	{name: "sleep", Pattern: "sleep *", Why: "waits"},
	{name: "column", Pattern: "column *", Why: "formats columns"},
	{name: "fold", Pattern: "fold *", Why: "wraps lines"},
	{name: "paste", Pattern: "paste *", Why: "joins lines"},
	{name: "printenv", Pattern: "printenv *", Why: "prints the environment"},
	{name: "exit", Pattern: "exit *", Why: "ends the shell"},
	{name: "read", Pattern: "read *", Why: "reads a line into shell variables", guards: []guardID{guardReadNames}},
	{name: "set", Pattern: "set *", Why: "sets shell options that do not change how commands are read", guards: []guardID{guardSetOptions}},
}

var gitGuards = []guardID{guardGitConfig, guardGitExecPath, guardGitOtherRepo, guardGitUnknownOption, guardGitOutput, guardGitExtDiff, guardGitTextconv}

// roEntry is a read-only default as the command index holds it: the
// table's entry, with what is made of it once, on first use, rather than
// for every segment it covers.
type roEntry struct {
	*ReadOnlyCommand
	// written is its built-in allow rule as written: "shell(git status *)".
	written string
	// filter is the filter of its guards; nil when it has none.
	filter *guardFilter
}

// allowRule is its built-in allow rule.
func (e *roEntry) allowRule() rule.Rule {
	return rule.Rule{Action: rule.Allow, Kind: rule.Shell, Pattern: e.Pattern, Written: e.written, Source: rule.SourceBuiltin, Why: e.Why}
}

// The read-only defaults that are not commands: a shell variable set, a
// declaration, [[ ]] and arithmetic.
var (
	roAssign = roEntry{written: "shell(name=*)", ReadOnlyCommand: &ReadOnlyCommand{Pattern: "name=*",
		Why: "sets a shell variable with a lower-case name, which no program reads from the environment"}}
	roDecl = roEntry{written: "shell(local *)", ReadOnlyCommand: &ReadOnlyCommand{Pattern: "local *",
		Why: "declares shell variables with lower-case names (declare, local, typeset, readonly)"}}
	roTest  = roEntry{written: "shell([[ * ]])", ReadOnlyCommand: &ReadOnlyCommand{Pattern: "[[ * ]]", Why: "evaluates a condition"}}
	roArith = roEntry{written: "shell((( * )))", ReadOnlyCommand: &ReadOnlyCommand{Pattern: "(( * ))", Why: "computes with numbers"}}
)

// readOnlyEntries makes the index's read-only entries: one for each entry
// of readOnlyTable, in its order, then one for each wrapper that changes
// nothing itself (its pattern "NAME *", its reason the wrapper's), which
// covers the wrapper as a segment (the command it runs is judged on its
// own). The rules' texts share one string and the entries with the same
// guards one filter: a few allocations for all.
func readOnlyEntries() []roEntry {
	const pre, post = "shell(", ")"
	n, size, filters := len(readOnlyTable), 0, 0
	for i := range readOnlyTable {
		size += len(pre) + len(readOnlyTable[i].Pattern) + len(post)
		if len(readOnlyTable[i].guards) > 0 {
			filters++
		}
	}
	for i := range wrapperTable {
		if wrapperTable[i].ReadOnly {
			n++
			size += len(pre) + len(wrapperTable[i].Name) + len(" *") + len(post)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i := range readOnlyTable {
		b.WriteString(pre)
		b.WriteString(readOnlyTable[i].Pattern)
		b.WriteString(post)
	}
	for i := range wrapperTable {
		if wrapperTable[i].ReadOnly {
			b.WriteString(pre)
			b.WriteString(wrapperTable[i].Name)
			b.WriteString(" *" + post)
		}
	}
	texts := b.String()
	next := func(patternLen int) string {
		t := texts[:len(pre)+patternLen+len(post)]
		texts = texts[len(t):]
		return t
	}
	out := make([]roEntry, 0, n)
	fs := make([]guardFilter, 0, filters)
	for i := range readOnlyTable {
		e := roEntry{ReadOnlyCommand: &readOnlyTable[i], written: next(len(readOnlyTable[i].Pattern))}
		switch {
		case len(e.guards) == 0:
		case i > 0 && slices.Equal(e.guards, readOnlyTable[i-1].guards):
			e.filter = out[i-1].filter
		default:
			fs = append(fs, newGuardFilter(e.guards))
			e.filter = &fs[len(fs)-1]
		}
		out = append(out, e)
	}
	wro := make([]ReadOnlyCommand, 0, n-len(readOnlyTable))
	for i := range wrapperTable {
		if ws := &wrapperTable[i]; ws.ReadOnly {
			written := next(len(ws.Name) + len(" *"))
			wro = append(wro, ReadOnlyCommand{Pattern: written[len(pre) : len(written)-len(post)], Why: ws.Why, name: ws.Name})
			out = append(out, roEntry{ReadOnlyCommand: &wro[len(wro)-1], written: written})
		}
	}
	return out
}

// wrapperReadOnlyOf is the read-only default of the wrapper of that name, if
// it changes nothing itself.
func wrapperReadOnlyOf(name string) *roEntry {
	if name == "" {
		return nil
	}
	if ci := commandIndex()[name]; ci != nil {
		return ci.wrapperRO
	}
	return nil
}

// ReadOnlyCommands returns the table of read-only defaults.
func ReadOnlyCommands() []ReadOnlyCommand {
	out := append([]ReadOnlyCommand(nil), readOnlyTable...)
	return append(out, *roAssign.ReadOnlyCommand, *roDecl.ReadOnlyCommand, *roTest.ReadOnlyCommand, *roArith.ReadOnlyCommand)
}

// Guards returns the table of guards.
func Guards() []Guard { return append([]Guard(nil), guardTable[:]...) }

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
	entry  *roEntry // the default that covers the command; nil if none
	guard  *Guard   // the guard that keeps it from covering this use
	detail string   // what the guard found
}

func (r roResult) covered() bool { return r.entry != nil && r.guard == nil }

// safeAssignTable lists the variables that may be set for a read-only
// command: none of them makes a program run another. Values, where given,
// are the only ones allowed.
var safeAssignTable = []struct {
	name   string
	values []string
}{
	{"LANG", nil}, // the locale
	{"LANGUAGE", nil},
	{"LC_ALL", nil},
	{"TZ", nil},       // the time zone
	{"NO_COLOR", nil}, // colour off
	{"CLICOLOR", nil},
	{"COLUMNS", nil}, // the terminal's width
	{"LINES", nil},
	{"PAGER", []string{"cat", ""}}, // a pager that only prints
	{"GIT_PAGER", []string{"cat", ""}},
}

func safeAssign(a Assign) bool {
	name := a.Name
	if strings.HasPrefix(name, "LC_") && isName(name) {
		name = "LC_ALL"
	}
	for _, e := range safeAssignTable {
		if e.name != name {
			continue
		}
		if e.values == nil {
			return true
		}
		v, ok := a.Value.Literal()
		return ok && containsString(e.values, v)
	}
	return false
}

// unsafeLowerNames are lower-case variables that programs do read from the
// environment.
var unsafeLowerNames = []reason{
	{"http_proxy", "sends HTTP traffic through a proxy"},
	{"https_proxy", "sends HTTPS traffic through a proxy"},
	{"ftp_proxy", "sends FTP traffic through a proxy"},
	{"all_proxy", "sends traffic through a proxy"},
	{"no_proxy", "changes which hosts bypass the proxy"},
}

// shellVariable reports whether a bare assignment sets only a shell variable:
// a lower-case name no program reads from the environment.
func shellVariable(name string) bool {
	name = baseName(name)
	if !isName(name) || hasUpperASCII(name) {
		return false
	}
	_, unsafe := reasonFor(unsafeLowerNames, name)
	return !unsafe
}

// hasUpperASCII reports whether s holds an ASCII upper-case letter.
func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// readOnlyOf judges a segment by the read-only defaults.
func readOnlyOf(s *Segment, opts Options) roResult {
	switch s.kind {
	case segAssign:
		for _, a := range s.Assigns {
			if !shellVariable(a.Name) {
				return roResult{entry: &roAssign, guard: guardAssignment.guard(), detail: a.Name}
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
	var entry *roEntry
	if e := wrapperReadOnlyOf(s.Wrapper); e != nil {
		entry = e
	} else if entry = lookupReadOnly(s.command(name).readOnly, s.Words); entry == nil {
		return roResult{}
	}
	res := roResult{entry: entry}
	if strings.Contains(name, "/") {
		res.guard, res.detail = guardPathCommand.guard(), name
		return res
	}
	for _, a := range s.Assigns {
		if !safeAssign(a) {
			id := guardAssignment
			if a.Name == "RIPGREP_CONFIG_PATH" {
				id = guardRgConfig
			}
			res.guard, res.detail = id.guard(), a.Name+"="+a.Value.String()
			return res
		}
	}
	for _, f := range s.Files {
		if !f.Redirect && (f.Op == rule.Write || f.Op == rule.Delete) {
			res.guard, res.detail = guardWritesFile.guard(), f.By+" "+f.Path.String()
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
func lookupReadOnly(entries []roEntry, words []Word) *roEntry {
	if len(entries) == 0 {
		return nil
	}
	if entries[0].sub == "" {
		return &entries[0]
	}
	r := gitGlobalOpts.parse(words[1:], true, false)
	if r.end >= len(words)-1 {
		return nil
	}
	sub, ok := words[1+r.end].Literal()
	if !ok {
		return nil
	}
	for i := range entries {
		if entries[i].sub == sub {
			return &entries[i]
		}
	}
	return nil
}

func readOnlyDecl(s *Segment) roResult {
	variant, _ := s.Name()
	if variant == "export" {
		return roResult{entry: &roDecl, guard: guardDeclareExport.guard(), detail: "export"}
	}
	for _, wd := range s.Words[1:] {
		head, _ := literalHead(wd)
		if strings.HasPrefix(head, "-") || strings.HasPrefix(head, "+") {
			if strings.ContainsAny(head[1:], "xniIgtuclF") && head[0] == '-' {
				return roResult{entry: &roDecl, guard: guardDeclareExport.guard(), detail: head}
			}
			continue
		}
		name, _, _ := strings.Cut(head, "=")
		if !shellVariable(name) {
			return roResult{entry: &roDecl, guard: guardDeclareExport.guard(), detail: name}
		}
	}
	return roResult{entry: &roDecl}
}

// guardHit finds the first guard of entry that the segment's words hit.
func guardHit(entry *roEntry, s *Segment, opts Options) (*Guard, string) {
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
			return guardSedWrite.guard(), why
		}
		return nil, ""
	}
	if entry.name == "read" {
		b := lookupCommand("read").builtin
		var sc optScratch
		r := b.opts.parseIn(&sc, args, false, false)
		for _, o := range r.values(b.names...) {
			if n, _ := o.value.Literal(); !shellVariable(n) {
				return guardReadNames.guard(), n
			}
		}
		for _, i := range r.operands {
			if n, _ := args[i].Literal(); !shellVariable(n) {
				return guardReadNames.guard(), args[i].String()
			}
		}
		return nil, ""
	}
	if entry.name == "set" {
		for _, a := range args {
			v, ok := a.Literal()
			if !ok {
				return guardSetOptions.guard(), a.String()
			}
			if v == "--" || (!strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+")) {
				break
			}
			if v == "-o" || v == "+o" {
				continue
			}
			if strings.Trim(v[1:], "euxvfCETo") != "" {
				return guardSetOptions.guard(), v
			}
		}
		for i, a := range args {
			v, _ := a.Literal()
			if (v == "-o" || v == "+o") && i+1 < len(args) {
				o, _ := args[i+1].Literal()
				if !safeShellOption(o) {
					return guardSetOptions.guard(), v + " " + o
				}
			}
		}
		return nil, ""
	}
	operands := 0
	filter := entry.filter
	for i := 0; i < len(args); i++ {
		a := args[i]
		head, whole := literalHead(a)
		if !whole && (head == "" || strings.HasPrefix(head, "-")) {
			return guardDynamicArgument.guard(), a.String()
		}
		if head == "--" && whole {
			operands += len(args) - i - 1
			break
		}
		matched := false
		gw := readGuardWord(head)
		if !filter.mayHit(gw) {
			if !strings.HasPrefix(head, "-") || head == "-" {
				operands++
			}
			continue
		}
		for _, id := range entry.guards {
			g := id.guard()
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
	for _, id := range entry.guards {
		if g := id.guard(); g.operands > 0 {
			if fc := lookupCommand(entry.name).files; fc != nil {
				// Count operands as the tool does, skipping option values.
				var sc optScratch
				operands = len(fc.opts.parseIn(&sc, args, false, false).operands)
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
		return guardGitUnknownOption.guard(), r.err
	}
	for _, o := range r.opts {
		switch o.name {
		case "-c", "--config-env":
			return guardGitConfig.guard(), o.name + " " + o.value.String()
		case "--exec-path":
			if o.has {
				return guardGitExecPath.guard(), o.name + "=" + o.value.String()
			}
		case "--git-dir", "--work-tree":
			return guardGitOtherRepo.guard(), o.name + " " + o.value.String()
		case "-C":
			if !insideWorkspace(o.value, dirs, opts) {
				return guardGitOtherRepo.guard(), "-C " + o.value.String()
			}
			dirs = dirsAfter(o.value, dirs, opts)
		}
	}
	if opts.Workspace != "" && !dirsInside(dirs, opts.Workspace) {
		// git run outside the workspace reads that repository's
		// configuration.
		return guardGitOtherRepo.guard(), "git run outside the workspace"
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
