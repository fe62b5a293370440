//go:build linux && cgo

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Landlock before ABI 9 cannot restrict connecting to a Unix socket by its
// path, and a seccomp filter cannot read the address connect(2) is given
// (it is in memory). So every connect of the command is sent to guard
// (seccomp user notification), which reads the address once, decides, and
// makes the connection itself, on the command's own socket (pidfd_getfd):
// the command cannot change the address or the socket between the check and
// the connection, as it could if guard let the kernel go on with the call.
//
// guard connects a Unix socket to:
//   - a socket of Policy.UnixSockets (the same file, found again at each
//     connection, unless it hands over the machine and is not marked
//     dangerous);
//   - a socket the command bound itself: one listed by the kernel in the
//     command's own network namespace (network off), or held by one of
//     its processes (network on);
//   - an abstract name, looked up in the command's own network namespace
//     (network off), or held by one of its processes (network on);
//
// and refuses the rest with EACCES. A TCP connection is made where the
// network is on, or to the allowed ports.

// notifyFilter is the seccomp filter that sends connect(2) to guard. It
// does not check the architecture: the main filter kills a call made
// through another ABI, and a kill outranks a notification.
func notifyFilter() ([]unix.SockFilter, error) {
	return assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CONNECT, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
}

// fallbackFilter is loaded where guard cannot make the connections itself
// (no seccomp user notification): with the network off no connection at
// all; with TCP ports no Unix socket; with the network on nothing (the
// machine's Unix sockets are reachable: a gap Explain lists). Without a
// network namespace of its own, a command with the network off may not
// bind or listen either, since an abstract name it took would be the
// machine's. nil means no filter.
func fallbackFilter(mode netMode, supervised, netNS bool) ([]unix.SockFilter, error) {
	eperm := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	var refuse []uint32
	switch {
	case mode == netOff && !supervised:
		refuse = append(refuse, unix.SYS_CONNECT)
	case mode == netTCP && !supervised:
		return assemble([]bpf.Instruction{
			bpf.LoadAbsolute{Off: 0, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 3},
			bpf.LoadAbsolute{Off: 16, Size: 4}, // the low half of args[0] (little-endian)
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			bpf.RetConstant{Val: eperm},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		})
	}
	if mode == netOff && !netNS {
		refuse = append(refuse, unix.SYS_BIND, unix.SYS_LISTEN)
	}
	if len(refuse) == 0 {
		return nil, nil
	}
	prog := []bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 4}}
	for i, nr := range refuse {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(len(refuse) - i)})
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}, bpf.RetConstant{Val: eperm})
	return assemble(prog)
}

func assemble(prog []bpf.Instruction) ([]unix.SockFilter, error) {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err) // cannot happen: fixed programs
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// loadNotifyFilter loads prog on the calling thread and returns the
// listener guard reads the notifications from (close-on-exec). Where the
// kernel has it (5.19), a notification guard has received waits for the
// answer without being interrupted by signals: the Go runtime preempts its
// threads with signals, and a connect restarted after guard made it would
// fail with EISCONN.
func loadNotifyFilter(prog []unix.SockFilter) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	for _, flags := range []uintptr{unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER} {
		fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		if errno == unix.EINVAL && flags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0 {
			continue
		}
		if errno != 0 {
			return -1, fmt.Errorf("seccomp: loading the filter that sends connections to guard: %w", errno)
		}
		return int(fd), nil
	}
	return -1, errors.New("seccomp: cannot happen")
}

// The kernel's structures of seccomp user notification.
type notifData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	data  notifData
}

type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// pidfdThread is PIDFD_THREAD (Linux 6.9): a pidfd for one thread.
const pidfdThread = unix.O_EXCL

// maxSockaddr is sizeof(struct sockaddr_storage), the most connect reads.
const maxSockaddr = 128

