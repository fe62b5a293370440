//go:build linux && cgo

package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// seccompFilter returns the BPF program of the table for a network mode.
//
// libseccomp takes about a millisecond to compile the table, as long as the
// rest of the launch, so the programs of the architectures guard is built
// for most are compiled ahead of time (zseccomp_*.go, written by
// "go test -run TestBuiltinSeccompPrograms -update"; the tests fail when
// the table changes without them, and prove each program against the
// table). Other architectures compile at run time.
func seccompFilter(mode netMode) ([]unix.SockFilter, error) {
	if prog := builtinSeccomp[mode]; prog != "" {
		return decodeBPF(prog)
	}
	return seccompProgram(mode, runtime.GOARCH)
}

// seccompDigest identifies the table a compiled program was made from.
func seccompDigest() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%#v", seccompTable)))
	return hex.EncodeToString(sum[:8])
}

// decodeBPF turns a hex-encoded program (8 bytes an instruction, as the
// kernel lays out struct sock_filter) into instructions.
func decodeBPF(h string) ([]unix.SockFilter, error) {
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("seccomp: the built-in program is corrupt: %w", err)
	}
	return parseBPF(raw)
}

// seccompArch maps Go's architecture names to libseccomp's.
var seccompArch = map[string]string{
	"amd64": "amd64", "arm64": "arm64", "386": "x86", "arm": "arm",
	"riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x", "loong64": "loong64",
}

// seccompProgram compiles the filter of the table for a network mode and an
// architecture (GOARCH) with libseccomp, and returns the BPF program the
// kernel loads.
//
// The program is loaded with a raw seccomp(2) call on the thread that starts
// the command (see loadSeccomp), not with libseccomp's load: that keeps it to
// this one thread (no TSYNC) and lets the tests run the very same program in
// a BPF interpreter.
func seccompProgram(mode netMode, goarch string) ([]unix.SockFilter, error) {
	f, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	defer f.Release()
	arch, err := seccomp.GetArchFromString(seccompArch[goarch])
	if err != nil {
		return nil, fmt.Errorf("seccomp: architecture %s: %w", goarch, err)
	}
	native, err := seccomp.GetNativeArch()
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	if arch != native {
		if err := f.AddArch(arch); err != nil {
			return nil, fmt.Errorf("seccomp: %w", err)
		}
		if err := f.RemoveArch(native); err != nil {
			return nil, fmt.Errorf("seccomp: %w", err)
		}
	}
	// Only the architecture's own calls are described by the table; a call
	// through another ABI (i386's int 0x80, x32) kills the process.
	if err := f.SetBadArchAction(seccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	// A binary tree of the calls rather than a list: the kernel runs the
	// program for every call number when it loads it (to cache the calls
	// it always allows), so a shorter path per call is a faster launch.
	if err := f.SetOptimize(2); err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	// no_new_privs is set by the launcher itself, before Landlock.
	if err := f.SetNoNewPrivsBit(false); err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	for _, e := range seccompTable {
		if !e.nets.has(mode) {
			continue
		}
		// An entry the installed libseccomp does not know is a call it
		// cannot filter: better to fail than to run without it. A call the
		// architecture does not have (open on arm64) needs no entry.
		if nr, err := seccomp.GetSyscallFromNameByArch(e.name, arch); err != nil {
			return nil, fmt.Errorf("seccomp: libseccomp does not know %s (upgrade libseccomp): %w", e.name, err)
		} else if nr < 0 {
			continue
		}
		// Rules name calls by their native number; libseccomp translates.
		call, err := seccomp.GetSyscallFromName(e.name)
		if err != nil {
			return nil, fmt.Errorf("seccomp: libseccomp does not know %s (upgrade libseccomp): %w", e.name, err)
		}
		errno := e.errno
		if errno == 0 {
			errno = unix.EPERM
		}
		act := seccomp.ActErrno.SetReturnCode(int16(errno))
		if e.groups == nil {
			if err := f.AddRuleExact(call, act); err != nil {
				return nil, fmt.Errorf("seccomp: %s: %w", e.name, err)
			}
			continue
		}
		for _, g := range e.groups {
			conds := make([]seccomp.ScmpCondition, 0, len(g))
			for _, c := range g {
				var sc seccomp.ScmpCondition
				var err error
				switch c.op {
				case cmpEq:
					sc, err = seccomp.MakeCondition(c.arg, seccomp.CompareEqual, c.value)
				case cmpNE:
					sc, err = seccomp.MakeCondition(c.arg, seccomp.CompareNotEqual, c.value)
				case cmpGT:
					sc, err = seccomp.MakeCondition(c.arg, seccomp.CompareGreater, c.value)
				case cmpMaskedEq:
					sc, err = seccomp.MakeCondition(c.arg, seccomp.CompareMaskedEqual, c.mask, c.value)
				}
				if err != nil {
					return nil, fmt.Errorf("seccomp: %s: %w", e.name, err)
				}
				conds = append(conds, sc)
			}
			if err := f.AddRuleConditionalExact(call, act, conds); err != nil {
				return nil, fmt.Errorf("seccomp: %s: %w", e.name, err)
			}
		}
	}
	return exportBPF(f)
}

// exportBPF returns the filter's BPF program. libseccomp before 2.6 exports
// to a file descriptor only, so it goes through a memory file.
func exportBPF(f *seccomp.ScmpFilter) ([]unix.SockFilter, error) {
	fd, err := unix.MemfdCreate("guard-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp: memfd_create: %w", err)
	}
	file := os.NewFile(uintptr(fd), "guard-seccomp")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	raw, err := io.ReadAll(file)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export: %w", err)
	}
	return parseBPF(raw)
}

// parseBPF reads struct sock_filter instructions.
func parseBPF(raw []byte) ([]unix.SockFilter, error) {
	const insnSize = int(unsafe.Sizeof(unix.SockFilter{}))
	if len(raw) == 0 || len(raw)%insnSize != 0 {
		return nil, fmt.Errorf("seccomp: export: %d bytes is not a BPF program", len(raw))
	}
	prog := make([]unix.SockFilter, len(raw)/insnSize)
	for i := range prog {
		b := raw[i*insnSize:]
		prog[i] = unix.SockFilter{
			Code: binary.NativeEndian.Uint16(b[0:]),
			Jt:   b[2],
			Jf:   b[3],
			K:    binary.NativeEndian.Uint32(b[4:]),
		}
	}
	return prog, nil
}

// loadSeccomp loads prog on the calling thread only. The caller has locked
// the goroutine to its thread and set no_new_privs.
func loadSeccomp(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("seccomp: loading the filter: %w", errno)
	}
	return nil
}

// seccompVersion is the libseccomp version guard runs with.
func seccompVersion() string {
	major, minor, micro := seccomp.GetLibraryVersion()
	return fmt.Sprintf("%d.%d.%d", major, minor, micro)
}

// SeccompBPF returns the seccomp program the sandbox loads for policy, as
// the kernel takes it (struct sock_filter, native byte order): for
// bubblewrap's --seccomp in the benchmark, and for anyone who wants to
// read it (seccomp-tools disasm).
func SeccompBPF(policy Policy) ([]byte, error) {
	prog, err := seccompFilter(policy.netMode())
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		raw = binary.NativeEndian.AppendUint16(raw, in.Code)
		raw = append(raw, in.Jt, in.Jf)
		raw = binary.NativeEndian.AppendUint32(raw, in.K)
	}
	return raw, nil
}
