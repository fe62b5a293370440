//go:build linux && cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start runs c inside the sandbox of policy and returns at once; the
// command's standard streams and terminal are its own, and it runs in
// guard's process group, so that job control and Ctrl-C work as without
// guard. An error means nothing ran: an [*UnavailableError] when the
// machine cannot enforce the policy (and Policy.AllowPartial is off), a
// [*PolicyError] for a policy that cannot be enforced as written.
//
// Start confines one thread of guard, starts the command from it and keeps
// that thread (waiting for the command) until the command exits; the
// runtime then discards it. guard's other threads are not confined.
// It is Prepare().Start(policy, c).
func Start(policy Policy, c Command) (*Process, error) {
	return Prepare().Start(policy, c)
}

// Launcher is a launching thread made ahead of time by [Prepare].
type Launcher struct {
	k    kernel
	l    *launcher
	used bool
}

// PrepareOption is an option of [Prepare].
type PrepareOption func(*prepareOptions)

type prepareOptions struct {
	network bool
}

// ExpectNetwork tells [Prepare] whether the command will probably have the
// network (on, or TCP ports): then the thread does not make the network
// namespace a command without network gets. A wrong guess costs Start the
// time to prepare another thread.
func ExpectNetwork(on bool) PrepareOption {
	return func(o *prepareOptions) { o.network = on }
}

// Prepare makes the launching thread ahead of [Launcher.Start], with its
// mount namespace, its network namespace (unless [ExpectNetwork]), its
// private devices and the Landlock rules most policies share. In a fresh
// process the runtime takes a while to give a goroutine a thread of its
// own, and all this takes some more: guard exec calls Prepare first, and
// loads its settings and judges the command meanwhile. Call Start or Close
// on the result, once.
func Prepare(opts ...PrepareOption) *Launcher {
	var o prepareOptions
	for _, opt := range opts {
		opt(&o)
	}
	k := currentKernel()
	return &Launcher{k: k, l: prepareLauncher(k, !o.network, true)}
}

// prepareLauncher starts a launching thread and, alongside it, reads the
// mount table (for the aliases of blocked paths) and builds the rules most
// policies share (unless base is false: nil then, and Start builds its
// own).
func prepareLauncher(k kernel, netNS, base bool) *launcher {
	l := newLauncher(k, netNS)
	go l.run()
	go func() {
		l.mountTable <- readMountTable()
		if base && k.abi >= 1 && k.mountNS {
			l.base <- baseRules(k)
		} else {
			l.base <- nil
		}
	}()
	return l
}

// Close lets the prepared thread go without starting anything. After Start
// it does nothing.
func (L *Launcher) Close() {
	if L.used {
		return
	}
	L.used = true
	L.l.abandon()
}

// Start runs c inside the sandbox of policy, as the package's [Start] does.
func (L *Launcher) Start(policy Policy, c Command) (p *Process, err error) {
	if L.used {
		return nil, fmt.Errorf("sandbox: this launcher was used already")
	}
	L.used = true
	l := L.l
	defer func() {
		if err != nil && l != nil {
			l.abandon()
		}
	}()
	policy, err = policy.clean()
	if err != nil {
		return nil, err
	}
	exe, err := lookPath(c.Path, envOrOwn(c.Env))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	argv := c.Args
	if len(argv) == 0 {
		argv = []string{c.Path}
	}
	k := L.k
	for {
		var retry retryReason
		p, retry, err = start(policy, c, exe, argv, k, l)
		l = nil // start let it go, or it runs the command
		switch {
		case retry.mountErr != nil && policy.AllowPartial && k.mountNS:
			// Run without the namespace, and say so in the gaps.
			k.mountNS, k.mountErr = false, retry.mountErr.Error()
			l = prepareLauncher(k, false, false)
			continue
		case retry.netNS:
			// The thread was prepared for the other network setting.
			l = prepareLauncher(k, policy.netMode() == netOff, true)
			continue
		}
		return p, err
	}
}

