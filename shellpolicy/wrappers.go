package shellpolicy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// wrapMode is how a wrapper finds the command it runs.
type wrapMode uint8

const (
	modeArgv    wrapMode = iota // options, fixed operands, then the command's words
	modeShell                   // a shell: -c STRING, a script file, or standard input
	modeXargs                   // the command and its fixed arguments, then words read from stdin
	modeFind                    // -exec/-execdir/-ok/-okdir COMMAND ... ; or +
	modeBusybox                 // the first operand is the applet
)

// Wrapper is a command that runs another command. Both are segments: the
// wrapper as typed, and the command it runs, which is judged on its own.
type Wrapper struct {
	Name string
	// How says how it passes on its command.
	How string
	// ReadOnly: besides running its command it changes nothing, so it is
	// read-only whenever that command is.
	ReadOnly bool
	Why      string

	opts         *optSpec // nil: it takes no options
	mode         wrapMode
	operands     int      // words between its options and the command (timeout's DURATION)
	assigns      bool     // NAME=VALUE words may come before the command (env, sudo)
	noCommand    []string // with any of these options it runs no command (command -v)
	dirOpts      []string // the option's value is the directory the command runs in (env -C)
	rootOpts     []string // the command runs under another root (sudo -R): directory unknown
	anyRoot      bool     // the command always runs under another root (chroot)
	splitOpts    []string // the option's value is split into the command's first words (env -S)
	codeOpts     []string // the option's value is a shell string (flock -c, su -c)
	joinOpts     []string // with these the command's words are joined and run by a shell (sudo -s)
	joinUnless   string   // the command's words are joined and run by sh unless this option is given (watch -x)
	writeOpts    []string // the option's value is a file it writes (time -o)
	operandWrite bool     // its fixed operand is a file it creates (flock's lock file)
	needsCommand bool     // with no command it runs a shell reading standard input
	// shellUnlessCode: its operands are never a command (su's user); with
	// no code option it runs a shell reading standard input.
	shellUnlessCode bool
	lang            syntax.LangVariant
	dialect         string // for shells: how guard reads their strings ("bash", "posix", "plain")
}