// supervisor makes the connections of one sandboxed command.
type supervisor struct {
	listener int
	stop     int // an eventfd: Wait is done
	done     chan struct{}

	mode    netMode
	sockets []listedSocket
	ports   map[uint16]bool

	// netNS is the inode of the command's own network namespace (0: it
	// shares guard's) and diag lists its sockets.
	netNS uint64
	diag  *unixDiag
	// netCookie is the namespace's cookie (Linux 5.14), which tells a
	// socket's namespace without privileges; 0 where the kernel has none.
	netCookie uint64
	// mntNS tells the command's processes from others (0: no namespace,
	// then the count of seccomp filters does: see commandPids).
	mntNS uint64

	hostDiagOnce sync.Once
	hostDiag     *unixDiag
	hostDiagErr  error

	// async counts the TCP connections being made on goroutines of their
	// own: the listener they answer on stays open until they are done
	// (closed, its number could name another file by then).
	async sync.WaitGroup

	mu      sync.Mutex
	refused []string
}

// listedSocket is a socket of Policy.UnixSockets, resolved, and why it is
// refused ("" when it is not).
type listedSocket struct {
	path, refused string
}

// maxRefused bounds the refusals a supervisor remembers.
const maxRefused = 16

func newSupervisor(listener int, p Policy, netNS uint64, diag *unixDiag, mntNS uint64) (*supervisor, error) {
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: eventfd: %w", err)
	}
	s := &supervisor{
		listener: listener, stop: stop, done: make(chan struct{}),
		mode: p.netMode(), ports: map[uint16]bool{},
		netNS: netNS, diag: diag, mntNS: mntNS,
	}
	for _, u := range p.UnixSockets {
		// The settings resolve the symlinks of a socket that exists when
		// they load (/var/run is /run); one that did not is resolved now,
		// before the command runs. A socket that hands over the machine
		// under either name, not marked dangerous, is refused.
		l := listedSocket{path: u.Path, refused: u.refused()}
		if real, err := filepath.EvalSymlinks(u.Path); err == nil && real != u.Path {
			l.path = real
			if why := (UnixSocket{Path: real, Dangerous: u.Dangerous}).refused(); l.refused == "" {
				l.refused = why
			}
		}
		s.sockets = append(s.sockets, l)
	}
	for _, port := range p.TCPConnect {
		s.ports[port] = true
	}
	if netNS != 0 && diag != nil && diag.fd >= 0 {
		s.netCookie = netnsCookie(diag.fd)
	}
	go s.run()
	return s, nil
}

// netnsCookie returns the cookie of the network namespace of a socket, or
// 0.
func netnsCookie(sock int) uint64 {
	var c uint64
	l := uint32(8)
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(sock), unix.SOL_SOCKET, unix.SO_NETNS_COOKIE, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&l)), 0)
	if e != 0 || l != 8 {
		return 0
	}
	return c
}

// inCommandNetNS reports whether a socket belongs to the command's own
// network namespace: by cookie where the kernel has them, else by the
// namespace's inode (SIOCGSKNS, which needs CAP_NET_ADMIN there).
func (s *supervisor) inCommandNetNS(sock int) bool {
	if s.netCookie != 0 {
		return netnsCookie(sock) == s.netCookie
	}
	return socketNetNS(sock) == s.netNS
}

// close stops the supervisor and waits for its loop to end. TCP
// connections still being made finish on their own (the command is gone),
// and the listener is closed after them.
func (s *supervisor) close() {
	one := uint64(1)
	unix.Write(s.stop, (*[8]byte)(unsafe.Pointer(&one))[:])
	<-s.done
	unix.Close(s.stop)
	s.diag.close()
	if s.hostDiag != nil {
		s.hostDiag.close()
	}
	go func() {
		s.async.Wait()
		unix.Close(s.listener)
	}()
}

// Refused lists the Unix sockets the command was refused, as it named
// them.
func (s *supervisor) refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

func (s *supervisor) noteRefused(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.refused {
		if r == what {
			return
		}
	}
	if len(s.refused) < maxRefused {
		s.refused = append(s.refused, what)
	}
}