// retryReason says why start gave up with a launching thread that another
// one may do better: its mount namespace could not be made, or it was
// prepared for the other network setting.
type retryReason struct {
	mountErr error
	netNS    bool
}

// readMountTable reads the mount table of the calling thread (not
// /proc/self, the main thread's); nil if it cannot.
func readMountTable() []mountEntry {
	data, err := readProcFile("/proc/thread-self/mountinfo")
	if err != nil {
		return nil
	}
	mounts, _ := parseMountinfo(data)
	return mounts
}

// abandon lets the prepared thread go, unused, and closes the rules made
// alongside it.
func (l *launcher) abandon() {
	close(l.setup)
	go func() {
		<-l.mountTable
		if rs := <-l.base; rs != nil {
			rs.close()
		}
	}()
}

// own lists the file systems the thread mounts before the policy is known.
func (l *launcher) own() []string {
	if !l.kernel.mountNS {
		return nil
	}
	var own []string
	if l.tmpOK {
		own = append(own, l.tmp)
	}
	return append(own, "/dev/shm", "/dev/pts")
}

func newLauncher(k kernel, netNS bool) *launcher {
	l := &launcher{
		kernel:     k,
		wantNetNS:  netNS && k.mountNS,
		ready:      make(chan error, 1),
		mountTable: make(chan []mountEntry, 1),
		base:       make(chan *ruleset, 1),
		setup:      make(chan *setup, 1),
		rules:      make(chan *handoff, 1),
		started:    make(chan startResult, 1),
		exited:     make(chan int, 1),
	}
	if k.mountNS {
		l.tmp, l.tmpOK = tmpMountpoint()
	}
	return l
}

func envOrOwn(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}

// unavailable is the error of a policy this machine cannot enforce.
func unavailable(gaps []Item) error {
	e := &UnavailableError{Fix: "'guard sandbox status' says what this machine lacks"}
	for _, g := range gaps {
		s := g.What
		if g.Path != "" {
			s += " " + g.Path
		}
		e.Missing = append(e.Missing, s+": "+g.Note)
	}
	return e
}

