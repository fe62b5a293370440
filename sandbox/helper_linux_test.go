//go:build linux && cgo

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary is its own helper program: run with GUARD_SANDBOX_HELPER=1
// inside the sandbox, it performs one action (read a file, connect, trace
// a process, ...) and reports through its exit status: 0 done, 1 refused
// or failed (the error on stderr). With GUARD_SANDBOX_LAUNCH set, it is a
// launcher: it runs the command of that JSON under its policy, which is how
// the tests run the sandbox as another user.

func TestMain(m *testing.M) {
	switch {
	case os.Getenv("GUARD_SANDBOX_HELPER") == "1":
		os.Exit(helper(os.Args[1:]))
	case os.Getenv("GUARD_SANDBOX_LAUNCH") != "":
		os.Exit(launchFromEnv(os.Getenv("GUARD_SANDBOX_LAUNCH")))
	}
	code := m.Run()
	if nobodyOnce.path != "" {
		os.RemoveAll(filepath.Dir(nobodyOnce.path))
	}
	os.Exit(code)
}

// launchRequest is what GUARD_SANDBOX_LAUNCH holds.
type launchRequest struct {
	Policy Policy
	Args   []string
	Env    []string
	Dir    string
}

func launchFromEnv(spec string) int {
	var r launchRequest
	if err := json.Unmarshal([]byte(spec), &r); err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 70
	}
	p, err := Start(r.Policy, Command{Path: r.Args[0], Args: r.Args, Env: r.Env, Dir: r.Dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 71
	}
	<-p.caughtCh // so that a test's signal finds the handlers in place
	if os.Getenv("GUARD_SANDBOX_LAUNCH_SAY") != "" {
		// The command may say it is ready before the handlers are in
		// place: a test that signals waits for this too.
		fmt.Fprintln(os.Stderr, "launcher catching signals")
	}
	status, err := p.Wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
	}
	return status
}

