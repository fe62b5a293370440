package shellpolicy

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// shellVar is a variable whose value changes how the shell runs later
// commands, in a way guard does not follow.
type shellVar struct {
	name   string
	lookup bool // it changes which program a command name runs
	taint  bool // it changes how later commands run
	home   bool // it is HOME: ~ and a bare cd no longer mean the home directory
	cdpath bool // it is CDPATH: a relative cd may lead elsewhere
	why    string
}

// shellVarTable lists those variables. Setting one (NAME=..., export,
// declare, read, a for loop, ${NAME:=...}) makes every later command
// unverifiable, or for HOME and CDPATH, leaves later paths unknown.
var shellVarTable = []shellVar{
	{name: "PATH", lookup: true, why: "command names are looked up in it"},
	{name: "EXECIGNORE", lookup: true, why: "it hides programs from the lookup of command names"},
	{name: "BASH_ENV", taint: true, why: "every bash started later first runs the file it names"},
	{name: "ENV", taint: true, why: "sh started later first runs the file it names"},
	{name: "SHELLOPTS", taint: true, why: "it sets the options of every bash started later"},
	{name: "BASHOPTS", taint: true, why: "it sets the shopt options of every bash started later"},
	{name: "PS4", taint: true, why: "it is expanded, command substitutions included, before each traced command"},
	{name: "PROMPT_COMMAND", taint: true, why: "an interactive bash runs it as a command"},
	{name: "BASH_LOADABLES_PATH", taint: true, why: "enable loads new builtins from it"},
	{name: "POSIXLY_CORRECT", taint: true, why: "it switches bash to POSIX mode, which reads commands differently"},
	{name: "BASH_COMPAT", taint: true, why: "it makes bash behave as an older version"},
	{name: "HOME", home: true, why: "~ and cd with no directory lead to it"},
	{name: "CDPATH", cdpath: true, why: "a relative cd searches it first"},
}

// shellVarOf is the entry of shellVarTable for a variable name, if any.
func shellVarOf(name string) (shellVar, bool) {
	for i := range shellVarTable {
		if shellVarTable[i].name == name {
			return shellVarTable[i], true
		}
	}
	return shellVar{}, false
}

// ShellEnvDeny lists the environment variables that change how bash reads
// and runs a command, with why. guard exec should not pass them to the shell
// it starts: guard judged the command as bash reads it without them.
func ShellEnvDeny() map[string]string {
	why := func(name string) string {
		v, _ := shellVarOf(name)
		return v.why
	}
	return map[string]string{
		"BASH_ENV":        why("BASH_ENV"),
		"ENV":             why("ENV"),
		"SHELLOPTS":       why("SHELLOPTS"),
		"BASHOPTS":        why("BASHOPTS"),
		"PS4":             why("PS4"),
		"PROMPT_COMMAND":  why("PROMPT_COMMAND"),
		"POSIXLY_CORRECT": why("POSIXLY_CORRECT"),
		"BASH_COMPAT":     why("BASH_COMPAT"),
		"CDPATH":          why("CDPATH"),
		"GLOBIGNORE":      "it changes which files a glob matches",
		"IFS":             "it changes how words are split",
		"BASH_XTRACEFD":   "it sends trace output to another descriptor",
		"BASH_FUNC_*":     "exported functions: a function named like a command (ls, git) replaces it",
		"EXECIGNORE":      why("EXECIGNORE"),
	}
}

// builtin is a bash builtin that takes variable names: bash evaluates an
// array subscript in a name as arithmetic, so read 'a[$(cmd)]' runs cmd. A
// name known only at run time, or one with a subscript that is not a plain
// number, makes the command unverifiable. (exit, shift, return and the like
// take numbers, but bash does not evaluate them as arithmetic: tested.)
type builtin struct {
	name  string
	opts  optSpec
	names []string // options whose value is a variable name (read -a, printf -v)
	why   string
}

