//go:build linux && cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Process is a command running in the sandbox. Call [Process.Wait] once:
// it returns the command's status and stops what the command left behind.
type Process struct {
	pid   int
	gaps  []Item
	stage string // a private TMPDIR made on disk; removed by Wait
	keep  bool   // Policy.AllowBackground

	terminal int // a descriptor of the command's terminal, or -1
	// mntNS is the command's mount namespace (0: none): guard's children
	// in it are the command's leftovers.
	mntNS uint64

	sigs    chan os.Signal
	started chan struct{} // closed once pid is the command's
	exited  chan int      // the command's status, once

	sup *supervisor // makes the command's connections; nil: none

	sigMu    sync.Mutex
	caught   bool          // signal.Notify is done
	caughtCh chan struct{} // closed then (the tests wait for it)
	released bool          // Wait is done: stop catching
	done     chan struct{} // closed by Wait: stop forwarding

	once   sync.Once
	status int
	err    error
}

// forwardedSignals are passed on to the command when guard receives them.
// A signal the terminal sends to its whole foreground process group, which
// the command shares with guard, is not passed on while guard is in that
// group: the command got it already.
var forwardedSignals = []struct {
	sig          syscall.Signal
	fromTerminal bool
}{
	{unix.SIGINT, true},   // Ctrl-C, or kill -INT
	{unix.SIGQUIT, true},  // Ctrl-\, or kill -QUIT
	{unix.SIGHUP, true},   // the terminal hung up (the foreground group gets it), or kill -HUP
	{unix.SIGTERM, false}, // kill, the usual way agents stop a command
	{unix.SIGUSR1, false}, // a program's own meaning (reload, dump state)
	{unix.SIGUSR2, false}, // likewise
}

// Pid is the command's process ID.
func (p *Process) Pid() int { return p.pid }

// RefusedSockets lists the Unix sockets the command tried to connect to and
// was refused (not in [Policy.UnixSockets], not its own, or handing over the
// machine without being marked dangerous), as the command named them: an
// abstract name starts with "@". At most a few are kept.
func (p *Process) RefusedSockets() []string {
	if p.sup == nil {
		return nil
	}
	return p.sup.refusals()
}

// Gaps are the parts of the policy this machine does not enforce (only
// with Policy.AllowPartial; see [Explain]).
func (p *Process) Gaps() []Item { return p.gaps }

// Signal sends sig to the command.
func (p *Process) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("sandbox: %v is not a signal number", sig)
	}
	return unix.Kill(p.pid, s)
}

// Wait waits for the command to exit and returns its status: its exit code,
// or 128+N when signal N ended it. Unless the policy allows background
// processes, it then kills every process the command started that is still
// running (double forks and new sessions included: guard is their
// subreaper), and removes the private TMPDIR.
func (p *Process) Wait() (int, error) {
	p.once.Do(func() {
		p.status = <-p.exited
		p.releaseSignals()
		if p.keep {
			// What the command left running keeps its connections until
			// guard exits; then they fail.
			return
		}
		p.err = killLeftovers(p.mntNS)
		if p.sup != nil {
			p.sup.close()
		}
		if p.stage != "" {
			if err := os.RemoveAll(p.stage); err != nil && p.err == nil {
				p.err = fmt.Errorf("sandbox: removing the private TMPDIR: %w", err)
			}
		}
	})
	return p.status, p.err
}

// catchSignals starts catching the signals to forward, alongside, while
// the launching thread confines itself and starts the command: the first
// signal.Notify of a process starts a thread of the runtime's and takes a
// while. A signal that comes before the handlers are in place does to
// guard what it would do without them, and the command's parent-death
// signal does the same to the command; one that comes after, but before
// the command runs, is passed on once it runs (see forward).
func (p *Process) catchSignals() {
	p.sigs = make(chan os.Signal, 8)
	p.done = make(chan struct{})
	p.started = make(chan struct{})
	p.caughtCh = make(chan struct{})
	go func() {
		for _, f := range forwardedSignals {
			signal.Notify(p.sigs, f.sig)
		}
		p.sigMu.Lock()
		p.caught = true
		if p.released {
			signal.Stop(p.sigs)
		}
		p.sigMu.Unlock()
		close(p.caughtCh)
	}()
	go p.forward()
}

// releaseSignals stops catching: at once if the handlers are in place,
// else as soon as they are.
func (p *Process) releaseSignals() {
	p.sigMu.Lock()
	p.released = true
	if p.caught {
		signal.Stop(p.sigs)
	}
	p.sigMu.Unlock()
	close(p.done)
}

// forward passes guard's signals on to the command until it exits, from
// the moment it runs. A signal the terminal sends to its foreground process
// group before then reaches neither (the command was not in the group yet,
// and guard caught it): the user presses Ctrl-C again.
func (p *Process) forward() {
	fromTerminal := map[os.Signal]bool{}
	for _, f := range forwardedSignals {
		fromTerminal[f.sig] = f.fromTerminal
	}
	select {
	case <-p.started:
	case <-p.done:
		return
	}
	for {
		select {
		case sig := <-p.sigs:
			if fromTerminal[sig] && p.inForeground() {
				continue
			}
			unix.Kill(p.pid, sig.(syscall.Signal))
		case <-p.done:
			return
		}
	}
}

// inForeground reports whether guard (and so the command) is the
// foreground process group of its terminal.
func (p *Process) inForeground() bool {
	if p.terminal < 0 {
		return false
	}
	pgrp, err := unix.IoctlGetInt(p.terminal, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// seccompFilters returns how many seccomp filters process pid runs under
// ("thread-self": the calling thread, never one that launched a command),
// or -1 when the kernel does not say.
func seccompFilters(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp_filters:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return -1
}

// killLeftovers kills the processes the command left behind. As subreaper,
// guard becomes the parent of every orphaned descendant. Those in the
// command's mount namespace are the command's (no process can leave it:
// setns and unshare are refused); without one, those under more seccomp
// filters than guard (then the leftovers of all the commands guard runs at
// once look alike). Killing one hands its own children to guard, so this
// repeats until none is left.
func killLeftovers(mntNS uint64) error {
	filters := -1
	if mntNS == 0 {
		filters = seccompFilters("thread-self")
	}
	if mntNS == 0 && filters < 0 {
		return errors.New("sandbox: this kernel does not report seccomp filters per process (Linux 5.9): processes left behind were not stopped")
	}
	ours := func(pid int) bool {
		if mntNS != 0 {
			return nsInode(strconv.Itoa(pid)) == mntNS
		}
		return seccompFilters(strconv.Itoa(pid)) > filters
	}
	for round := 0; round < 10000; round++ {
		if !hasChildren() {
			return nil
		}
		var kill []int
		for _, pid := range childrenOfSelf() {
			if ours(pid) {
				kill = append(kill, pid)
			}
		}
		if len(kill) == 0 {
			return nil
		}
		for _, pid := range kill {
			// A child's pid is not reused before it is reaped, below.
			unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range kill {
			var ws unix.WaitStatus
			for {
				if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
					break
				}
			}
		}
	}
	return errors.New("sandbox: processes left behind kept forking faster than they could be stopped")
}

// nsInode returns the inode of the mount namespace of process pid
// ("thread-self" for the calling thread), or 0.
func nsInode(pid string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+pid+"/ns/mnt", &st); err != nil {
		return 0
	}
	return st.Ino
}

// hasChildren reports whether this process has a child, running or not:
// one system call that spares the scan of /proc in the usual case.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != unix.ECHILD
}

// childrenOfSelf lists this process's children, of every thread.
func childrenOfSelf() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
