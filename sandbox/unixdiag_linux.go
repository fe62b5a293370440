//go:build linux && cgo

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's sock_diag interface for Unix sockets (linux/unix_diag.h),
// which x/sys/unix does not describe.
const (
	udiagShowName = 0x1 // UDIAG_SHOW_NAME: the bound name
	udiagShowVFS  = 0x2 // UDIAG_SHOW_VFS: the inode of a named socket's file

	unixDiagName = 0 // UNIX_DIAG_NAME attribute
	unixDiagVFS  = 1 // UNIX_DIAG_VFS attribute

	unixDiagReqLen = 24 // struct unix_diag_req
	unixDiagMsgLen = 16 // struct unix_diag_msg
)

// unixSock is a Unix socket the kernel lists: its own inode (the
// "socket:[N]" of /proc/PID/fd), its bound name and, for a named socket,
// the file it is bound to.
type unixSock struct {
	ino  uint32
	name string // "" unbound; abstract names start with a NUL
	// vfsDev and vfsIno are the file of a named socket, comparable with
	// stat's st_dev and st_ino; hasVFS says they are set.
	vfsDev, vfsIno uint64
	hasVFS         bool
}

// unixDiag lists the Unix sockets of one network namespace: the one its
// netlink socket was made in.
type unixDiag struct {
	mu  sync.Mutex // one dump at a time: replies would interleave
	fd  int
	seq uint32
}

// newUnixDiag makes a sock_diag socket in the calling thread's network
// namespace.
func newUnixDiag() (*unixDiag, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	return &unixDiag{fd: fd}, nil
}

func (d *unixDiag) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// list dumps every Unix socket of the namespace with its name and file.
func (d *unixDiag) list() ([]unixSock, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	req := make([]byte, unix.NLMSG_HDRLEN+unixDiagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], d.seq)
	b := req[unix.NLMSG_HDRLEN:]
	b[0] = unix.AF_UNIX
	ne.PutUint32(b[4:], ^uint32(0)) // every state
	ne.PutUint32(b[12:], udiagShowName|udiagShowVFS)
	ne.PutUint32(b[16:], ^uint32(0)) // no cookie
	ne.PutUint32(b[20:], ^uint32(0))
	if err := unix.Sendto(d.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	var out []unixSock
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(d.fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Seq != d.seq {
				continue // a late reply to an earlier dump
			}
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if e := int32(ne.Uint32(m.Data)); e != 0 {
						return nil, fmt.Errorf("sock_diag: %w", unix.Errno(-e))
					}
				}
				return nil, errors.New("sock_diag: an error reply")
			}
			if s, ok := parseUnixDiag(m.Data); ok {
				out = append(out, s)
			}
		}
	}
}

// parseUnixDiag reads a struct unix_diag_msg and its attributes.
func parseUnixDiag(b []byte) (unixSock, bool) {
	ne := binary.NativeEndian
	if len(b) < unixDiagMsgLen {
		return unixSock{}, false
	}
	s := unixSock{ino: ne.Uint32(b[4:])}
	for rest := b[unixDiagMsgLen:]; len(rest) >= 4; {
		l := int(ne.Uint16(rest[0:]))
		if l < 4 || l > len(rest) {
			break
		}
		v := rest[4:l]
		switch ne.Uint16(rest[2:]) {
		case unixDiagName:
			s.name = string(v)
		case unixDiagVFS:
			if len(v) >= 8 {
				// The kernel's own dev_t (major << 20 | minor), not the
				// encoding stat returns.
				kdev := ne.Uint32(v[4:])
				s.vfsDev = unix.Mkdev(kdev>>20, kdev&(1<<20-1))
				s.vfsIno = uint64(ne.Uint32(v[0:]))
				s.hasVFS = true
			}
		}
		rest = rest[min((l+3)&^3, len(rest)):]
	}
	return s, true
}