// builtinTable lists the builtins that take variable names as arguments.
var builtinTable = []builtin{
	{name: "unset", opts: optSpec{flags: "fvn"}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "export", opts: optSpec{flags: "fnp"}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "readonly", opts: optSpec{flags: "aAfp"}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "declare", opts: optSpec{flags: "aAfFgIilnprtuxG", plus: true}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "typeset", opts: optSpec{flags: "aAfFgIilnprtuxG", plus: true}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "local", opts: optSpec{flags: "aAfFgIilnprtuxG", plus: true}, why: "it takes variable names, whose subscripts bash evaluates"},
	{name: "read", opts: optSpec{flags: "ers", args: "adinNptu"}, names: []string{"-a"}, why: "it assigns to variable names, whose subscripts bash evaluates"},
	{name: "mapfile", opts: optSpec{flags: "t", args: "dnOsuCc"}, why: "it assigns to an array name, whose subscript bash evaluates"},
	{name: "readarray", opts: optSpec{flags: "t", args: "dnOsuCc"}, why: "it assigns to an array name, whose subscript bash evaluates"},
	{name: "getopts", why: "it assigns to a variable name, whose subscript bash evaluates"},
	{name: "wait", opts: optSpec{flags: "nf", args: "p"}, names: []string{"-p"}, why: "-p assigns to a variable name, whose subscript bash evaluates"},
}

// commandInfo is what the tables say of one command name: a segment looks
// its name up once rather than once per table.
type commandInfo struct {
	builtin *builtin     // builtinTable (a builtin is never given by path)
	wrapper *Wrapper     // wrapperTable
	files   *fileCommand // fileTable
	// readOnly are its entries of readOnlyTable (several for git's
	// subcommands, which the table keeps together).
	readOnly []roEntry
	// wrapperRO is the read-only default that covers a wrapper that changes
	// nothing itself (see readOnlyEntries).
	wrapperRO *roEntry
	// global is the spec of the options that come before its subcommand
	// (globalOptionTable).
	global *optSpec
}

// commandIndex joins the tables by command name (the base name, for a
// command given by path). It is made on the first lookup, not when the
// package starts (every guard process starts it; not every one reads a
// shell command), and never changes.
var commandIndex = sync.OnceValue(newCommandIndex)

func newCommandIndex() map[string]*commandInfo {
	// Room for every name of every table; names in several tables share
	// an entry, so some is left over. One allocation for all of them.
	n := len(builtinTable) + len(wrapperTable) + len(fileTable) + len(readOnlyTable) + len(globalOptionTable)
	infos := make([]commandInfo, 0, n)
	m := make(map[string]*commandInfo, n)
	get := func(name string) *commandInfo {
		ci := m[name]
		if ci == nil {
			infos = append(infos, commandInfo{})
			ci = &infos[len(infos)-1]
			m[name] = ci
		}
		return ci
	}
	for i := range builtinTable {
		get(builtinTable[i].name).builtin = &builtinTable[i]
	}
	for i := range wrapperTable {
		get(wrapperTable[i].Name).wrapper = &wrapperTable[i]
	}
	for i := range fileTable {
		get(fileTable[i].name).files = &fileTable[i]
	}
	ro := readOnlyEntries()
	for i := 0; i < len(readOnlyTable); {
		j := i + 1
		for j < len(readOnlyTable) && readOnlyTable[j].name == readOnlyTable[i].name {
			j++
		}
		ci := get(readOnlyTable[i].name)
		if ci.readOnly != nil {
			panic("shellpolicy: the read-only entries of " + readOnlyTable[i].name + " are not together in readOnlyTable")
		}
		ci.readOnly = ro[i:j:j]
		i = j
	}
	for i := len(readOnlyTable); i < len(ro); i++ {
		m[ro[i].name].wrapperRO = &ro[i]
	}
	for i := range globalOptionTable {
		get(globalOptionTable[i].name).global = globalOptionTable[i].spec
	}
	return m
}