// run receives the notifications until Wait stops it or no process is left
// under the filter, and answers each: a Unix connection at once, on this
// thread (a connection is a round trip the command waits for); a TCP one on
// a goroutine of its own.
func (s *supervisor) run() {
	defer close(s.done)
	// Where the kernel has it (6.6), the command's thread and this one
	// hand over directly, without a trip through the scheduler.
	unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	fds := []unix.PollFd{{Fd: int32(s.listener), Events: unix.POLLIN}, {Fd: int32(s.stop), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return // cannot happen: valid descriptors
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
				return // no process is left under the filter
			}
			continue
		}
		n := new(seccompNotif)
		if err := ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(n)); err != nil {
			continue // ENOENT: the caller died or was interrupted meanwhile
		}
		s.answer(n)
	}
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// valid reports whether notification id still waits for its answer: its
// thread has not died (and its thread ID is not someone else's now).
func (s *supervisor) valid(id uint64) bool {
	return ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// errGone and errLater are not errnos: the calling thread is gone, and
// there is nothing to answer; the answer comes later, from another
// goroutine.
const (
	errGone  = unix.Errno(1 << 20)
	errLater = unix.Errno(1<<20 + 1)
)

func (s *supervisor) answer(n *seccompNotif) {
	if errno := s.decide(n); errno != errLater {
		s.respond(n.id, errno)
	}
}

// respond answers notification id with errno (0: success).
func (s *supervisor) respond(id uint64, errno unix.Errno) {
	if errno == errGone {
		return
	}
	resp := seccompNotifResp{id: id}
	if errno != 0 {
		resp.error = -int32(errno)
	}
	// ENOENT: the thread was interrupted or died meanwhile.
	ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// decide handles one connect and returns its errno (0: connected).
func (s *supervisor) decide(n *seccompNotif) unix.Errno {
	if n.data.nr != unix.SYS_CONNECT {
		return unix.ENOSYS // cannot happen: the filter sends connect only
	}
	tid := int(n.pid)
	// The kernel reads the descriptor and the length as 32-bit ints.
	sockfd, addr, alen := int(int32(n.data.args[0])), uintptr(n.data.args[1]), int32(uint32(n.data.args[2]))
	if alen < 0 || alen > maxSockaddr {
		return unix.EINVAL
	}
	sa := make([]byte, alen)
	if alen > 0 {
		local := []unix.Iovec{{Base: &sa[0], Len: uint64(alen)}}
		remote := []unix.RemoteIovec{{Base: addr, Len: int(alen)}}
		if _, err := unix.ProcessVMReadv(tid, local, remote, 0); err != nil {
			if !s.valid(n.id) {
				return errGone
			}
			return unix.EFAULT
		}
	}
	pidfd, err := unix.PidfdOpen(tid, pidfdThread)
	if err == unix.EINVAL {
		pidfd, err = unix.PidfdOpen(threadGroup(tid), 0)
	}
	if err != nil {
		return errGone
	}
	defer unix.Close(pidfd)
	// The pidfd is the caller's only if the notification is still alive
	// (its thread ID cannot be reused before).
	if !s.valid(n.id) {
		return errGone
	}
	sock, err := unix.PidfdGetfd(pidfd, sockfd, 0)
	if err != nil {
		if e, ok := err.(unix.Errno); ok && e == unix.EBADF {
			return unix.EBADF
		}
		return unix.EPERM
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		unix.Close(sock)
		return unix.ENOTSOCK
	}
	if domain == unix.AF_INET || domain == unix.AF_INET6 {
		// A TCP connection may take a while: the loop goes on meanwhile.
		s.async.Add(1)
		go func() {
			defer s.async.Done()
			defer unix.Close(sock)
			s.respond(n.id, s.connectIP(sock, sa))
		}()
		return errLater
	}
	defer unix.Close(sock)
	if domain == unix.AF_UNIX {
		return s.connectUnix(n, tid, sock, sa)
	}
	if s.mode == netOn {
		return rawConnect(sock, sa)
	}
	return unix.EACCES // cannot happen: no such socket with the network off
}

// threadGroup returns the process a thread belongs to (before Linux 6.9,
// pidfds name processes only).
func threadGroup(tid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return tid
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return tid
}

// rawConnect connects fd to the address sa, as the command gave it.
func rawConnect(fd int, sa []byte) unix.Errno {
	var p unsafe.Pointer
	if len(sa) > 0 {
		p = unsafe.Pointer(&sa[0])
	}
	for {
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(p), uintptr(len(sa)))
		if e != unix.EINTR {
			return e
		}
		// A signal to guard's thread. A Unix connection can be tried
		// again; a TCP one goes on in the kernel and is waited for.
		if d, _ := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN); d == unix.AF_UNIX {
			continue
		}
		return waitConnected(fd)
	}
}

