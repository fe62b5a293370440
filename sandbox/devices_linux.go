//go:build linux && cgo

package sandbox

import ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

// Nothing under /dev is readable or writable but this table: a raw disk
// (/dev/sda, /dev/nvme0n1) is readable by root without any capability and
// holds every blocked file, and the kernel log (/dev/kmsg) is writable by
// root. The user's own terminal is allowed separately, through the
// descriptors the command gets (see terminalRules).
var deviceTable = []device{
	{path: "/dev/null", rights: llDevice, why: "the bit bucket every program writes to"},
	{path: "/dev/zero", rights: llDevice, why: "zeroes, for dd and mmap"},
	{path: "/dev/full", rights: llDevice, why: "a device that is always full, for tests of write errors"},
	{path: "/dev/random", rights: llDeviceRead, why: "random numbers"},
	{path: "/dev/urandom", rights: llDeviceRead, why: "random numbers"},
	{path: "/dev/tty", rights: llDevice, why: "the controlling terminal, for prompts and password readers"},
	{path: "/dev/ptmx", rights: llDevice, needsPrivate: true, why: "new pseudo-terminals (script, expect, Python's pty)"},
	{path: "/dev/pts", rights: llDevice | ll.AccessFSReadDir, needsPrivate: true, why: "the pseudo-terminals the command makes; the machine's own would let it read keystrokes typed into the user's other terminals"},
	{path: "/dev/shm", rights: llWrite, why: "POSIX shared memory (shm_open, Python's multiprocessing); a private one where a mount namespace is made"},
}

// device is an entry of the device table. A device that needsPrivate is
// allowed only where the mount namespace gives the command its own
// instance: without it the command could open every terminal of the
// machine.
type device struct {
	path         string
	rights       uint64
	needsPrivate bool
	why          string
}
