// Command probe performs one action that a sandboxed command might try, and
// reports through its exit status: 0 it was done, 1 it was refused or
// failed (the error on stderr), 2 a usage error. The integration tests run
// it under guard exec, beside the same action where policy allows it.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: probe ACTION [ARGS...]")
		os.Exit(2)
	}
	if err := act(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "probe %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func act(action string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	pid := func() int { n, _ := strconv.Atoi(arg(0)); return n }
	switch action {
	case "read":
		b, err := os.ReadFile(arg(0))
		if err == nil {
			os.Stdout.Write(b)
		}
		return err
	case "write":
		return os.WriteFile(arg(0), []byte("written by the probe\n"), 0o644)
	case "append":
		f, err := os.OpenFile(arg(0), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("appended by the probe\n")
		return err
	case "link":
		return os.Link(arg(0), arg(1))
	case "symlink":
		return os.Symlink(arg(0), arg(1))
	case "rename":
		return os.Rename(arg(0), arg(1))
	case "remove":
		return os.Remove(arg(0))
	case "chmod":
		return os.Chmod(arg(0), 0o777)
	case "tcp":
		c, err := net.DialTimeout("tcp", arg(0), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("hello\n"))
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
	case "ptrace":
		err := unix.PtraceAttach(pid())
		if err == nil {
			unix.PtraceDetach(pid())
		}
		return err
	case "kill":
		return unix.Kill(pid(), unix.SIGTERM)
	case "environ":
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid()))
		if err == nil && len(b) == 0 {
			return errors.New("empty")
		}
		return err
	case "io_uring":
		var params [120]byte // struct io_uring_params
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	case "unshare":
		return unix.Unshare(unix.CLONE_NEWUSER | unix.CLONE_NEWNS)
	case "tiocsti":
		// Push a keystroke into the terminal on stdin (the test's pty).
		c := byte('X')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return e
		}
		return nil
	case "listen":
		// Listen on a TCP port, print it, accept one connection.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		return nil
	}
	return errors.New("unknown action " + action)
}