// waitConnected waits for a TCP connection under way and returns its
// outcome.
func waitConnected(fd int) unix.Errno {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			break
		}
	}
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return unix.EIO
	}
	return unix.Errno(soErr)
}

// connectIP makes a TCP connection where the policy allows it: anywhere
// with the network on, to the allowed ports in part. guard is not under
// the command's Landlock rules, so it checks the port as they would.
func (s *supervisor) connectIP(sock int, sa []byte) unix.Errno {
	switch s.mode {
	case netOn:
		return rawConnect(sock, sa)
	case netTCP:
		port, ok := sockaddrPort(sa)
		if !ok {
			return unix.EAFNOSUPPORT
		}
		if port >= 0 && !s.ports[uint16(port)] {
			return unix.EACCES
		}
		return rawConnect(sock, sa)
	}
	return unix.EACCES // cannot happen: no such socket with the network off
}

// sockaddrPort reads the port of an IPv4 or IPv6 address; -1 for
// AF_UNSPEC (a disconnection, allowed as Landlock allows it); ok false for
// anything else.
func sockaddrPort(sa []byte) (int, bool) {
	if len(sa) < 2 {
		return 0, false
	}
	switch binary.NativeEndian.Uint16(sa) {
	case unix.AF_UNSPEC:
		return -1, true
	case unix.AF_INET:
		if len(sa) < unix.SizeofSockaddrInet4 {
			return 0, false
		}
	case unix.AF_INET6:
		if len(sa) < unix.SizeofSockaddrInet6 {
			return 0, false
		}
	default:
		return 0, false
	}
	return int(binary.BigEndian.Uint16(sa[2:])), true
}

// connectUnix decides a Unix socket connection.
func (s *supervisor) connectUnix(n *seccompNotif, tid, sock int, sa []byte) unix.Errno {
	if len(sa) <= 2 || binary.NativeEndian.Uint16(sa) != unix.AF_UNIX {
		// No name, or not a Unix address: the kernel refuses it, or
		// (AF_UNSPEC) dissolves a datagram socket's association.
		return rawConnect(sock, sa)
	}
	if sa[2] == 0 {
		return s.connectAbstract(sock, sa)
	}
	name := sa[2:]
	if i := indexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	path := string(name)
	target, errno := s.resolve(n, tid, path)
	if errno != 0 {
		return errno
	}
	defer unix.Close(target)
	var st unix.Stat_t
	if err := unix.Fstat(target, &st); err != nil {
		return unix.EACCES
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return unix.ECONNREFUSED // what the kernel says of a file that is no socket
	}
	if s.listed(st) || s.ownFile(st) {
		// Through the descriptor: the very file that was checked, whatever
		// the path leads to now.
		return rawConnect(sock, unixAddr("/proc/self/fd/"+strconv.Itoa(target)))
	}
	s.noteRefused(path)
	return unix.EACCES
}

// connectAbstract decides a connection to an abstract name.
func (s *supervisor) connectAbstract(sock int, sa []byte) unix.Errno {
	name := string(sa[2:])
	if s.netNS != 0 {
		// The kernel looks the name up in the namespace of the socket:
		// the command's own, where only its own names are, unless the
		// socket came from outside.
		if s.inCommandNetNS(sock) {
			return rawConnect(sock, sa)
		}
	} else if s.ownAbstract(name) {
		return rawConnect(sock, sa)
	}
	s.noteRefused("@" + strings.TrimPrefix(name, "\x00"))
	return unix.EACCES
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// unixAddr is the struct sockaddr_un of a path.
func unixAddr(path string) []byte {
	sa := make([]byte, 2, 2+len(path)+1)
	binary.NativeEndian.PutUint16(sa, unix.AF_UNIX)
	sa = append(sa, path...)
	return append(sa, 0)
}

// socketNetNS returns the inode of the network namespace a socket belongs
// to, or 0.
func socketNetNS(sock int) uint64 {
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(sock), unix.SIOCGSKNS, 0)
	if e != 0 {
		return 0
	}
	fd := int(r)
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return st.Ino
}

