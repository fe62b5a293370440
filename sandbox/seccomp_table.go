//go:build linux

package sandbox

import (
	"math/bits"

	"golang.org/x/sys/unix"
)

// The seccomp filter is this table and nothing else. Every entry names a
// system call, when the entry applies (always, or with the network off), the
// condition on its arguments (none: every call) and why it is refused.
// A refused call fails with EPERM (clone3 and openat2: ENOSYS), so that
// programs report a clean error instead of dying; a call made with another
// architecture's calling convention (x32, i386 on amd64) kills the process,
// since none of the entries below would see it.
//
// Conditions are written as alternatives of conjunctions (an entry applies
// if any group holds, a group holds if all its comparisons do): the form
// libseccomp accepts, which allows one comparison per argument in a group.
var seccompTable = []scEntry{
	// Kernel interfaces that go around every other rule, or reach the
	// machine rather than the command.
	{name: "io_uring_setup", nets: always, why: "io_uring performs file and network operations that seccomp cannot see"},
	{name: "io_uring_enter", nets: always, why: "io_uring performs file and network operations that seccomp cannot see"},
	{name: "io_uring_register", nets: always, why: "io_uring performs file and network operations that seccomp cannot see"},
	{name: "ptrace", nets: always, why: "tracing reads and changes another process's memory and registers"},
	{name: "process_vm_readv", nets: always, why: "reads another process's memory"},
	{name: "process_vm_writev", nets: always, why: "writes another process's memory"},
	{name: "kexec_load", nets: always, why: "replaces the running kernel"},
	{name: "kexec_file_load", nets: always, why: "replaces the running kernel"},
	{name: "init_module", nets: always, why: "loads code into the kernel"},
	{name: "finit_module", nets: always, why: "loads code into the kernel"},
	{name: "delete_module", nets: always, why: "unloads parts of the kernel"},
	{name: "bpf", nets: always, why: "loads programs into the kernel and reads kernel data through maps"},
	{name: "perf_event_open", nets: always, why: "observes other processes and the kernel; a frequent route to kernel exploits"},
	{name: "keyctl", nets: always, why: "the kernel keyrings hold other programs' secrets (Kerberos tickets, disk keys)"},
	{name: "add_key", nets: always, why: "the kernel keyrings hold other programs' secrets (Kerberos tickets, disk keys)"},
	{name: "request_key", nets: always, why: "the kernel keyrings hold other programs' secrets (Kerberos tickets, disk keys)"},
	{name: "userfaultfd", nets: always, why: "stalls the kernel at a chosen page fault, the usual way to win a kernel race"},
	{name: "open_by_handle_at", nets: always, why: "opens a file by its handle, without a path for the path rules to check"},

	// The mount family: a mount changes where paths lead, which would undo
	// the blocked paths and the read-only binds.
	{name: "mount", nets: always, why: "mounting changes where paths lead, undoing blocked and read-only paths"},
	{name: "umount2", nets: always, why: "unmounting reveals the paths the sandbox covers"},
	{name: "pivot_root", nets: always, why: "changes the root of the mount tree"},
	{name: "move_mount", nets: always, why: "mounting changes where paths lead, undoing blocked and read-only paths"},
	{name: "open_tree", nets: always, why: "clones mounts, including the ones under a cover"},
	{name: "fsopen", nets: always, why: "creates a file system to mount"},
	{name: "fsmount", nets: always, why: "creates a mount"},
	{name: "fsconfig", nets: always, why: "configures a file system to mount"},
	{name: "fspick", nets: always, why: "reconfigures a mounted file system (read-only to read-write)"},
	{name: "mount_setattr", nets: always, why: "turns a read-only mount read-write"},

	// Namespaces: a new user or mount namespace would let the command
	// remount what the sandbox hides or map itself to root.
	{name: "unshare", nets: always, groups: anyBit(0, nsFlags|unix.CLONE_NEWTIME), why: "a new namespace lets the command remount or re-map what the sandbox hides"},
	{name: "setns", nets: always, why: "joins another process's namespaces"},
	{name: "clone", nets: always, groups: anyBit(0, nsFlags), why: "a new namespace lets the command remount or re-map what the sandbox hides"},
	{name: "clone3", nets: always, errno: unix.ENOSYS, why: "its flags are in memory seccomp cannot read; ENOSYS makes libc fall back to clone, whose flags are checked"},
	{name: "chroot", nets: always, why: "changes the root directory, a step of classic escapes"},

	// Machine-wide state.
	{name: "swapon", nets: always, why: "swap is machine-wide"},
	{name: "swapoff", nets: always, why: "swap is machine-wide"},
	{name: "reboot", nets: always, why: "reboots or halts the machine"},
	{name: "acct", nets: always, why: "process accounting is machine-wide"},
	{name: "syslog", nets: always, why: "reads and clears the kernel log"},
	{name: "quotactl", nets: always, why: "file system quotas are machine-wide"},
	{name: "quotactl_fd", nets: always, why: "file system quotas are machine-wide"},
	{name: "iopl", nets: always, why: "raw access to I/O ports"},
	{name: "ioperm", nets: always, why: "raw access to I/O ports"},
	// Only asking (0xffffffff) is allowed: setting even the default is
	// refused, since allowing exactly {0, 0xffffffff} takes 160
	// instructions, which the kernel runs through at every launch.
	{name: "personality", nets: always, groups: [][]argCond{{{arg: 0, op: cmpNE, value: 0xffffffff}}}, why: "execution domains other than the default turn off address randomization or map page zero"},

	// The terminal: a command that shares the user's terminal must not type
	// into it. The kernel reads the command as 32 bits, so the comparison
	// ignores the upper half of the register, where a caller could hide it.
	{name: "ioctl", nets: always, groups: low32Is(1, unix.TIOCSTI), why: "TIOCSTI pushes keystrokes into the terminal: into the user's shell after the command exits"},
	{name: "ioctl", nets: always, groups: low32Is(1, unix.TIOCLINUX), why: "TIOCLINUX pastes the console's selection into its input"},

	// Set-user-ID and set-group-ID files: a command run by root could leave
	// a set-user-ID root program in the workspace for anyone to run later.
	{name: "chmod", nets: always, groups: anyBit(1, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "fchmod", nets: always, groups: anyBit(1, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "fchmodat", nets: always, groups: anyBit(2, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "fchmodat2", nets: always, groups: anyBit(2, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "creat", nets: always, groups: anyBit(1, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "open", nets: always, groups: creates(1, 2), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "openat", nets: always, groups: creates(2, 3), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "mknod", nets: always, groups: anyBit(1, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "mknodat", nets: always, groups: anyBit(2, setID), why: "set-user-ID and set-group-ID bits would outlive the sandbox"},
	{name: "openat2", nets: always, errno: unix.ENOSYS, why: "its mode is in memory seccomp cannot read; ENOSYS makes callers fall back to openat, whose mode is checked"},

	// Network off: only Unix sockets. Which Unix sockets the command may
	// connect to is not the table's business: every connect goes to guard,
	// which makes the connection itself after a check (see supervisor),
	// since the address is in memory a filter cannot read. Binding,
	// listening and accepting are the command's own servers (test runners,
	// language servers): a named socket can only be made in a writable
	// root (Landlock), and an abstract name only in the command's own
	// network namespace. send() is sendto() without an address, so only
	// sendto with an address is refused.
	{name: "socket", nets: netOffOnly, groups: notIn(0, 64, unix.AF_UNIX), why: "network off: only Unix sockets"},
	{name: "socketpair", nets: netOffOrTCP, groups: notIn(0, 64, unix.AF_UNIX), why: "network off: only Unix socket pairs"},
	{name: "sendto", nets: netOffOnly, groups: [][]argCond{{{arg: 4, op: cmpNE, value: 0}}}, why: "network off: no datagrams to an address"},
	{name: "sendmmsg", nets: netOffOnly, why: "network off: no datagrams to an address"},
	{name: "recvmmsg", nets: netOffOnly, why: "network off: no datagram sockets"},

	// Network on in part (TCP to chosen ports): TCP sockets only, which
	// Landlock confines to the ports (and guard, which makes the
	// connections), and Unix sockets, whose connections guard checks; no
	// UDP (Landlock cannot restrict it before ABI 10), no raw or packet
	// sockets.
	{name: "socket", nets: netTCPOnly, groups: notIn(0, 64, unix.AF_UNIX, unix.AF_INET, unix.AF_INET6), why: "network on for TCP ports only: TCP and Unix sockets only"},
	{name: "socket", nets: netTCPOnly, groups: and(eq(0, unix.AF_INET), notIn(1, 4, unix.SOCK_STREAM)), why: "network on for TCP ports only: no UDP or raw sockets"},
	{name: "socket", nets: netTCPOnly, groups: and(eq(0, unix.AF_INET6), notIn(1, 4, unix.SOCK_STREAM)), why: "network on for TCP ports only: no UDP or raw sockets"},
	{name: "socket", nets: netTCPOnly, groups: and(eq(0, unix.AF_INET), notIn(2, 64, 0, unix.IPPROTO_TCP)), why: "network on for TCP ports only: no other stream protocol (SCTP, MPTCP)"},
	{name: "socket", nets: netTCPOnly, groups: and(eq(0, unix.AF_INET6), notIn(2, 64, 0, unix.IPPROTO_TCP)), why: "network on for TCP ports only: no other stream protocol (SCTP, MPTCP)"},
}

// nsFlags are the clone flags that make a new namespace (CLONE_NEWTIME
// shares its bit with the exit signal in clone, so only unshare checks it).
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// setID are the mode bits that change who a program runs as.
const setID = unix.S_ISUID | unix.S_ISGID

// oTmpfile is O_TMPFILE without O_DIRECTORY, which it includes.
const oTmpfile = unix.O_TMPFILE &^ unix.O_DIRECTORY

// scEntry is an entry of the seccomp table.
type scEntry struct {
	name   string
	nets   netSet
	groups [][]argCond // nil: every call
	errno  unix.Errno  // 0: EPERM
	why    string
}

// netSet is the set of network modes an entry applies in.
type netSet uint8

const (
	always      netSet = 1<<netOff | 1<<netTCP | 1<<netOn
	netOffOnly  netSet = 1 << netOff
	netTCPOnly  netSet = 1 << netTCP
	netOffOrTCP netSet = 1<<netOff | 1<<netTCP
)

func (s netSet) has(m netMode) bool { return s&(1<<m) != 0 }

// argCond compares one argument of a call.
type argCond struct {
	arg   uint
	op    cmpOp
	mask  uint64 // cmpMaskedEq only
	value uint64
}

type cmpOp int

const (
	cmpEq       cmpOp = iota // arg == value
	cmpNE                    // arg != value
	cmpGT                    // arg > value
	cmpMaskedEq              // arg & mask == value
)

// holds reports whether args satisfy c, as the kernel's filter compares:
// on the whole 64-bit register.
func (c argCond) holds(args [6]uint64) bool {
	a := args[c.arg]
	switch c.op {
	case cmpEq:
		return a == c.value
	case cmpNE:
		return a != c.value
	case cmpGT:
		return a > c.value
	}
	return a&c.mask == c.value
}

// anyBit is a condition that holds when arg has any of the bits of mask set.
func anyBit(arg uint, mask uint64) [][]argCond {
	var groups [][]argCond
	for mask != 0 {
		bit := mask & -mask
		mask &^= bit
		groups = append(groups, []argCond{{arg: arg, op: cmpMaskedEq, mask: bit, value: bit}})
	}
	return groups
}

// creates is a condition that holds when an open call whose flags are
// argument flags and mode argument mode creates a file with set-ID bits.
func creates(flags, mode uint) [][]argCond {
	var groups [][]argCond
	for _, f := range []uint64{unix.O_CREAT, oTmpfile} {
		for _, m := range anyBit(mode, setID) {
			groups = append(groups, []argCond{{arg: flags, op: cmpMaskedEq, mask: f, value: f}, m[0]})
		}
	}
	return groups
}

// eq is a condition that holds when arg equals value.
func eq(arg uint, value uint64) [][]argCond {
	return [][]argCond{{{arg: arg, op: cmpEq, value: value}}}
}

// and is the conjunction of two conditions.
func and(a, b [][]argCond) [][]argCond {
	var groups [][]argCond
	for _, x := range a {
		for _, y := range b {
			g := append(append([]argCond{}, x...), y...)
			groups = append(groups, g)
		}
	}
	return groups
}

// low32Is is a condition that holds when the low 32 bits of arg are v: for
// arguments the kernel reads as 32 bits, whatever the upper half holds.
func low32Is(arg uint, v uint64) [][]argCond {
	return [][]argCond{{{arg: arg, op: cmpMaskedEq, mask: 0xffffffff, value: v}}}
}

// notIn is a condition that holds when the low width bits of arg are none of
// allowed (width 64: the whole register). Seccomp filters compare against
// constants only, so the complement of allowed is cut into aligned blocks,
// each one masked comparison; with width 64, values above the smallest
// power of two that holds allowed are one more, a greater-than.
func notIn(arg uint, width uint, allowed ...uint64) [][]argCond {
	var top uint64
	for _, a := range allowed {
		top = max(top, a)
	}
	var groups [][]argCond
	univ := width
	fullMask := ^uint64(0)
	if width < 64 {
		fullMask = 1<<width - 1
	} else {
		univ = uint(bits.Len64(top))
		groups = append(groups, []argCond{{arg: arg, op: cmpGT, value: 1<<univ - 1}})
	}
	in := func(lo uint64, k uint) bool {
		for _, a := range allowed {
			if a&fullMask >= lo && (k >= 64 || a&fullMask-lo < 1<<k) {
				return true
			}
		}
		return false
	}
	var split func(lo uint64, k uint)
	split = func(lo uint64, k uint) {
		if !in(lo, k) {
			groups = append(groups, []argCond{{arg: arg, op: cmpMaskedEq, mask: fullMask &^ (1<<k - 1), value: lo}})
			return
		}
		if k == 0 {
			return
		}
		split(lo, k-1)
		split(lo+1<<(k-1), k-1)
	}
	split(0, univ)
	return groups
}