// wrapperTable lists the commands that run other commands, and how each
// passes its command on. A command not listed here is judged by its own
// words alone, so every entry closes a way to hide a command.
var wrapperTable = []Wrapper{
	{Name: "env", How: "options, NAME=VALUE assignments, then the command; -S splits a string into the command", ReadOnly: true,
		Why: "sets the environment and directory of its command; assignments are judged with the command",
		opts: &optSpec{flags: "i0v", args: "uCSa",
			long:    []string{"ignore-environment", "null", "debug", "list-signal-handling", "help", "version"},
			longArg: []string{"unset", "chdir", "split-string", "argv0"},
			longOpt: []string{"block-signal", "default-signal", "ignore-signal"}},
		assigns: true, dirOpts: []string{"-C", "--chdir"}, splitOpts: []string{"-S", "--split-string"}},
	{Name: "command", How: "its options, then the command (with -v or -V it only describes it)", ReadOnly: true,
		Why:  "runs its command bypassing functions, nothing else",
		opts: &optSpec{flags: "pvV", exact: true}, noCommand: []string{"-v", "-V"}},
	{Name: "builtin", How: "the builtin named by its first word", ReadOnly: true,
		Why: "runs a shell builtin, nothing else", opts: &optSpec{exact: true}},
	{Name: "exec", How: "its options, then the command that replaces the shell", ReadOnly: true,
		Why:  "replaces the shell with its command, nothing else",
		opts: &optSpec{flags: "cl", args: "a", exact: true}},
	{Name: "nice", How: "its options (-n N, -N), then the command", ReadOnly: true,
		Why:  "lowers its command's priority, nothing else",
		opts: &optSpec{args: "n", numeric: true, long: []string{"help", "version"}, longArg: []string{"adjustment"}}},
	{Name: "nohup", How: "the command, after --help/--version at most",
		Why:  "writes nohup.out when its output is a terminal",
		opts: &optSpec{long: []string{"help", "version"}}},
	{Name: "timeout", How: "its options, the duration, then the command", ReadOnly: true,
		Why:      "limits its command's run time, nothing else",
		opts:     &optSpec{flags: "fpv", args: "ks", long: []string{"foreground", "preserve-status", "verbose", "help", "version"}, longArg: []string{"kill-after", "signal"}},
		operands: 1},
	{Name: "time", How: "its options (GNU time), then the command", ReadOnly: true,
		Why:       "measures its command; -o writes a file, which is judged as a write",
		opts:      &optSpec{flags: "pavqV", args: "fo", long: []string{"portability", "append", "verbose", "quiet", "help", "version"}, longArg: []string{"format", "output"}},
		writeOpts: []string{"-o", "--output"}},
	{Name: "stdbuf", How: "its buffering options, then the command", ReadOnly: true,
		Why:  "sets its command's stream buffering, nothing else",
		opts: &optSpec{args: "ioe", long: []string{"help", "version"}, longArg: []string{"input", "output", "error"}}},
	{Name: "ionice", How: "its options, then the command (with -p, -P or -u it acts on running processes)", ReadOnly: true,
		Why:       "sets its command's I/O priority, nothing else",
		opts:      &optSpec{flags: "thV", args: "cnpPu", long: []string{"ignore", "help", "version"}, longArg: []string{"class", "classdata", "pid", "pgid", "uid"}},
		noCommand: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	{Name: "setsid", How: "its options, then the command", ReadOnly: true,
		Why:  "runs its command in a new session, nothing else",
		opts: &optSpec{flags: "cfwhV", long: []string{"ctty", "fork", "wait", "help", "version"}}},
	{Name: "chrt", How: "its options, the priority, then the command (with -p or -m no command)", ReadOnly: true,
		Why:      "sets its command's scheduling policy, nothing else",
		opts:     &optSpec{flags: "abdefimoprRvhV", args: "TPD", long: []string{"all-tasks", "batch", "deadline", "ext", "fifo", "idle", "max", "other", "pid", "rr", "reset-on-fork", "verbose", "help", "version"}, longArg: []string{"sched-runtime", "sched-period", "sched-deadline"}},
		operands: 1, noCommand: []string{"-p", "--pid", "-m", "--max"}},
	{Name: "taskset", How: "its options, the CPU mask, then the command (with -p no command)", ReadOnly: true,
		Why:      "pins its command to CPUs, nothing else",
		opts:     &optSpec{flags: "acphV", long: []string{"all-tasks", "cpu-list", "pid", "help", "version"}},
		operands: 1, noCommand: []string{"-p", "--pid"}},
	{Name: "flock", How: "its options, the lock file, then the command or -c STRING run by sh",
		Why:      "creates its lock file",
		opts:     &optSpec{flags: "sxeunoFvhV", args: "wEc", long: []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose", "help", "version"}, longArg: []string{"wait", "timeout", "conflict-exit-code", "command"}},
		operands: 1, operandWrite: true, codeOpts: []string{"-c", "--command"}, lang: syntax.LangPOSIX},
	{Name: "watch", How: "its options, then the command's words joined and run by sh -c (with -x run as they are)",
		Why:        "runs its command again and again",
		opts:       &optSpec{flags: "bcCegprtwxhv", args: "nqs", optArgs: "d", long: []string{"beep", "color", "no-color", "errexit", "chgexit", "precise", "no-rerun", "no-title", "no-wrap", "exec", "help", "version"}, longArg: []string{"interval", "equexit", "shotsdir"}, longOpt: []string{"differences"}},
		joinUnless: "-x", lang: syntax.LangPOSIX},
	{Name: "sudo", How: "its options, NAME=VALUE assignments, then the command (with -s or -i joined and run by a shell)",
		Why: "runs its command as another user",
		opts: &optSpec{flags: "ABbEeHiKklNnPSsVv", args: "aCcDgpRrTtUu", optArgs: "h",
			long:    []string{"askpass", "bell", "background", "edit", "help", "set-home", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive", "no-update", "preserve-groups", "stdin", "shell", "validate", "version"},
			longArg: []string{"auth-type", "close-from", "login-class", "chdir", "group", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"},
			longOpt: []string{"preserve-env", "host"}},
		assigns: true, noCommand: []string{"-e", "--edit", "-l", "--list", "-V", "--version", "--help", "-K", "--remove-timestamp"},
		dirOpts: []string{"-D", "--chdir"}, rootOpts: []string{"-R", "--chroot"}, joinOpts: []string{"-s", "--shell", "-i", "--login"}, lang: syntax.LangBash},
	{Name: "doas", How: "its options, then the command (with -s a shell reading standard input)",
		Why:  "runs its command as another user",
		opts: &optSpec{flags: "nsL", args: "uC", exact: true}, noCommand: []string{"-C", "-L"}, joinOpts: []string{"-s"}, lang: syntax.LangBash},
	{Name: "su", How: "its options, the user, and -c STRING run by the user's shell; with no -c, a shell reading standard input", shellUnlessCode: true,
		Why:      "runs a shell as another user",
		opts:     &optSpec{flags: "lmpfPhV", args: "cgGsw", long: []string{"login", "preserve-environment", "fast", "pty", "help", "version"}, longArg: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"}},
		codeOpts: []string{"-c", "--command", "--session-command"}, lang: syntax.LangBash},
	{Name: "chroot", How: "its options, the new root, then the command (a shell when none)",
		Why:      "runs its command under another root",
		opts:     &optSpec{long: []string{"skip-chdir", "help", "version"}, longArg: []string{"userspec", "groups"}},
		operands: 1, needsCommand: true, anyRoot: true},
	{Name: "script", How: "-c STRING is run by the shell (the typescript file is written); with no -c, a shell reading standard input", shellUnlessCode: true,
		Why:      "records a terminal session to a file",
		opts:     &optSpec{flags: "aefqhVE", args: "cTBIOmo", optArgs: "t", long: []string{"append", "return", "flush", "force", "quiet", "help", "version"}, longArg: []string{"command", "log-in", "log-out", "log-io", "log-timing", "logging-format", "echo", "output-limit"}, longOpt: []string{"timing"}},
		codeOpts: []string{"-c", "--command"}, lang: syntax.LangBash},
	{Name: "unshare", How: "its options, then the command (a shell when none)",
		Why:          "runs its command in new namespaces",
		opts:         &optSpec{flags: "fhVmuinpCTUrcl", args: "RwSG", long: []string{"fork", "map-root-user", "map-current-user", "keep-caps", "help", "version", "load-interp"}, longArg: []string{"root", "wd", "setuid", "setgid", "propagation", "setgroups", "map-user", "map-group", "map-users", "map-groups", "monotonic", "boottime"}, longOpt: []string{"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "kill-child", "mount-proc", "map-auto"}},
		needsCommand: true, rootOpts: []string{"-R", "--root"}, dirOpts: []string{"-w", "--wd"}},
	{Name: "nsenter", How: "its options, then the command (a shell when none)",
		Why:          "runs its command in another process's namespaces",
		opts:         &optSpec{flags: "aFhVZ", args: "tGS", optArgs: "muinpUCTrw", long: []string{"all", "no-fork", "preserve-credentials", "follow-context", "help", "version"}, longArg: []string{"target", "setgid", "setuid"}, longOpt: []string{"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "root", "wd"}},
		needsCommand: true, anyRoot: true},
	{Name: "strace", How: "its options, then the command (with -p it attaches to running processes)",
		Why:       "traces its command; -o writes a file",
		opts:      &optSpec{flags: "cCdDfFhikNnqrtTvVwxyYzZ", args: "aAbeEIoOpPsSuUX", exact: true},
		noCommand: []string{"-p"}, writeOpts: []string{"-o"}},
	{Name: "xargs", How: "its options, then the command and its fixed arguments, to which it adds words read from standard input (or puts them in place of -I's string)", ReadOnly: true,
		Why:  "reads words from standard input and runs its command with them; the command is judged with those words unknown",
		opts: &optSpec{flags: "0oprtx", args: "adEILnPs", optArgs: "eil", long: []string{"null", "open-tty", "interactive", "no-run-if-empty", "show-limits", "verbose", "exit", "help", "version"}, longArg: []string{"arg-file", "delimiter", "max-args", "max-procs", "process-slot-var", "max-chars"}, longOpt: []string{"eof", "replace", "max-lines"}},
		mode: modeXargs},
	{Name: "find", How: "each -exec, -execdir, -ok and -okdir runs the words up to ; or + with {} as each path found",
		Why: "find is read-only only without its acting options (a guard)", mode: modeFind},
	{Name: "busybox", How: "its first word is the applet to run", ReadOnly: true,
		Why: "runs one of its applets, nothing else", mode: modeBusybox},

	// The shells: -c STRING is parsed as shell code in their own dialect
	// (dash and the POSIX shells differ from bash), a script file is read,
	// and with neither they read commands from standard input.
	{Name: "bash", How: "-c STRING is parsed as bash; a here-document or here-string on standard input too", Why: "runs shell code", mode: modeShell, opts: &bashOpts, lang: syntax.LangBash, dialect: "bash"},
	{Name: "rbash", How: "as bash", Why: "runs shell code", mode: modeShell, opts: &bashOpts, lang: syntax.LangBash, dialect: "bash"},
	{Name: "sh", How: "-c STRING is parsed as POSIX sh (on Debian, dash)", Why: "runs shell code", mode: modeShell, opts: &posixShellOpts, lang: syntax.LangPOSIX, dialect: "posix"},
	{Name: "dash", How: "-c STRING is parsed as POSIX sh", Why: "runs shell code", mode: modeShell, opts: &posixShellOpts, lang: syntax.LangPOSIX, dialect: "posix"},
	{Name: "ash", How: "-c STRING is parsed as POSIX sh", Why: "runs shell code", mode: modeShell, opts: &posixShellOpts, lang: syntax.LangPOSIX, dialect: "posix"},
	{Name: "posh", How: "-c STRING is parsed as POSIX sh", Why: "runs shell code", mode: modeShell, opts: &posixShellOpts, lang: syntax.LangPOSIX, dialect: "posix"},
	{Name: "ksh", How: "-c STRING is read only when plain (words and ; | & alone, which every shell reads alike)", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "mksh", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "zsh", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "yash", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "fish", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "csh", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
	{Name: "tcsh", How: "as ksh", Why: "runs shell code", mode: modeShell, opts: &otherShellOpts, lang: syntax.LangPOSIX, dialect: "plain"},
}

var (
	bashOpts = optSpec{flags: "abcefhikmnprstuvxBCEHPTlDs", args: "oO", plus: true, exact: true,
		long:    []string{"login", "norc", "noprofile", "posix", "restricted", "verbose", "version", "help", "debugger", "dump-strings", "dump-po-strings", "noediting", "pretty-print"},
		longArg: []string{"rcfile", "init-file"}}
	posixShellOpts = optSpec{flags: "aCefnuvxIimqVEbsclh", args: "o", plus: true, exact: true}
	otherShellOpts = optSpec{flags: "abcdefghijklmnpqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ", args: "oO", plus: true, exact: true,
		long: []string{"login", "interactive", "no-config", "private", "norc", "noprofile", "posix"}, longArg: []string{"command", "init-command", "rcfile"}}
)

// safeShellOptions are the set -o / shopt names with which a shell still
// reads its commands as guard does.
var safeShellOptions = []reason{
	{"errexit", "stops at the first failure"},
	{"nounset", "fails on unset variables"},
	{"pipefail", "a pipeline fails with any of its commands"},
	{"xtrace", "traces commands"},
	{"verbose", "echoes input"},
	{"noglob", "turns globbing off (guard already treats globs as unknown)"},
	{"noclobber", "refuses to overwrite files with >"},
	{"errtrace", "traps inherit ERR"},
	{"functrace", "traps inherit DEBUG and RETURN"},
	{"extglob", "extended globs (guard already treats them as unknown)"},
	{"globstar", "** in globs (guard already treats globs as unknown)"},
	{"nullglob", "globs that match nothing vanish (guard already treats globs as unknown)"},
	{"dotglob", "globs match dot files (guard already treats globs as unknown)"},
	{"failglob", "globs that match nothing fail"},
	{"nocaseglob", "globs ignore case (guard already treats globs as unknown)"},
}

// safeShellOption reports whether a set -o / shopt name is among
// safeShellOptions.
func safeShellOption(name string) bool {
	_, ok := reasonFor(safeShellOptions, name)
	return ok
}

// Wrappers returns the table of commands that run other commands, for the
// documentation and `guard rules list`.
func Wrappers() []Wrapper { return append([]Wrapper(nil), wrapperTable...) }

// unwrap finds the command a wrapper runs.
func (w *walker) unwrap(ws *Wrapper, cmd *command, c *cmdCtx, p *plan) {
	p.wrapper = ws.Name
	switch ws.mode {
	case modeShell:
		w.unwrapShell(ws, cmd, p)
	case modeXargs:
		w.unwrapXargs(ws, cmd, p)
	case modeFind:
		w.unwrapFind(cmd, p)
	case modeBusybox:
		if len(cmd.words) > 1 {
			p.inner = append(p.inner, innerCmd{words: cmd.words[1:], via: "busybox", stdin: cmd.stdin})
		}
	default:
		w.unwrapArgv(ws, cmd, c, p)
	}
}

func (w *walker) unwrapArgv(ws *Wrapper, cmd *command, c *cmdCtx, p *plan) {
	args := cmd.words[1:]
	if ws.Name == "env" {
		// A lone "-" means -i.
		for len(args) > 0 {
			if s, ok := args[0].Literal(); ok && s == "-" {
				args = args[1:]
				continue
			}
			break
		}
	}
	// su's operands are never a command, and its options may follow them.
	r := ws.opts.parse(args, !ws.shellUnlessCode, true)
	if r.err != "" {
		// Follow the likeliest reading anyway: deny rules still see the
		// command it probably runs.
		p.unv = fmt.Sprintf("cannot tell which command %s runs: %s", ws.Name, r.err)
	}
	if r.has(ws.noCommand...) {
		return
	}
	var dirs *Dirs
	for _, o := range r.values(ws.dirOpts...) {
		d := w.dirOf(o.value, c.in)
		dirs = &d
	}
	if ws.anyRoot || len(r.values(ws.rootOpts...)) > 0 {
		d := unknownDirs
		dirs = &d
	}
	for _, o := range r.values(ws.writeOpts...) {
		p.files = append(p.files, FileAccess{Op: rule.Write, Path: o.value, By: ws.Name + " " + o.name, Pos: cmd.pos})
	}
	for _, o := range r.values(ws.codeOpts...) {
		src, ok := o.value.Literal()
		if !ok {
			p.unv = fmt.Sprintf("%s %s runs a string known only at run time", ws.Name, o.name)
			return
		}
		w.code(p, src, ws.lang, ws.Name+" "+o.name, false)
	}
	if ws.shellUnlessCode {
		if !r.has(ws.codeOpts...) {
			p.setUnv(fmt.Sprintf("%s with no -c runs a shell that reads commands from standard input", ws.Name))
		}
		return
	}
	rest := args[r.end:]
	if len(rest) < ws.operands {
		if ws.needsCommand {
			p.unv = fmt.Sprintf("%s with no command runs a shell that reads commands from standard input", ws.Name)
		}
		return
	}
	for _, op := range rest[:ws.operands] {
		if op.Split && op.Text.HasUnknown() && p.unv == "" {
			p.unv = fmt.Sprintf("cannot tell which command %s runs: %s may expand to several words", ws.Name, op)
		}
		if ws.operandWrite {
			if s, ok := op.Literal(); !ok || !isDigits(s) {
				p.files = append(p.files, FileAccess{Op: rule.Write, Path: op, By: ws.Name, Pos: cmd.pos})
			}
		}
	}
	rest = rest[ws.operands:]
	if len(ws.codeOpts) > 0 && len(rest) > 0 {
		// flock FILE -c STRING: the option may follow the lock file.
		if r2 := ws.opts.parse(rest, true, false); r2.has(ws.codeOpts...) {
			for _, o := range r2.values(ws.codeOpts...) {
				src, ok := o.value.Literal()
				if !ok {
					p.setUnv(fmt.Sprintf("%s %s runs a string known only at run time", ws.Name, o.name))
					continue
				}
				w.code(p, src, ws.lang, ws.Name+" "+o.name, false)
			}
			return
		}
	}
	var assigns []Assign
	if ws.assigns {
		for len(rest) > 0 {
			head, _ := literalHead(rest[0])
			eq := strings.IndexByte(head, '=')
			if eq <= 0 || !isName(head[:eq]) {
				break
			}
			assigns = append(assigns, Assign{Name: head[:eq], Value: Word{Text: sliceText(rest[0].Text, eq+1)}})
			rest = rest[1:]
		}
	}
	for _, o := range r.values(ws.splitOpts...) {
		words, ok := splitPlain(o.value)
		if !ok {
			p.unv = fmt.Sprintf("%s %s splits a string guard cannot read as %s would", ws.Name, o.name, ws.Name)
			return
		}
		rest = append(words, rest...)
	}
	if len(rest) == 0 {
		if ws.needsCommand || (len(ws.joinOpts) > 0 && r.has(ws.joinOpts...)) {
			p.setUnv(fmt.Sprintf("%s with no command runs a shell that reads commands from standard input", ws.Name))
		}
		return
	}
	if (ws.joinUnless != "" && !r.has(ws.joinUnless, "--exec")) || (len(ws.joinOpts) > 0 && r.has(ws.joinOpts...)) {
		src, ok := joinWords(rest)
		if !ok {
			p.unv = fmt.Sprintf("%s runs a shell string known only at run time", ws.Name)
			return
		}
		w.code(p, src, ws.lang, ws.Name, false)
		return
	}
	p.inner = append(p.inner, innerCmd{words: rest, assigns: assigns, dirs: dirs, via: ws.Name, stdin: cmd.stdin})
}

// splitPlain splits env -S's string on blanks when it holds nothing env
// would read specially (quotes, escapes, ${VAR}, #).
func splitPlain(w Word) ([]Word, bool) {
	s, ok := w.Literal()
	if !ok || strings.ContainsAny(s, "\\'\"$#") {
		return nil, false
	}
	var out []Word
	for _, f := range strings.Fields(s) {
		out = append(out, known(f))
	}
	return out, true
}

// dirOf is the directory a command would be in after cd'ing to the word.
func (w *walker) dirOf(x Word, in Dirs) Dirs {
	p, ok := x.Path(w.home())
	switch {
	case !ok || p == "-" || p == "":
		return unknownDirs
	case strings.HasPrefix(p, "/"):
		return knownDir(p)
	case w.cdpathChanged && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && p != "." && p != "..":
		return unknownDirs
	}
	return in.join(p)
}

// home is the home directory, while the command has not changed HOME.
func (w *walker) home() string {
	if w.homeChanged {
		return ""
	}
	return w.opts.Home
}

func (w *walker) unwrapShell(ws *Wrapper, cmd *command, p *plan) {
	args := cmd.words[1:]
	r := ws.opts.parse(args, true, true)
	if r.err != "" {
		p.unv = fmt.Sprintf("cannot tell what %s runs: %s", ws.Name, r.err)
		return
	}
	for _, o := range r.opts {
		if o.name == "-o" || o.name == "+o" || o.name == "-O" || o.name == "+O" {
			v, ok := o.value.Literal()
			if !ok || !safeShellOption(v) {
				p.unv = fmt.Sprintf("%s %s %s changes how it reads its commands", ws.Name, o.name, o.value)
				return
			}
		}
	}
	for _, o := range r.values("--rcfile", "--init-file") {
		p.files = append(p.files, FileAccess{Op: rule.Read, Path: o.value, By: ws.Name, Pos: cmd.pos})
	}
	rest := args[r.end:]
	var src Word
	hasC := false
	if v := r.values("--command"); len(v) > 0 {
		src, hasC = v[0].value, true
	} else if r.has("-c") {
		if len(rest) == 0 {
			return // the shell refuses -c without a string
		}
		src, hasC = rest[0], true
	}
	via := ws.Name + " -c"
	text := ""
	switch {
	case hasC:
		s, ok := src.Literal()
		if !ok {
			p.unv = fmt.Sprintf("%s -c runs a string known only at run time", ws.Name)
			return
		}
		text = s
	case len(rest) == 0 || r.has("-s"):
		switch {
		case cmd.stdin != nil && !cmd.stdin.dynamic:
			text, via = cmd.stdin.text, ws.Name+" <<"
		case hasRedirectRead(cmd.files):
			return // a script read from a file: like running the file
		default:
			p.unv = fmt.Sprintf("%s reads the commands it runs from standard input, which guard cannot see", ws.Name)
			return
		}
	default:
		script, ok := rest[0].Literal()
		switch {
		case !ok:
			// <(...), $F: a script known only at run time.
			p.unv = fmt.Sprintf("%s runs a script whose name is known only at run time", ws.Name)
			return
		case stdinPath(script) && cmd.stdin != nil && !cmd.stdin.dynamic:
			text, via = cmd.stdin.text, ws.Name+" <<"
		case stdinPath(script) || strings.HasPrefix(script, "/dev/fd/") || strings.HasPrefix(script, "/proc/"):
			p.unv = fmt.Sprintf("%s runs commands read from %s, which guard cannot see", ws.Name, script)
			return
		default:
			p.files = append(p.files, FileAccess{Op: rule.Read, Path: rest[0], By: ws.Name, Pos: cmd.pos})
			return
		}
	}
	if ws.dialect == "plain" && !plainShellString(text) {
		p.unv = fmt.Sprintf("%s: guard reads %s code only when it is plain words and ; | & (its quoting and expansion differ from bash)", via, ws.Name)
		return
	}
	w.code(p, text, ws.lang, via, false)
}

// stdinPath reports whether a file name is standard input.
func stdinPath(p string) bool {
	return p == "-" || p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0"
}

// hasRedirectRead reports whether standard input comes from a named file
// (bash < script.sh), not from a stream known only at run time (< <(...)).
func hasRedirectRead(files []FileAccess) bool {
	found := false
	for _, f := range files {
		if f.Redirect && f.Op == rule.Read {
			p, ok := f.Path.Literal()
			if !ok || stdinPath(p) || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") {
				return false
			}
			found = true
		}
	}
	return found
}

// plainShellString reports whether a string reads the same in every shell
// guard may hand it to: plain words separated by blanks, ; | & and newlines,
// with no quoting, expansion or globbing, and no word that begins with = (zsh
// expands =cmd to the program's path).
func plainShellString(s string) bool {
	atWordStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("_./:,@%+-", c) >= 0:
			atWordStart = false
		case c == '=':
			if atWordStart {
				return false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&':
			atWordStart = true
		default:
			return false
		}
	}
	return true
}

func (w *walker) unwrapXargs(ws *Wrapper, cmd *command, p *plan) {
	args := cmd.words[1:]
	r := ws.opts.parse(args, true, true)
	if r.err != "" {
		p.unv = fmt.Sprintf("cannot tell which command xargs runs: %s", r.err)
	}
	for _, o := range r.values("-a", "--arg-file") {
		p.files = append(p.files, FileAccess{Op: rule.Read, Path: o.value, By: "xargs", Pos: cmd.pos})
	}
	repl := ""
	for _, o := range r.values("-I", "-i", "--replace") {
		repl = "{}"
		if o.has {
			v, ok := o.value.Literal()
			if !ok {
				p.unv = "xargs -I with a replacement string known only at run time"
				return
			}
			repl = v
		}
	}
	rest := append([]Word(nil), args[r.end:]...)
	if len(rest) == 0 {
		rest = []Word{known("echo")}
	}
	input := rule.Span{Lit: "<input>", Unknown: true}
	if repl != "" {
		for i, wd := range rest {
			rest[i] = replaceInWord(wd, repl, input)
		}
	} else {
		rest = append(rest, Word{Text: rule.Text{input}, Split: true})
	}
	p.inner = append(p.inner, innerCmd{words: rest, via: "xargs"})
}

// replaceInWord makes every occurrence of s in the known text of w an
// unknown span.
func replaceInWord(w Word, s string, with rule.Span) Word {
	if s == "" {
		return w
	}
	var out rule.Text
	changed := false
	for _, sp := range w.Text {
		if sp.Unknown || !strings.Contains(sp.Lit, s) {
			out = append(out, sp)
			continue
		}
		changed = true
		parts := strings.Split(sp.Lit, s)
		for i, part := range parts {
			if i > 0 {
				out = append(out, with)
			}
			if part != "" {
				out = append(out, rule.Span{Lit: part})
			}
		}
	}
	if !changed {
		return w
	}
	return Word{Text: out, Split: w.Split}
}

// findAction reports whether a word is one of find's predicates that run a
// command (-exec, -ok, -execdir, -okdir), and whether the command runs in
// the found file's directory (the -dir ones).
func findAction(s string) (inDir, isAction bool) {
	switch s {
	case "-exec", "-ok":
		return false, true
	case "-execdir", "-okdir":
		return true, true
	}
	return false, false
}

func (w *walker) unwrapFind(cmd *command, p *plan) {
	args := cmd.words[1:]
	found := rule.Span{Lit: "{}", Unknown: true}
	for i := 0; i < len(args); i++ {
		s, ok := args[i].Literal()
		if !ok {
			if args[i].Split {
				p.unv = "cannot tell what find does: " + args[i].String() + " may expand to several words, such as -exec"
				return
			}
			continue
		}
		switch s {
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				p.files = append(p.files, FileAccess{Op: rule.Write, Path: args[i+1], By: "find " + s, Pos: cmd.pos})
			}
			continue
		case "-files0-from":
			if i+1 < len(args) {
				p.files = append(p.files, FileAccess{Op: rule.Read, Path: args[i+1], By: "find " + s, Pos: cmd.pos})
			}
			continue
		}
		inDir, isAction := findAction(s)
		if !isAction {
			continue
		}
		j := i + 1
		var words []Word
		for ; j < len(args); j++ {
			t, ok := args[j].Literal()
			if ok && (t == ";" || t == "+") {
				break
			}
			words = append(words, replaceInWord(args[j], "{}", found))
		}
		if len(words) > 0 {
			in := innerCmd{words: words, via: "find " + s}
			if inDir {
				d := unknownDirs
				in.dirs = &d
			}
			p.inner = append(p.inner, in)
		}
		i = j
	}
}