// resolve finds the file a path names for the calling thread: in its mount
// namespace (its private TMPDIR, the covers over blocked paths), from its
// root and working directory. The answer is an O_PATH descriptor.
func (s *supervisor) resolve(n *seccompNotif, tid int, path string) (int, unix.Errno) {
	proc := "/proc/" + strconv.Itoa(tid)
	root, err := unix.Open(proc+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, errGone
	}
	defer unix.Close(root)
	if !filepath.IsAbs(path) {
		cwd, err := os.Readlink(proc + "/cwd")
		if err != nil || !filepath.IsAbs(cwd) {
			return -1, errGone
		}
		// Not filepath.Join: ".." after a symlink is not what Clean makes
		// of it.
		path = cwd + "/" + path
	}
	// The root and working directory were the caller's only if it still
	// waits.
	if !s.valid(n.id) {
		return -1, errGone
	}
	fd, err := unix.Openat2(root, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		if e, ok := err.(unix.Errno); ok {
			return -1, e
		}
		return -1, unix.ENOENT
	}
	return fd, 0
}

// listed reports whether the socket file st is one of the policy's, and
// not one that hands over the machine without being marked so. Each is
// found again, since its server may have made it anew.
func (s *supervisor) listed(st unix.Stat_t) bool {
	for _, u := range s.sockets {
		fd, err := openExact(u.path, unix.O_PATH)
		if err != nil {
			continue
		}
		var us unix.Stat_t
		err = unix.Fstat(fd, &us)
		unix.Close(fd)
		if err == nil && us.Dev == st.Dev && us.Ino == st.Ino {
			return u.refused == ""
		}
	}
	return false
}

// ownFile reports whether the socket bound to file st is the command's
// own. With a network namespace of its own, every socket the kernel lists
// in it is. Otherwise its owner must be one of the command's processes.
// (The kernel reports a socket file's inode in 32 bits.)
func (s *supervisor) ownFile(st unix.Stat_t) bool {
	match := func(u unixSock) bool {
		return u.hasVFS && u.vfsDev == st.Dev && uint32(u.vfsIno) == uint32(st.Ino)
	}
	if s.netNS != 0 {
		socks, err := s.diag.list()
		if err != nil {
			return false
		}
		for _, u := range socks {
			if match(u) {
				return true
			}
		}
		return false
	}
	return s.heldByCommand(match)
}

// ownAbstract reports whether an abstract name (with its leading NUL) is
// bound by one of the command's processes, in the network namespace it
// shares with the machine.
func (s *supervisor) ownAbstract(name string) bool {
	return s.heldByCommand(func(u unixSock) bool { return u.name == name })
}

// heldByCommand reports whether a socket of the machine's network
// namespace that match picks is open in one of the command's processes.
func (s *supervisor) heldByCommand(match func(unixSock) bool) bool {
	s.hostDiagOnce.Do(func() { s.hostDiag, s.hostDiagErr = newUnixDiag() })
	if s.hostDiagErr != nil {
		return false
	}
	socks, err := s.hostDiag.list()
	if err != nil {
		return false
	}
	want := map[string]bool{}
	for _, u := range socks {
		if match(u) {
			want["socket:["+strconv.FormatUint(uint64(u.ino), 10)+"]"] = true
		}
	}
	if len(want) == 0 {
		return false
	}
	for _, pid := range commandPids(s.mntNS) {
		fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		entries, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if link, err := os.Readlink(fdDir + e.Name()); err == nil && want[link] {
				return true
			}
		}
	}
	return false
}

// commandPids lists the processes of the sandboxed command: those in its
// mount namespace, or without one, those under more seccomp filters than
// guard (which then cannot tell its commands apart).
func commandPids(mntNS uint64) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	filters := -1
	if mntNS == 0 {
		if filters = seccompFilters("self"); filters < 0 {
			return nil
		}
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if mntNS != 0 && nsInode(e.Name()) == mntNS || mntNS == 0 && seccompFilters(e.Name()) > filters {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}