func helper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: no action")
		return 2
	}
	err := helperAction(args[0], args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func helperAction(action string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch action {
	case "read":
		b, err := os.ReadFile(arg(0))
		if err == nil {
			os.Stdout.Write(b)
		}
		return err
	case "write":
		return os.WriteFile(arg(0), []byte("written by the sandbox\n"), 0o644)
	case "link":
		return os.Link(arg(0), arg(1))
	case "rename":
		return os.Rename(arg(0), arg(1))
	case "chmod":
		mode, err := strconv.ParseUint(arg(1), 8, 32)
		if err != nil {
			return err
		}
		return unix.Chmod(arg(0), uint32(mode))
	case "tcp":
		c, err := net.DialTimeout("tcp", arg(0), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("hello"))
		return err
	case "udp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		defer unix.Close(fd)
		addr, err := net.ResolveUDPAddr("udp4", arg(0))
		if err != nil {
			return err
		}
		sa := &unix.SockaddrInet4{Port: addr.Port}
		copy(sa.Addr[:], addr.IP.To4())
		return unix.Sendto(fd, []byte("hello"), 0, sa)
	case "raw":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "abstract", "unix":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		defer unix.Close(fd)
		name := arg(0)
		if action == "abstract" {
			name = "@" + name
		}
		return unix.Connect(fd, &unix.SockaddrUnix{Name: name})
	case "unix-read":
		// Connect to a named socket and read what the server says first.
		c, err := net.DialTimeout("unix", arg(0), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 64)
		n, err := c.Read(buf)
		os.Stdout.Write(buf[:n])
		return err
	case "serve":
		// A server of its own: listen on a named socket (or @abstract),
		// connect to it, and pass a message.
		return serveAndConnect(arg(0), arg(1) == "relative")
	case "hold":
		// Listen on a name, say so in the file arg(1), and keep it until
		// the file arg(2) appears.
		l, err := net.Listen("unix", arg(0))
		if err != nil {
			return err
		}
		defer l.Close()
		if err := os.WriteFile(arg(1), []byte("ready"), 0o644); err != nil {
			return err
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(arg(2)); err == nil {
				return nil
			}
		}
		return errors.New("hold: never told to stop")
	case "dgram":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, []byte("hello"), 0, &unix.SockaddrUnix{Name: arg(0)})
	case "connect-edge":
		// A connect the kernel refuses on its own: guard must refuse it
		// the same way. Prints the errno's number.
		fmt.Println(int(connectEdge(arg(0), arg(1))))
		return nil
	case "race":
		// Connect again and again to the allowed socket arg(0) while
		// another thread rewrites the address to arg(1) and back: guard
		// must read the address once.
		return raceConnect(arg(0), arg(1))
	case "socketpair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte("ping")); err != nil {
			return err
		}
		buf := make([]byte, 4)
		_, err = unix.Read(fds[1], buf)
		return err
	case "ptrace":
		pid, _ := strconv.Atoi(arg(0))
		err := unix.PtraceAttach(pid)
		if err == nil {
			unix.PtraceDetach(pid)
		}
		return err
	case "kill":
		pid, _ := strconv.Atoi(arg(0))
		return unix.Kill(pid, unix.SIGTERM)
	case "io_uring":
		var params [120]byte // struct io_uring_params
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	case "tiocsti":
		// Make stdin the controlling terminal, so that only a filter can
		// stop the push (without one, TIOCSTI needs CAP_SYS_ADMIN for
		// another terminal).
		if _, err := unix.Setsid(); err != nil {
			return fmt.Errorf("setsid: %w", err)
		}
		if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
			return fmt.Errorf("TIOCSCTTY: %w", err)
		}
		c := byte('X')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return e
		}
		return nil
	case "vmread":
		pid, _ := strconv.Atoi(arg(0))
		buf := make([]byte, 8)
		local := []unix.Iovec{{Base: &buf[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: 0x400000, Len: 8}}
		_, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if err == unix.EFAULT {
			return nil // allowed: the address just is not mapped
		}
		return err
	case "fd":
		n, _ := strconv.Atoi(arg(0))
		var st unix.Stat_t
		return unix.Fstat(n, &st)
	case "caps":
		b, err := os.ReadFile("/proc/self/status")
		os.Stdout.Write(b)
		return err
	case "daemon":
		// Leave a process behind: a double fork into a new session.
		return leaveDaemon(arg(0))
	case "wait-signal":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, syscall.SIGUSR1)
		fmt.Println("ready")
		s := <-c
		fmt.Println("got", s)
		os.Exit(40 + int(s.(syscall.Signal)))
	case "count-int":
		// Count the SIGINTs of one Ctrl-C: exactly one must come.
		c := make(chan os.Signal, 4)
		signal.Notify(c, syscall.SIGINT)
		if !isTerminal(0) {
			return errors.New("stdin is not a terminal")
		}
		fmt.Println("ready")
		<-c
		n := 1
		for deadline := time.After(300 * time.Millisecond); ; {
			select {
			case <-c:
				n++
				continue
			case <-deadline:
			}
			break
		}
		os.Exit(40 + n)
	case "read-parent":
		// Read the environment and memory of every thread of the parent
		// (guard): the thread that started the command shares its
		// Landlock domain.
		ppid := os.Getppid()
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", ppid))
		if err != nil {
			return err
		}
		var read []string
		for _, t := range tasks {
			for _, f := range []string{"environ", "mem", "cmdline"} {
				p := fmt.Sprintf("/proc/%d/task/%s/%s", ppid, t.Name(), f)
				fd, err := unix.Open(p, unix.O_RDONLY, 0)
				if err != nil {
					continue
				}
				buf := make([]byte, 64)
				n, err := unix.Read(fd, buf)
				unix.Close(fd)
				if err == nil && n > 0 && f != "cmdline" {
					read = append(read, p)
				}
			}
		}
		if len(read) > 0 {
			fmt.Println("read", read)
			return nil
		}
		return errors.New("nothing of the parent's could be read")
	case "signal-parent":
		// Signal 0 (a permission check only) to guard and each of its
		// threads.
		ppid := os.Getppid()
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", ppid))
		if err != nil {
			return err
		}
		var reached []string
		if unix.Kill(ppid, 0) == nil {
			reached = append(reached, "kill")
		}
		for _, t := range tasks {
			tid, _ := strconv.Atoi(t.Name())
			if unix.Tgkill(ppid, tid, 0) == nil {
				reached = append(reached, "tgkill "+t.Name())
			}
			if _, _, e := unix.RawSyscall(unix.SYS_TKILL, uintptr(tid), 0, 0); e == 0 {
				reached = append(reached, "tkill "+t.Name())
			}
		}
		if len(reached) > 0 {
			fmt.Println("reached", reached)
			return nil
		}
		return errors.New("no signal reached guard")
	case "exit":
		n, _ := strconv.Atoi(arg(0))
		os.Exit(n)
	case "sleep":
		d, _ := time.ParseDuration(arg(0))
		time.Sleep(d)
		return nil
	}
	return errors.New("unknown action " + action)
}

