//go:build linux && cgo

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestGuardFilter(t *testing.T) {
	arch := nativeAudit(t)
	const pid, tid = 4242, 4250
	prog, err := guardFilter(pid, tid)
	if err != nil {
		t.Fatal(err)
	}
	vm := programVM(t, prog)
	eperm := retErrno | uint32(unix.EPERM)
	tests := []struct {
		name string
		nr   int32
		args [6]uint64
		want uint32
	}{
		{"kill of guard is refused", unix.SYS_KILL, [6]uint64{pid, 9}, eperm},
		{"kill of guard with the upper half set is refused", unix.SYS_KILL, [6]uint64{1<<32 | pid, 9}, eperm},
		{"kill of another process is left to Landlock", unix.SYS_KILL, [6]uint64{pid + 1, 9}, retAllow},
		{"tgkill of a thread of guard is refused", unix.SYS_TGKILL, [6]uint64{pid, tid, 19}, eperm},
		{"tgkill of its own thread is allowed", unix.SYS_TGKILL, [6]uint64{77, 77, 15}, retAllow},
		{"tkill of the launching thread is refused", unix.SYS_TKILL, [6]uint64{tid, 9}, eperm},
		{"tkill of another thread is allowed", unix.SYS_TKILL, [6]uint64{tid + 1, 9}, retAllow},
		{"rt_sigqueueinfo to guard is refused", unix.SYS_RT_SIGQUEUEINFO, [6]uint64{pid, 10}, eperm},
		{"rt_tgsigqueueinfo to guard is refused", unix.SYS_RT_TGSIGQUEUEINFO, [6]uint64{pid, tid, 10}, eperm},
		{"pidfd_open of guard is refused", unix.SYS_PIDFD_OPEN, [6]uint64{pid, 0}, eperm},
		{"pidfd_open of its child is allowed", unix.SYS_PIDFD_OPEN, [6]uint64{pid + 7, 0}, retAllow},
		{"an ordinary call is allowed", unix.SYS_READ, [6]uint64{0}, retAllow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(t, vm, seccompData(tc.nr, arch, tc.args)); got != tc.want {
				t.Fatalf("got %s, want %s", retName(got), retName(tc.want))
			}
		})
	}
	// Another architecture's calls pass through: the main filter kills them.
	if got := run(t, vm, seccompData(unix.SYS_KILL, 0x40000003, [6]uint64{pid})); got != retAllow {
		t.Fatalf("a foreign call: got %s", retName(got))
	}
}
