//go:build linux && cgo

package sandbox

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// These tests run the exported filter in golang.org/x/net/bpf's interpreter
// on synthetic seccomp_data: the program is proven without loading it. The
// real-kernel tests (sandbox_linux_test.go) load the same program.

// Personality flags (linux/personality.h), not in x/sys/unix.
const (
	addrNoRandomize = 0x0040000
	readImpliesExec = 0x0400000
)

// atFDCWD is AT_FDCWD as a register holds it.
const atFDCWD = uint64(0xffffffffffffff9c)

const (
	retAllow       = unix.SECCOMP_RET_ALLOW
	retKillProcess = unix.SECCOMP_RET_KILL_PROCESS
	retErrno       = unix.SECCOMP_RET_ERRNO
)

// filterVM returns an interpreter for the program the launcher loads for
// mode.
func filterVM(t testing.TB, mode netMode) *bpf.VM {
	t.Helper()
	prog, err := seccompFilter(mode)
	if err != nil {
		t.Fatal(err)
	}
	return programVM(t, prog)
}

// programVM returns an interpreter for prog.
func programVM(t testing.TB, prog []unix.SockFilter) *bpf.VM {
	t.Helper()
	raw := make([]bpf.RawInstruction, len(prog))
	for i, in := range prog {
		raw[i] = bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the program has instructions the interpreter does not know")
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// nativeAudit is the AUDIT_ARCH_ value of the architecture the tests run on.
func nativeAudit(t testing.TB) uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	t.Skipf("no AUDIT_ARCH_ value known for %s", runtime.GOARCH)
	return 0
}

// seccompData encodes struct seccomp_data for the interpreter. The kernel's
// loads are native-endian and the interpreter's big-endian, so each 32-bit
// word is stored big-endian at the offset where the kernel finds it (the
// low half of an argument first, on little-endian machines).
func seccompData(nr int32, arch uint32, args [6]uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		lo, hi := uint32(a), uint32(a>>32)
		if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // big-endian machine
			lo, hi = hi, lo
		}
		binary.BigEndian.PutUint32(b[16+8*i:], lo)
		binary.BigEndian.PutUint32(b[20+8*i:], hi)
	}
	return b
}