// lookupCommand is what the tables say of a command name: by base name,
// and for a name given by path, not as a builtin. Never nil.
func lookupCommand(name string) *commandInfo {
	base := commandName(name)
	ci := commandIndex()[base]
	if ci == nil {
		return &noCommandInfo
	}
	if ci.builtin != nil && base != name {
		c := *ci
		c.builtin = nil
		return &c
	}
	return ci
}

// noCommandInfo is the info of a name no table holds.
var noCommandInfo commandInfo

// dispatch follows what a command with a known name does beyond its words.
func (w *walker) dispatch(name string, info *commandInfo, cmd *command, c *cmdCtx, p *plan) {
	args := cmd.words[1:]
	if !strings.Contains(name, "/") {
		if b := info.builtin; b != nil {
			if why := b.check(name, args); why != "" {
				p.unv = fmt.Sprintf("%s: %s", name, why)
			}
			for _, n := range b.assignedNames(args) {
				w.assigned(n, c)
			}
		}
		switch name {
		case "cd":
			p.flow = flow{ok: w.cdTarget(args, c.in), fail: c.in}
		case "pushd", "popd":
			p.flow = flow{ok: unknownDirs, fail: c.in}
		case "eval":
			// eval takes no options, but skips a leading "--" like every
			// builtin (tested: eval -- cmd runs cmd).
			if len(args) > 0 {
				if s, ok := args[0].Literal(); ok && s == "--" {
					args = args[1:]
				}
			}
			src, ok := joinWords(args)
			if !ok {
				p.unv = "eval runs a string known only at run time"
				p.flow = same(unknownDirs)
				return
			}
			w.code(p, src, c.f.lang, "eval", true)
			return
		case "source", ".":
			w.source(name, args, cmd, c, p)
			return
		case "trap":
			w.trap(args, c, p)
			return
		case "alias":
			w.alias(args, c, p)
			return
		case "hash":
			if hasWord(args, "-p") || hasClusterFlag(args, 'p') {
				p.taint = "hash -p maps a command name to another program"
			}
		case "enable":
			for _, a := range args {
				if s, ok := a.Literal(); !ok || !strings.HasPrefix(s, "-") || strings.ContainsAny(s, "fdn") {
					p.taint = "enable changes which builtins exist"
				}
			}
		case "shopt":
			w.shopt(args, p)
		case "set":
			w.set(args, p)
		case "let":
			for _, a := range args {
				if s, ok := a.Literal(); !ok || !safeLetArg(s) {
					p.unv = "let: " + whyArithVar
				}
			}
		case "printf":
			w.printf(args, p)
		case "test", "[":
			if why := testArgs(args); why != "" {
				p.unv = name + ": " + why
			}
		case "mapfile", "readarray":
			if hasClusterFlag(args, 'C') {
				p.unv = name + " -C runs a callback given as a string"
			}
		case "compgen", "complete":
			if hasClusterFlag(args, 'C') || hasClusterFlag(args, 'F') {
				p.unv = name + " -C and -F run commands or functions given as strings"
			}
		case "fc":
			p.unv = "fc runs commands from the history, which guard cannot see"
		case "bind":
			if hasClusterFlag(args, 'x') {
				p.unv = "bind -x runs a command given as a string"
			}
		case "declare", "typeset", "local", "export", "readonly":
			// Reached only through builtin/command; the parser reads the
			// plain forms as declarations.
			for _, a := range args {
				if s, ok := a.Literal(); ok {
					if n, _, _ := strings.Cut(s, "="); isName(baseName(n)) {
						w.assigned(baseName(n), c)
					}
				}
			}
		}
	}
	base := commandName(name)
	switch base {
	case "git":
		w.gitConfig(cmd, p)
	case "sed":
		w.sed(args, p)
	}
	if ws := info.wrapper; ws != nil && !(ws.Name == "exec" && len(args) == 0) {
		if !(strings.Contains(name, "/") && (ws.Name == "command" || ws.Name == "builtin" || ws.Name == "exec")) {
			w.unwrap(ws, cmd, c, p)
		}
	}
	if fa := info.files; fa != nil {
		if acc := fa.accesses(args, cmd.pos); len(p.files) == 0 {
			p.files = acc
		} else {
			p.files = append(p.files, acc...)
		}
	}
}