// setEnv returns env with name set to value.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// start launches the command once. The launching thread is started first,
// so that making it and its mount namespace overlap resolving the policy;
// the Landlock rules that do not depend on the namespace are built here
// while the thread mounts. mountErr is a failure to make the namespace,
// after which Start may try again without it.
func start(policy Policy, c Command, exe string, argv []string, k kernel, l *launcher) (p *Process, retry retryReason, err error) {
	if l.wantNetNS != (policy.netMode() == netOff && k.mountNS) {
		l.abandon()
		return nil, retryReason{netNS: true}, errors.New("sandbox: the launching thread was prepared for another network setting")
	}
	setupSent, rulesSent := false, false
	defer func() {
		// On failure, let the thread go: it ends, and its confinement with it.
		if !setupSent {
			close(l.setup)
		}
		if !rulesSent {
			close(l.rules)
		}
	}()
	// The plan is made while the thread prepares; what it mounts is known.
	pre := &prepared{tmp: l.tmp, tmpOK: l.tmpOK, own: l.own(), mounts: <-l.mountTable}
	pre.base = <-l.base
	defer func() {
		if pre.base != nil { // not used: Start built its own
			pre.base.close()
		}
	}()
	// The command starts in its directory by path, looked up in its own
	// namespace: a working directory inherited from guard would keep
	// pointing under a cover, at what the cover hides.
	dir := c.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, retry, fmt.Errorf("sandbox: the working directory: %w", err)
		}
	}
	pl, err := newPlan(policy, k, pre)
	if err != nil {
		return nil, retry, err
	}
	if err := pl.checkDir(dir); err != nil {
		return nil, retry, err
	}
	if nsErr := <-l.ready; nsErr != nil {
		return nil, retryReason{mountErr: nsErr}, fmt.Errorf("sandbox: %w", nsErr)
	}
	if gaps := pl.explanation.Gaps(); len(gaps) > 0 && !policy.AllowPartial {
		return nil, retry, unavailable(gaps)
	}
	p = &Process{terminal: -1, keep: policy.AllowBackground, gaps: pl.explanation.Gaps()}
	env := envOrOwn(c.Env)
	writable := pl.writable // those the thread copies and Landlock allows here
	tmp := ""
	if policy.TempDir {
		tmp = pl.tmp
		if !pl.tmpMount {
			if p.stage, err = os.MkdirTemp("", "guard-tmp-"); err != nil {
				return nil, retry, fmt.Errorf("sandbox: making the private TMPDIR: %w", err)
			}
			tmp = p.stage
			writable = append(append([]string{}, writable...), tmp)
		}
		env = setEnv(env, "TMPDIR", tmp)
	}
	stage := p.stage
	defer func() {
		if (err != nil || retry.mountErr != nil) && stage != "" {
			os.RemoveAll(stage)
		}
	}()
	if m := pl.mounts; m != nil {
		m.writable = outermost(dedupe(append([]string{}, writable...)))
	}
	l.setup <- &setup{mounts: pl.mounts, netMode: policy.netMode()}
	setupSent = true

	stdio := []*os.File{c.Stdin, c.Stdout, c.Stderr}
	for i, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if stdio[i] == nil {
			stdio[i] = f
		}
	}
	h := &handoff{
		exe: exe, argv: argv, env: env, dir: dir,
		files: []uintptr{stdio[0].Fd(), stdio[1].Fd(), stdio[2].Fd()},
	}
	var terminals []int
	for _, f := range stdio {
		fd := int(f.Fd())
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			terminals = append(terminals, fd)
			if p.terminal < 0 {
				p.terminal = fd
			}
		}
	}
	if k.abi >= 1 {
		if rs := pre.base; rs != nil && policy.netMode() != netOn && len(pl.refused) == 1 {
			// The thread's rules fit: every blocked path is covered, and the
			// network is handled. Only the policy's own rules are left.
			pre.base = nil
			h.rules = rs
			err = policyRules(rs, policy, writable, terminals)
			if err == nil && pl.mounts.unmountShm {
				err = rs.addPath("/dev/shm", llWrite) // the machine's, then
			}
			h.nsRules = nsRules(pl, tmp)
		} else {
			h.rules, err = hostRules(pl, policy, k, writable, terminals)
			h.nsRules = nsRules(pl, tmp)
		}
		if err != nil {
			if h.rules != nil {
				h.rules.close()
			}
			return nil, retry, fmt.Errorf("sandbox: %w", err)
		}
	}
	// The thread that starts the command shares its Landlock domain, which
	// would let the command read guard's memory and environment through
	// /proc/<guard>/task/<thread>/: a process that is not dumpable can be
	// looked into only with CAP_SYS_PTRACE, which the command has not.
	// (The command is dumpable again from its execve on.)
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, retry, fmt.Errorf("sandbox: prctl(PR_SET_DUMPABLE): %w", err)
	}
	// Descendants whose parent dies come to guard, which kills them when
	// the command is done (see killLeftovers).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, retry, fmt.Errorf("sandbox: prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	// Go opens everything close-on-exec, but descriptors guard inherited
	// from its own parent may not be, and an inherited descriptor goes
	// around Landlock.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return nil, retry, fmt.Errorf("sandbox: marking inherited descriptors close-on-exec: %w", err)
	}
	// Signals are caught while the thread confines itself and starts the
	// command, and passed on once it runs.
	p.catchSignals()
	l.rules <- h
	rulesSent = true
	r := <-l.started
	if r.err != nil || r.mountErr != nil {
		p.releaseSignals()
		if h.rules != nil {
			h.rules.close()
		}
		if r.mountErr != nil {
			return nil, retryReason{mountErr: r.mountErr}, fmt.Errorf("sandbox: %w", r.mountErr)
		}
		return nil, retry, r.err
	}
	p.pid, p.mntNS = r.pid, r.mntNS
	p.exited = l.exited
	close(p.started)
	if r.listener >= 0 {
		// Cannot fail but for want of descriptors; the command's connects
		// then wait for an answer that never comes, until the listener is
		// closed and they fail.
		if p.sup, err = newSupervisor(r.listener, policy, r.netNS, r.diag, r.mntNS); err != nil {
			unix.Close(r.listener)
			r.diag.close()
			p.sup = nil
			err = nil
		}
	} else {
		r.diag.close()
	}
	return p, retry, nil
}