func syscallNr(t testing.TB, name string) int32 {
	t.Helper()
	nr, err := seccomp.GetSyscallFromName(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return int32(nr)
}

func run(t testing.TB, vm *bpf.VM, data []byte) uint32 {
	t.Helper()
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(ret)
}

func retName(r uint32) string {
	switch {
	case r == retAllow:
		return "allow"
	case r == retKillProcess:
		return "kill"
	case r&unix.SECCOMP_RET_ACTION_FULL == retErrno:
		return fmt.Sprintf("errno %v", unix.Errno(r&unix.SECCOMP_RET_DATA))
	}
	return fmt.Sprintf("%#x", r)
}

func TestSeccompFilterDecisions(t *testing.T) {
	arch := nativeAudit(t)
	eperm := retErrno | uint32(unix.EPERM)
	enosys := retErrno | uint32(unix.ENOSYS)
	all := []netMode{netOff, netTCP, netOn}
	tests := []struct {
		name  string
		modes []netMode
		call  string
		args  [6]uint64
		want  uint32
	}{
		{"an ordinary call is allowed", all, "read", [6]uint64{0, 0, 10}, retAllow},
		{"ptrace is refused", all, "ptrace", [6]uint64{unix.PTRACE_ATTACH, 1}, eperm},
		{"process_vm_readv is refused", all, "process_vm_readv", [6]uint64{1}, eperm},
		{"io_uring_setup is refused", all, "io_uring_setup", [6]uint64{8}, eperm},
		{"bpf is refused", all, "bpf", [6]uint64{}, eperm},
		{"mount is refused", all, "mount", [6]uint64{}, eperm},
		{"mount_setattr is refused", all, "mount_setattr", [6]uint64{}, eperm},
		{"keyctl is refused", all, "keyctl", [6]uint64{}, eperm},
		{"a thread's clone is allowed", all, "clone", [6]uint64{unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD | unix.CLONE_SYSVSEM}, retAllow},
		{"fork's clone is allowed", all, "clone", [6]uint64{uint64(unix.SIGCHLD)}, retAllow},
		{"clone into a new user namespace is refused", all, "clone", [6]uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
		{"clone into a new network namespace is refused", all, "clone", [6]uint64{unix.CLONE_NEWNET}, eperm},
		{"clone3 fails as if absent", all, "clone3", [6]uint64{}, enosys},
		{"unshare of a mount namespace is refused", all, "unshare", [6]uint64{unix.CLONE_NEWNS}, eperm},
		{"unshare of a time namespace is refused", all, "unshare", [6]uint64{unix.CLONE_NEWTIME}, eperm},
		{"unshare of the file table is allowed", all, "unshare", [6]uint64{unix.CLONE_FILES}, retAllow},
		{"setns is refused", all, "setns", [6]uint64{3, 0}, eperm},
		{"ioctl TIOCSTI is refused", all, "ioctl", [6]uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCSTI with the upper half set is refused", all, "ioctl", [6]uint64{0, 0xdead_0000_0000_0000 | unix.TIOCSTI}, eperm},
		{"ioctl TIOCLINUX is refused", all, "ioctl", [6]uint64{0, unix.TIOCLINUX}, eperm},
		{"ioctl TCGETS is allowed", all, "ioctl", [6]uint64{0, unix.TCGETS}, retAllow},
		{"ioctl TIOCGWINSZ is allowed", all, "ioctl", [6]uint64{1, unix.TIOCGWINSZ}, retAllow},
		{"personality query is allowed", all, "personality", [6]uint64{0xffffffff}, retAllow},
		{"personality PER_LINUX is refused: only asking is allowed", all, "personality", [6]uint64{0}, eperm},
		{"personality ADDR_NO_RANDOMIZE is refused", all, "personality", [6]uint64{addrNoRandomize}, eperm},
		{"personality READ_IMPLIES_EXEC is refused", all, "personality", [6]uint64{readImpliesExec}, eperm},
		{"personality PER_LINUX32 is refused", all, "personality", [6]uint64{8}, eperm},
		{"personality 0xfffffffe is refused", all, "personality", [6]uint64{0xfffffffe}, eperm},
		{"personality hides nothing in the upper half", all, "personality", [6]uint64{0xffff_ffff_0004_0000}, eperm},
		{"personality's query with the upper half set is refused", all, "personality", [6]uint64{0x1_ffff_ffff}, eperm},
		{"chmod to a set-user-ID mode is refused", all, "chmod", [6]uint64{0, 0o4755}, eperm},
		{"fchmodat to a set-group-ID mode is refused", all, "fchmodat", [6]uint64{atFDCWD, 0, 0o2755}, eperm},
		{"chmod to an executable mode is allowed", all, "chmod", [6]uint64{0, 0o755}, retAllow},
		{"openat creating a set-user-ID file is refused", all, "openat", [6]uint64{atFDCWD, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, eperm},
		{"openat of an O_TMPFILE set-user-ID file is refused", all, "openat", [6]uint64{atFDCWD, 0, unix.O_TMPFILE | unix.O_RDWR, 0o4700}, eperm},
		{"openat creating an ordinary file is allowed", all, "openat", [6]uint64{atFDCWD, 0, unix.O_CREAT | unix.O_WRONLY, 0o644}, retAllow},
		{"openat without O_CREAT ignores the mode", all, "openat", [6]uint64{atFDCWD, 0, unix.O_RDONLY, 0o4755}, retAllow},
		{"openat2 fails as if absent", all, "openat2", [6]uint64{}, enosys},
		{"reboot is refused", all, "reboot", [6]uint64{}, eperm},

		{"network off: a Unix socket is allowed", []netMode{netOff}, "socket", [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow},
		{"network off: an IPv4 socket is refused", []netMode{netOff}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_STREAM}, eperm},
		{"network off: a netlink socket is refused", []netMode{netOff}, "socket", [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW}, eperm},
		{"network off: a packet socket is refused", []netMode{netOff}, "socket", [6]uint64{unix.AF_PACKET, unix.SOCK_RAW}, eperm},
		{"network off: AF_UNIX with the upper half set is refused", []netMode{netOff}, "socket", [6]uint64{1<<32 | unix.AF_UNIX}, eperm},
		{"network off: AF_UNSPEC is refused", []netMode{netOff}, "socket", [6]uint64{unix.AF_UNSPEC}, eperm},
		{"network off: a Unix socket pair is allowed", []netMode{netOff, netTCP}, "socketpair", [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow},
		{"network off: an IPv4 socket pair is refused", []netMode{netOff, netTCP}, "socketpair", [6]uint64{unix.AF_INET, unix.SOCK_STREAM}, eperm},
		{"network off: connect is left to guard's notification filter", []netMode{netOff}, "connect", [6]uint64{3}, retAllow},
		{"network off: bind is allowed (own servers; Landlock and the network namespace confine it)", []netMode{netOff}, "bind", [6]uint64{3}, retAllow},
		{"network off: listen and accept are allowed", []netMode{netOff}, "listen", [6]uint64{3}, retAllow},
		{"network off: socket options are allowed", []netMode{netOff}, "getsockopt", [6]uint64{3}, retAllow},
		{"network off: send is allowed", []netMode{netOff}, "sendto", [6]uint64{3, 0, 1, 0, 0, 0}, retAllow},
		{"network off: sendto an address is refused", []netMode{netOff}, "sendto", [6]uint64{3, 0, 1, 0, 0x7fff0000, 16}, eperm},
		{"network off: sendmsg is allowed", []netMode{netOff}, "sendmsg", [6]uint64{3}, retAllow},
		{"network off: setsockopt is allowed (Unix sockets only)", []netMode{netOff}, "setsockopt", [6]uint64{3}, retAllow},

		{"TCP ports: a TCP socket is allowed", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK, 0}, retAllow},
		{"TCP ports: an IPv6 TCP socket is allowed", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, retAllow},
		{"TCP ports: a UDP socket is refused", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_DGRAM, 0}, eperm},
		{"TCP ports: a raw socket is refused", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET6, unix.SOCK_RAW, unix.IPPROTO_ICMPV6}, eperm},
		{"TCP ports: SCTP is refused", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eperm},
		{"TCP ports: MPTCP is refused", []netMode{netTCP}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP}, eperm},
		{"TCP ports: a Unix socket is allowed (guard checks its connections)", []netMode{netTCP}, "socket", [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow},
		{"TCP ports: a netlink socket is refused", []netMode{netTCP}, "socket", [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW}, eperm},
		{"TCP ports: connect is allowed", []netMode{netTCP}, "connect", [6]uint64{3}, retAllow},

		{"network on: any socket is allowed", []netMode{netOn}, "socket", [6]uint64{unix.AF_INET, unix.SOCK_DGRAM}, retAllow},
		{"network on: connect is allowed", []netMode{netOn}, "connect", [6]uint64{3}, retAllow},
		{"network on: a Unix socket pair is allowed", []netMode{netOn}, "socketpair", [6]uint64{unix.AF_UNIX}, retAllow},
	}
	for _, mode := range all {
		vm := filterVM(t, mode)
		for _, tc := range tests {
			if !containsMode(tc.modes, mode) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%v", tc.name, mode), func(t *testing.T) {
				got := run(t, vm, seccompData(syscallNr(t, tc.call), arch, tc.args))
				if got != tc.want {
					t.Fatalf("%s%v: got %s, want %s", tc.call, tc.args, retName(got), retName(tc.want))
				}
			})
		}
	}
}