// check reads a builtin's arguments; it returns why they can run code.
func (b builtin) check(name string, args []Word) string {
	var sc optScratch
	r := b.opts.parseIn(&sc, args, false, false)
	for _, o := range r.values(b.names...) {
		if !safeName(o.value) {
			return b.why + ", and " + o.value.String() + " may hold one"
		}
	}
	operands := r.operands
	switch name {
	case "getopts":
		// getopts OPTSTRING NAME [ARGS]: only NAME is a name.
		if len(operands) < 2 {
			return ""
		}
		operands = operands[1:2]
	case "wait":
		operands = nil // process ids
	}
	for _, i := range operands {
		if !safeName(args[i]) {
			return b.why + ", and " + args[i].String() + " is not a plain name"
		}
	}
	return ""
}

// assignedNames are the variable names a name-taking builtin assigns.
func (b builtin) assignedNames(args []Word) []string {
	var sc optScratch
	r := b.opts.parseIn(&sc, args, false, false)
	var out []string
	add := func(w Word) {
		head, _ := literalHead(w)
		n, _, _ := strings.Cut(head, "=")
		if n = baseName(strings.TrimSuffix(n, "+")); isName(n) {
			out = append(out, n)
		}
	}
	for _, o := range r.values(b.names...) {
		add(o.value)
	}
	for _, i := range r.operands {
		add(args[i])
	}
	return out
}

// safeName reports whether a name argument is a plain variable name
// (possibly NAME=value, or NAME[N] with a number N).
func safeName(w Word) bool {
	head, whole := literalHead(w)
	name := head
	if i := strings.IndexAny(head, "=+"); i >= 0 {
		name = head[:i]
	} else if !whole {
		return false
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		if !strings.HasSuffix(name, "]") || !isDigits(name[i+1:len(name)-1]) {
			return false
		}
		name = name[:i]
	}
	return isName(name)
}

func safeLetArg(s string) bool {
	if isArithNumber(s) {
		return true
	}
	name, val, ok := strings.Cut(s, "=")
	return ok && isName(name) && isArithNumber(val)
}

func hasWord(args []Word, s string) bool {
	for _, a := range args {
		if l, ok := a.Literal(); ok && l == s {
			return true
		}
	}
	return false
}

// hasClusterFlag reports whether a short option appears among the option
// words (alone or clustered, as -tC).
func hasClusterFlag(args []Word, ch byte) bool {
	for _, a := range args {
		head, _ := literalHead(a)
		if head == "--" {
			return false
		}
		if len(head) > 1 && head[0] == '-' && head[1] != '-' && strings.IndexByte(head[1:], ch) >= 0 {
			return true
		}
	}
	return false
}

// cdTarget is where cd leads.
func (w *walker) cdTarget(args []Word, in Dirs) Dirs {
	r := (&optSpec{flags: "LPe@"}).parse(args, true, true)
	if r.err != "" {
		return unknownDirs
	}
	rest := args[r.end:]
	if len(rest) == 0 {
		if h := w.home(); h != "" {
			return knownDir(h)
		}
		return unknownDirs
	}
	if r.has("-P") {
		// Symbolic links resolved: the directory is the link's target,
		// which guard does not look up.
		return unknownDirs
	}
	return w.dirOf(rest[0], in)
}