// hostRules builds the Landlock rules that hold in any view of the file
// system: reading everywhere but the refused paths, writing in the writable
// roots, the devices the namespace does not replace, the terminal, the TCP
// ports.
func hostRules(pl *plan, policy Policy, k kernel, writable []string, terminals []int) (*ruleset, error) {
	rs, err := newRuleset(k.abi, k.signalScope, policy.netMode())
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*ruleset, error) {
		rs.close()
		return nil, err
	}
	if err := rs.allowReadExcept(pl.refused); err != nil {
		return fail(err)
	}
	for _, d := range deviceTable {
		if pl.mounts == nil && d.needsPrivate || pl.mounts != nil && pl.ownDevice(d) {
			continue
		}
		if err := rs.addPath(d.path, d.rights); err != nil {
			return fail(err)
		}
	}
	if err := policyRules(rs, policy, writable, terminals); err != nil {
		return fail(err)
	}
	return rs, nil
}

// policyRules adds the rules of the policy itself: writing in the writable
// roots, the command's terminal, the TCP ports.
func policyRules(rs *ruleset, policy Policy, writable []string, terminals []int) error {
	for _, w := range writable {
		if err := rs.addPath(w, llWrite); err != nil {
			return err
		}
	}
	// The command's own terminal, by its descriptor: reopening it as
	// /dev/stdin or /proc/self/fd/0 works, and no other terminal opens.
	for _, fd := range terminals {
		if err := rs.addFD(fd, llDevice, false); err != nil {
			return fmt.Errorf("landlock: the terminal: %w", err)
		}
	}
	if policy.netMode() == netTCP {
		for _, port := range policy.TCPConnect {
			if err := rs.addPort(port); err != nil {
				return err
			}
		}
	}
	return nil
}

// baseRules builds the rules most policies share, where a mount namespace
// is made: reading everywhere but /dev (every blocked path that exists is
// covered there), the devices the namespace does not replace, TCP handled.
// Start uses them when they fit its policy, and builds its own otherwise;
// nil means they could not be built, which only costs Start the time.
func baseRules(k kernel) *ruleset {
	rs, err := newRuleset(k.abi, k.signalScope, netOff)
	if err != nil {
		return nil
	}
	if err := rs.allowReadExcept([]string{"/dev"}); err != nil {
		rs.close()
		return nil
	}
	for _, d := range deviceTable {
		if d.path == "/dev/shm" || d.needsPrivate {
			continue // the namespace's own: added on the thread
		}
		if err := rs.addPath(d.path, d.rights); err != nil {
			rs.close()
			return nil
		}
	}
	return rs
}

// ownDevice reports whether the mount namespace gives the command its own
// instance of device d (the rule must then be made in the namespace, on the
// new instance).
func (pl *plan) ownDevice(d device) bool {
	if d.path == "/dev/shm" {
		return !pl.mounts.unmountShm
	}
	return d.needsPrivate
}

// nsRules are the rules on what the mount namespace makes anew: the
// private TMPDIR and devices.
func nsRules(pl *plan, tmp string) []pathRule {
	if pl.mounts == nil {
		return nil
	}
	var out []pathRule
	if pl.tmpMount && tmp != "" {
		out = append(out, pathRule{tmp, llWrite})
	}
	for _, d := range deviceTable {
		if pl.ownDevice(d) {
			out = append(out, pathRule{d.path, d.rights})
		}
	}
	return out
}

type pathRule struct {
	path   string
	rights uint64
}