func containsMode(ms []netMode, m netMode) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

func (m netMode) String() string {
	return [...]string{"network-off", "tcp-ports", "network-on"}[m]
}

// Calls through another ABI are not described by the table: they kill.
func TestSeccompForeignABIKills(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the foreign ABIs tested here are amd64's (x32, i386)")
	}
	vm := filterVM(t, netOn)
	tests := []struct {
		name string
		nr   int32
		arch uint32
	}{
		{"an i386 call", 26 /* ptrace on i386 */, unix.AUDIT_ARCH_I386},
		{"an i386 call that would be allowed natively", 3 /* read */, unix.AUDIT_ARCH_I386},
		{"an x32 call", 0x40000000 | 101 /* ptrace */, unix.AUDIT_ARCH_X86_64},
		{"an x32 read", 0x40000000, unix.AUDIT_ARCH_X86_64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(t, vm, seccompData(tc.nr, tc.arch, [6]uint64{})); got != retKillProcess {
				t.Fatalf("got %s, want kill", retName(got))
			}
		})
	}
}

// model is the table read directly: what the filter must answer.
func model(mode netMode, name string, args [6]uint64) uint32 {
	for _, e := range seccompTable {
		if e.name != name || !e.nets.has(mode) {
			continue
		}
		match := e.groups == nil
		for _, g := range e.groups {
			all := true
			for _, c := range g {
				all = all && c.holds(args)
			}
			match = match || all
		}
		if match {
			errno := e.errno
			if errno == 0 {
				errno = unix.EPERM
			}
			return retErrno | uint32(errno)
		}
	}
	return retAllow
}

// interesting are argument values near the table's constants, where an
// off-by-one in a mask or a block would show.
func interesting(r *rand.Rand) uint64 {
	consts := []uint64{0, 1, 2, 3, 8, 10, 15, 16, 0xffffffff, 0xfffffffe, 1 << 32, unix.AF_UNIX, unix.AF_INET6,
		unix.TIOCSTI, unix.TIOCLINUX, unix.CLONE_NEWUSER, unix.O_CREAT, 0o4755, 0o2000, unix.SOCK_STREAM, unix.IPPROTO_TCP}
	v := consts[r.IntN(len(consts))]
	switch r.IntN(5) {
	case 0:
		v ^= 1 << r.IntN(64)
	case 1:
		v = r.Uint64()
	case 2:
		v |= uint64(r.Uint32()) << 32
	}
	return v
}

// auditArch are the AUDIT_ARCH_ values of the architectures whose programs
// are compiled ahead of time.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