// source follows source and ".": the file is read and run in this shell.
func (w *walker) source(name string, args []Word, cmd *command, c *cmdCtx, p *plan) {
	p.flow = same(unknownDirs)
	if len(args) > 0 {
		if s, ok := args[0].Literal(); ok && s == "--" {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return
	}
	file, ok := args[0].Path(w.home())
	if !ok {
		p.unv = name + " runs a file whose name is known only at run time"
		return
	}
	if (file == "/dev/stdin" || file == "/proc/self/fd/0" || file == "/dev/fd/0") && cmd.stdin != nil && !cmd.stdin.dynamic {
		w.code(p, cmd.stdin.text, c.f.lang, name+" <<", true)
		return
	}
	if file == "/dev/stdin" || file == "/proc/self/fd/0" || file == "/dev/fd/0" || strings.HasPrefix(file, "/dev/fd/") {
		p.unv = name + " runs commands read from a stream guard cannot see"
		return
	}
	p.files = append(p.files, FileAccess{Op: rule.Read, Path: args[0], By: name, Pos: cmd.pos})
	// The file may define functions and aliases or set PATH: what later
	// commands run is no longer certain.
	p.taint = name + " " + file + " ran a file guard did not read, which may change what later commands run"
}

// trap's action is a string of code, run when the signal comes.
func (w *walker) trap(args []Word, c *cmdCtx, p *plan) {
	r := (&optSpec{flags: "lpP"}).parse(args, true, true)
	rest := args[r.end:]
	if len(rest) < 2 {
		return // trap -p, trap SIG: no action
	}
	act, ok := rest[0].Literal()
	if !ok {
		p.unv = "trap runs a string known only at run time"
		return
	}
	if act == "" || act == "-" {
		return
	}
	w.code(p, act, c.f.lang, "trap", false)
}

// alias defines names that stand for code: the code is read, and since
// later command names may now mean something else, they are unverifiable.
func (w *walker) alias(args []Word, c *cmdCtx, p *plan) {
	for _, a := range args {
		s, ok := a.Literal()
		if !ok {
			p.unv = "alias defines a name from a value known only at run time"
			p.taint = "an alias was defined, so later command names may mean something else"
			return
		}
		if s == "-p" {
			continue
		}
		if _, val, ok := strings.Cut(s, "="); ok {
			w.code(p, val, c.f.lang, "alias", false)
			p.taint = "an alias was defined, so later command names may mean something else"
		}
	}
}

// shopt -s expand_aliases makes aliases work in scripts; lastpipe keeps the
// last command of a pipeline in this shell.
func (w *walker) shopt(args []Word, p *plan) {
	setting := false
	withO := false
	for _, a := range args {
		s, ok := a.Literal()
		if !ok {
			p.taint = "shopt sets options known only at run time"
			return
		}
		switch {
		case s == "-s":
			setting = true
		case s == "-u":
			setting = false
		case s == "-o":
			withO = true
		case strings.HasPrefix(s, "-"):
			if strings.Contains(s, "s") {
				setting = true
			}
			if strings.Contains(s, "o") {
				withO = true
			}
		case setting && s == "lastpipe":
			w.lastpipe = true
		case setting && !withO && s == "expand_aliases":
			p.taint = "shopt -s expand_aliases makes aliases apply"
		case setting && withO:
			if !safeShellOption(s) {
				p.taint = "shopt -o " + s + " changes how later commands are read"
			}
		}
	}
}

// set -a exports every later assignment, set -k turns later NAME=value words
// into assignments, set -o posix changes how commands are read: guard does
// not follow them.
func (w *walker) set(args []Word, p *plan) {
	for i := 0; i < len(args); i++ {
		s, ok := args[i].Literal()
		if !ok {
			p.taint = "set with options known only at run time"
			return
		}
		if s == "--" || s == "-" || (!strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "+")) {
			return // the rest are positional parameters
		}
		if s == "-o" || s == "+o" {
			if i+1 < len(args) {
				i++
				o, ok := args[i].Literal()
				if !ok || !safeShellOption(o) {
					p.taint = "set -o " + args[i].String() + " changes how later commands run"
				}
			}
			continue
		}
		if strings.ContainsAny(s[1:], "akBhHPT") && s[0] == '-' {
			p.taint = "set " + s + " changes how later commands run (-a exports every assignment, -k takes NAME=value words as assignments)"
		}
	}
}