// launcher is the launching thread's side.
type launcher struct {
	kernel kernel
	// wantNetNS makes the thread a network namespace of its own, for a
	// command with the network off.
	wantNetNS bool
	ready     chan error // the thread's preparation is done
	// tmp is where the private TMPDIR is mounted, if tmpOK.
	tmp        string
	tmpOK      bool
	mountTable chan []mountEntry // from Prepare's other goroutine
	base       chan *ruleset     // from Prepare's other goroutine
	setup      chan *setup       // closed: give up
	rules      chan *handoff     // closed: give up
	started    chan startResult
	exited     chan int
}

// setup is what the launching thread needs first.
type setup struct {
	mounts  *mountPlan // nil: no mount namespace
	netMode netMode
}

// handoff is what the launching thread needs after the mounts.
type handoff struct {
	rules   *ruleset   // nil without Landlock
	nsRules []pathRule // added on the thread, in its namespace

	exe   string
	argv  []string
	env   []string
	dir   string
	files []uintptr
}

type startResult struct {
	pid           int
	mntNS         uint64
	err, mountErr error
	// listener receives the command's connects (-1: none); netNS is the
	// inode of the command's network namespace (0: guard's) and diag lists
	// its sockets (nil without one). start owns them from here.
	listener int
	netNS    uint64
	diag     *unixDiag
}

// run confines the calling goroutine's thread, starts the command from it
// and waits for it there. The goroutine never unlocks its thread: the
// runtime ends a thread whose goroutine exits locked, so the confinement
// dies with it. The thread waits for the command so that it lives as long:
// the command's parent-death signal fires when the thread that started it
// ends, which is then only when guard dies.
func (l *launcher) run() {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread: the runtime cannot end it, so it would stay
		// confined, and /proc/<guard> (the main thread's) would show the
		// command's domain and namespace. Holding it (locked, and waiting)
		// sends the new goroutine to another thread.
		took := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(took)
			l.prepareAndRun()
		}()
		<-took
		runtime.UnlockOSThread()
		return
	}
	l.prepareAndRun()
}

// prepareAndRun is run on the launching thread, locked.
func (l *launcher) prepareAndRun() {
	// What does not wait for the policy, done while guard works on it.
	guard, guardErr := guardFilter(unix.Getpid(), unix.Gettid())
	last := lastCap()
	var nsErr error
	if l.kernel.mountNS {
		if err := prepareMounts(l.tmp, l.tmpOK); err != nil {
			nsErr = fmt.Errorf("mount namespace: %w", err)
		}
	}
	// A network namespace of its own: a command without network then
	// reaches no abstract Unix socket of the machine's and takes no name
	// the machine's programs connect to, and whatever Unix socket the
	// kernel lists in it is the command's own. Without one (a container
	// that refuses it), the command may not bind or listen (see
	// fallbackFilter).
	var netNS uint64
	var diag *unixDiag
	if nsErr == nil && l.wantNetNS {
		netNS, diag = makeNetNS()
	}
	l.ready <- nsErr
	s, ok := <-l.setup
	if !ok || nsErr != nil {
		diag.close()
		return
	}
	var prog []unix.SockFilter
	var progErr error
	if l.kernel.seccomp {
		prog, progErr = seccompFilter(s.netMode)
	}
	var mntNS uint64
	if m := s.mounts; m != nil {
		if err := m.apply(); err != nil {
			diag.close()
			l.started <- startResult{mountErr: err, listener: -1}
			return
		}
		mntNS = nsInode("thread-self")
	}
	h, ok := <-l.rules
	if !ok {
		diag.close()
		return
	}
	if progErr == nil {
		progErr = guardErr
	}
	var sockets, fallback, unsupervised []unix.SockFilter
	if l.kernel.seccomp && progErr == nil {
		supervised := l.kernel.userNotif
		if supervised {
			sockets, progErr = notifyFilter()
		}
		if progErr == nil {
			fallback, progErr = fallbackFilter(s.netMode, supervised, netNS != 0)
		}
		if progErr == nil && supervised {
			// For a guard that runs inside another's sandbox: the kernel
			// allows one listener per tree of filters (the outer guard
			// makes the inner command's connections, after its own check).
			unsupervised, progErr = fallbackFilter(s.netMode, false, netNS != 0)
		}
	}
	if progErr != nil {
		diag.close()
		l.started <- startResult{err: progErr, listener: -1}
		return
	}
	if !l.kernel.seccomp {
		guard = nil
	}
	pid, listener, err := l.confineAndStart(h, [][]unix.SockFilter{prog, guard, fallback}, sockets, unsupervised, last)
	if err != nil {
		diag.close()
		l.started <- startResult{err: err, listener: -1}
		return
	}
	l.started <- startResult{pid: pid, mntNS: mntNS, listener: listener, netNS: netNS, diag: diag}
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			// Cannot happen: the pid is this process's unreaped child.
			l.exited <- 128 + int(unix.SIGKILL)
			return
		}
	}
	switch {
	case ws.Exited():
		l.exited <- ws.ExitStatus()
	case ws.Signaled():
		l.exited <- 128 + int(ws.Signal())
	default:
		l.exited <- 128 + int(unix.SIGKILL)
	}
}