// leaveDaemon starts sleep in a new session through an intermediate shell
// that exits at once, so the sleeper is nobody's child but guard's
// (subreaper), and writes the sleeper's pid to file.
func leaveDaemon(file string) error {
	attr := &os.ProcAttr{Files: []*os.File{nil, nil, nil}, Sys: &syscall.SysProcAttr{Setsid: true}}
	p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", "sleep 60 & echo $! > " + file}, attr)
	if err != nil {
		return err
	}
	_, err = p.Wait()
	return err
}

// connectEdge makes the connect of case c (to path, where one is needed)
// and returns its errno.
func connectEdge(c, path string) unix.Errno {
	sock := func(typ int) int {
		fd, err := unix.Socket(unix.AF_UNIX, typ, 0)
		if err != nil {
			panic(err)
		}
		return fd
	}
	raw := func(fd int, p unsafe.Pointer, n uintptr) unix.Errno {
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(p), n)
		return e
	}
	var sa [110]byte
	binary.NativeEndian.PutUint16(sa[:], unix.AF_UNIX)
	n := 2 + copy(sa[2:], path) + 1
	switch c {
	case "bad-fd":
		return raw(999, unsafe.Pointer(&sa[0]), uintptr(n))
	case "not-a-socket":
		var p [2]int
		unix.Pipe(p[:])
		return raw(p[0], unsafe.Pointer(&sa[0]), uintptr(n))
	case "bad-pointer":
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock(unix.SOCK_STREAM)), 8, uintptr(n))
		return e
	case "huge-length":
		return raw(sock(unix.SOCK_STREAM), unsafe.Pointer(&sa[0]), 4096)
	case "no-name":
		return raw(sock(unix.SOCK_STREAM), unsafe.Pointer(&sa[0]), 2)
	case "unspec-dgram":
		binary.NativeEndian.PutUint16(sa[:], unix.AF_UNSPEC)
		return raw(sock(unix.SOCK_DGRAM), unsafe.Pointer(&sa[0]), uintptr(n))
	case "inet-address":
		binary.NativeEndian.PutUint16(sa[:], unix.AF_INET)
		return raw(sock(unix.SOCK_STREAM), unsafe.Pointer(&sa[0]), 16)
	case "path":
		return raw(sock(unix.SOCK_STREAM), unsafe.Pointer(&sa[0]), uintptr(n))
	case "dgram-own":
		// A datagram socket of its own, bound at path, and another
		// connected to it.
		srv := sock(unix.SOCK_DGRAM)
		if err := unix.Bind(srv, &unix.SockaddrUnix{Name: path}); err != nil {
			return err.(unix.Errno)
		}
		cl := sock(unix.SOCK_DGRAM)
		if e := raw(cl, unsafe.Pointer(&sa[0]), uintptr(n)); e != 0 {
			return e
		}
		if _, err := unix.Write(cl, []byte("x")); err != nil {
			return err.(unix.Errno)
		}
		return 0
	}
	return unix.ENOSYS
}

// serveAndConnect listens on name (a path, or @abstract), connects to it
// and exchanges a message, as test runners and language servers do.
func serveAndConnect(name string, relative bool) error {
	l, err := net.Listen("unix", name)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("pong"))
		c.Close()
	}()
	dial := name
	if relative && !strings.HasPrefix(name, "@") {
		dir, base := filepath.Split(name)
		if err := os.Chdir(dir); err != nil {
			return err
		}
		dial = base
	}
	c, err := net.DialTimeout("unix", dial, 5*time.Second)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		return fmt.Errorf("read %q: %v", buf, err)
	}
	return nil
}

// raceConnect tries to win the race between guard's check of a connect's
// address and the connection: one thread connects to allowed in a loop,
// another flips the very same address buffer to forbidden and back. It
// succeeds (exit 0) when any connection reached forbidden, which the test
// learns from forbidden's server; here it reports how many connections
// were made.
func raceConnect(allowed, forbidden string) error {
	if len(allowed) != len(forbidden) {
		return errors.New("race: the two paths must be as long")
	}
	var sa [110]byte
	binary.NativeEndian.PutUint16(sa[:], unix.AF_UNIX)
	copy(sa[2:], allowed)
	salen := 2 + len(allowed) + 1
	stop := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		p := (*[110]byte)(unsafe.Pointer(&sa))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			src := allowed
			if i%2 == 0 {
				src = forbidden
			}
			for j := 0; j < len(src); j++ {
				p[2+j] = src[j]
			}
		}
	}()
	connected := 0
	for i := 0; i < 2000; i++ {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			close(stop)
			return err
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa[0])), uintptr(salen))
		if e == 0 {
			connected++
		}
		unix.Close(fd)
	}
	close(stop)
	fmt.Println("connected", connected)
	return nil
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