// printf -v assigns to a name, and %(...)T evaluates its argument as
// arithmetic.
func (w *walker) printf(args []Word, p *plan) {
	r := (&optSpec{args: "v"}).parse(args, true, false)
	for _, o := range r.values("-v") {
		if !safeName(o.value) {
			p.unv = "printf -v assigns to " + o.value.String() + ", whose subscript bash evaluates"
		}
	}
	rest := args[r.end:]
	if len(rest) < 2 {
		return
	}
	format, ok := rest[0].Literal()
	if !ok || strings.Contains(format, "%(") {
		for _, a := range rest[1:] {
			if s, ok := a.Literal(); !ok || !isArithNumber(s) {
				p.unv = "printf: %(...)T evaluates its argument as arithmetic, and the format or " + a.String() + " is not known to be plain"
				return
			}
		}
	}
}

// testArgs finds the forms of test and [ that evaluate a variable's value:
// -v and -R test a name whose subscript bash evaluates, and a word known
// only at run time may turn into either.
func testArgs(args []Word) string {
	for i, a := range args {
		s, ok := a.Literal()
		if !ok {
			if a.Split {
				return "the word " + a.String() + " may expand to several words, such as -v a[$(cmd)]"
			}
			if i+1 < len(args) {
				if _, nextOK := args[i+1].Literal(); !nextOK || strings.Contains(args[i+1].String(), "[") {
					return "the word " + a.String() + " may be -v, which evaluates the subscript of the name after it"
				}
			}
			continue
		}
		if (s == "-v" || s == "-R") && i+1 < len(args) && !safeName(args[i+1]) {
			return s + " evaluates the subscript of " + args[i+1].String()
		}
	}
	return ""
}

// declClause walks declare, local, export, readonly and typeset, which the
// parser reads as declarations of names (with values) rather than words.
func (w *walker) declClause(x *syntax.DeclClause, in Dirs, f *frame, pipeIn bool) flow {
	c := &cmdCtx{in: in, f: f, pipeIn: pipeIn}
	p := &plan{}
	taint := w.taint
	variant := x.Variant.Value
	words := []Word{known(variant)}
	flags := ""
	var names []string
	var values []Assign
	for _, a := range x.Args {
		if a.Naked && a.Name == nil {
			v := w.word(a.Value, c)
			words = append(words, v)
			s, ok := v.Literal()
			switch {
			case !ok:
				c.unverifiable(variant + " takes variable names, whose subscripts bash evaluates, and " + v.String() + " is known only at run time")
			case strings.HasPrefix(s, "-"):
				flags += s[1:]
			case strings.HasPrefix(s, "+"):
			case !safeName(v):
				c.unverifiable(variant + " takes variable names, whose subscripts bash evaluates, and " + s + " is not a plain name")
			}
			continue
		}
		as := w.assign(a, c)
		w.assignCode(as, p)
		if a.Naked {
			names = append(names, as.Name)
			words = append(words, known(as.Name))
		} else {
			values = append(values, as)
			words = append(words, Word{Text: append(rule.Text{{Lit: as.Name + "="}}, as.Value.Text...), Split: as.Value.Split})
		}
	}
	if strings.Contains(flags, "n") {
		for _, v := range values {
			if s, ok := v.Value.Literal(); !ok || !isName(s) {
				c.unverifiable(variant + " -n makes " + v.Name + " stand for " + v.Value.String() + ", whose subscript bash evaluates when it is used")
			}
		}
	}
	seg := Segment{Pos: f.position(x), Via: f.via, Dirs: in, kind: segDecl, Words: words, Unverifiable: c.unv}
	setUnv(&seg, taint)
	setUnv(&seg, p.unv)
	w.add(&seg)
	p.runInner(w, &seg, c)
	if strings.Contains(flags, "i") {
		w.setTaint(variant + " -i makes later assignments to its names arithmetic, which can run commands")
	}
	for _, n := range names {
		w.assigned(baseName(n), c)
	}
	for _, v := range values {
		w.assignedValue(v, c)
	}
	return same(in)
}
