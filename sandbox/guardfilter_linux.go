//go:build linux && cgo

package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// guardFilter is a second seccomp filter, made for each launch, that keeps
// the command's signals off guard itself. Landlock's scoping already stops
// signals to processes outside the command's domain, but the thread of
// guard that starts the command shares that domain: without this the
// command could stop or kill guard through it (tgkill, tkill), and so
// escape guard's clean-up. pid is guard's, tid the launching thread's.
// The kernel reads these pids as 32-bit, so only the low half is compared.
func guardFilter(pid, tid int) ([]unix.SockFilter, error) {
	arch, ok := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if !ok {
		return nil, nil // the main filter is all there is (see doc)
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // the low half, on these little-endian machines
	)
	byPid := []uint32{unix.SYS_KILL, unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO, unix.SYS_PIDFD_OPEN}
	eperm := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	// Layout: arch check, one jump per call, then the two checks.
	n := uint8(len(byPid))
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: arch, SkipTrue: n + 2}, // to the allow
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	for i, nr := range byPid {
		// To the pid check, past the remaining jumps, tkill's and the allow.
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: n - uint8(i) + 1})
	}
	prog = append(prog,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_TKILL, SkipTrue: 4},
		bpf.RetConstant{Val: allow},
		// The pid check.
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(pid), SkipTrue: 4},
		bpf.RetConstant{Val: allow},
		// tkill's check.
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(tid), SkipTrue: 1},
		bpf.RetConstant{Val: allow},
		bpf.RetConstant{Val: eperm},
	)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: the filter that keeps signals off guard: %w", err)
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}
