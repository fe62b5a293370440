//go:build linux && cgo

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Secure bits that keep root from getting capabilities back: at execve
// (NOROOT), on a change of user ID (NO_SETUID_FIXUP, KEEP_CAPS) and through
// the ambient set; each locked.
const lockedSecureBits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP, _LOCKED
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// dropCapabilities drops every capability of the calling thread, and the
// bounding set of root, so that a command run by root keeps none of root's
// powers over the machine: it cannot remount, load modules, read raw
// devices, change sysctls or write the kernel log. A thread without
// CAP_SETPCAP has no capabilities to give its command anyway (execve gives
// a non-root user none, and no_new_privs stops file capabilities).
func dropCapabilities(last int) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	// The bounding set limits what execve can give; it gives capabilities
	// to root only (no_new_privs stops file capabilities), so only root
	// needs it emptied.
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 && unix.Geteuid() == 0 {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecureBits, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
		for c := 0; c <= last; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// readLastCap reads the highest capability this kernel knows.
func readLastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// hasCapability reports whether the calling thread has capability c in its
// effective set.
func hasCapability(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}