// makeNetNS moves the calling thread into a new network namespace, with
// nothing in it (not even the loopback device up: with the network off the
// command may not make an IP socket). It returns the namespace's inode and
// a sock_diag socket in it, or 0 and nil when it cannot be made.
func makeNetNS() (uint64, *unixDiag) {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return 0, nil
	}
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		return 0, nil
	}
	diag, err := newUnixDiag()
	if err != nil {
		// The namespace stays, but guard cannot tell the command's
		// sockets there: it connects to none of them.
		return st.Ino, &unixDiag{fd: -1}
	}
	return st.Ino, diag
}

// confineAndStart confines the thread (Landlock, no_new_privs,
// capabilities, seccomp, in that order: seccomp last, since it refuses
// calls the others make) and starts the command from it. filters are
// loaded in turn (nil ones skipped); sockets, when there is one, last,
// with the listener it returns, or where the kernel has one already for
// this thread (guard inside guard's sandbox), unsupervised instead.
func (l *launcher) confineAndStart(h *handoff, filters [][]unix.SockFilter, sockets, unsupervised []unix.SockFilter, lastCap int) (pid, listener int, err error) {
	listener = -1
	if rs := h.rules; rs != nil {
		defer rs.close()
		for _, r := range h.nsRules {
			if err := rs.addPath(r.path, r.rights); err != nil {
				return 0, -1, fmt.Errorf("sandbox: %w", err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, -1, fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if h.rules != nil {
		if err := h.rules.restrictSelf(); err != nil {
			return 0, -1, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := dropCapabilities(lastCap); err != nil {
		return 0, -1, fmt.Errorf("sandbox: %w", err)
	}
	for _, p := range filters {
		if p != nil {
			if err := loadSeccomp(p); err != nil {
				return 0, -1, fmt.Errorf("sandbox: %w", err)
			}
		}
	}
	if sockets != nil {
		listener, err = loadNotifyFilter(sockets)
		if errors.Is(err, unix.EBUSY) && unsupervised != nil {
			err = loadSeccomp(unsupervised)
		}
		if err != nil {
			return 0, -1, fmt.Errorf("sandbox: %w", err)
		}
	}
	pid, err = syscall.ForkExec(h.exe, h.argv, &syscall.ProcAttr{
		Dir:   h.dir,
		Env:   h.env,
		Files: h.files,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		if listener >= 0 {
			unix.Close(listener)
		}
		return 0, -1, fmt.Errorf("sandbox: starting %s: %w", h.exe, err)
	}
	return pid, listener, nil
}

// lastCap is the highest capability this kernel knows (it does not change
// while guard runs).
var lastCap = sync.OnceValue(func() int { return readLastCap() })