// checkAgainstTable runs prog on many arguments near the edges of every
// entry and fails where it and the table disagree.
func checkAgainstTable(t *testing.T, goarch string, mode netMode, prog []unix.SockFilter) {
	t.Helper()
	vm := programVM(t, prog)
	arch, err := seccomp.GetArchFromString(seccompArch[goarch])
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, uint64(mode)))
	for _, e := range seccompTable {
		nr, err := seccomp.GetSyscallFromNameByArch(e.name, arch)
		if err != nil {
			t.Fatal(err)
		}
		if nr < 0 {
			continue // the architecture has no such call
		}
		for i := 0; i < 200; i++ {
			var args [6]uint64
			for j := range args {
				args[j] = interesting(r)
			}
			want := model(mode, e.name, args)
			if got := run(t, vm, seccompData(int32(nr), auditArch[goarch], args)); got != want {
				t.Fatalf("%s %v: %s%#x: filter %s, table %s", goarch, mode, e.name, args, retName(got), retName(want))
			}
		}
	}
	// A call outside the table is allowed.
	if got := run(t, vm, seccompData(int32(mustNr(t, "getpid", arch)), auditArch[goarch], [6]uint64{})); got != retAllow {
		t.Fatalf("%s %v: getpid: %s", goarch, mode, retName(got))
	}
}

func mustNr(t *testing.T, name string, arch seccomp.ScmpArch) seccomp.ScmpSyscall {
	nr, err := seccomp.GetSyscallFromNameByArch(name, arch)
	if err != nil {
		t.Fatal(err)
	}
	return nr
}

// The programs the launcher loads, and the ones libseccomp compiles now for
// every architecture compiled ahead of time, agree with the table on every
// entry, in every network mode.
func TestSeccompFilterMatchesTable(t *testing.T) {
	for _, mode := range []netMode{netOff, netTCP, netOn} {
		t.Run(mode.String(), func(t *testing.T) {
			if _, ok := auditArch[runtime.GOARCH]; ok {
				prog, err := seccompFilter(mode)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstTable(t, runtime.GOARCH, mode, prog)
			}
			for goarch := range auditArch {
				prog, err := seccompProgram(mode, goarch)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstTable(t, goarch, mode, prog)
			}
		})
	}
}

// FuzzSeccompFilter checks the filter against the table on any arguments.
func FuzzSeccompFilter(f *testing.F) {
	arch := nativeAudit(f)
	vms := map[netMode]*bpf.VM{}
	for _, m := range []netMode{netOff, netTCP, netOn} {
		vms[m] = filterVM(f, m)
	}
	f.Add(uint8(0), uint8(0), uint64(0xffffffff), uint64(0), uint64(0), uint64(0))
	f.Add(uint8(1), uint8(3), uint64(unix.AF_INET), uint64(unix.SOCK_DGRAM), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, m, entry uint8, a0, a1, a2, a3 uint64) {
		mode := netMode(m % 3)
		e := seccompTable[int(entry)%len(seccompTable)]
		args := [6]uint64{a0, a1, a2, a3, a0 ^ a1, a2 ^ a3}
		want := model(mode, e.name, args)
		if got := run(t, vms[mode], seccompData(syscallNr(t, e.name), arch, args)); got != want {
			t.Fatalf("%v: %s%#x: filter %s, table %s", mode, e.name, args, retName(got), retName(want))
		}
	})
}

func TestNotInCoversExactlyTheComplement(t *testing.T) {
	tests := []struct {
		name    string
		width   uint
		allowed []uint64
		probe   []uint64
	}{
		{"one value, whole register", 64, []uint64{1}, []uint64{0, 1, 2, 3, 1 << 40, ^uint64(0)}},
		{"two values, whole register", 64, []uint64{2, 10}, []uint64{0, 1, 2, 3, 9, 10, 11, 15, 16, 1 << 33}},
		{"zero and all ones, 32 bits", 32, []uint64{0, 0xffffffff}, []uint64{0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 1 << 32, 1<<32 | 5}},
		{"a type in four bits", 4, []uint64{1}, []uint64{0, 1, 2, 15, 16, 17, 0x801, 0x80001, 0x802}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups := notIn(0, tc.width, tc.allowed...)
			mask := ^uint64(0)
			if tc.width < 64 {
				mask = 1<<tc.width - 1
			}
			for _, v := range tc.probe {
				inAllowed := false
				for _, a := range tc.allowed {
					inAllowed = inAllowed || v&mask == a
				}
				matched := false
				for _, g := range groups {
					matched = matched || g[0].holds([6]uint64{v})
				}
				if matched == inAllowed {
					t.Errorf("%#x: condition holds %v, but allowed is %v", v, matched, inAllowed)
				}
			}
		})
	}
}
