package sandbox

import (
	"fmt"
	"strings"
)

// Status is what this machine offers the sandbox, as [Probe] finds it.
type Status struct {
	Kernel         string          `json:"kernel"`
	Arch           string          `json:"arch"`
	Landlock       LandlockStatus  `json:"landlock"`
	Seccomp        SeccompStatus   `json:"seccomp"`
	MountNamespace NamespaceStatus `json:"mount_namespace"`
	UserNamespace  NamespaceStatus `json:"user_namespace"`
	// Features are the sandbox's promises and whether this machine keeps
	// each.
	Features []Feature `json:"features"`
	// Bypass says whether bypass mode may run here: it needs Landlock ABI 4
	// or later and the seccomp filter (and, for a given policy, every
	// blocked path blocked: see [Explanation.BypassMissing]).
	Bypass BypassStatus `json:"bypass"`
}

// LandlockStatus is the kernel's Landlock.
type LandlockStatus struct {
	ABI int `json:"abi"` // 0: none
	// SignalScope is ABI 6's scoping of signals, counted only with the fix
	// of erratum 2.
	SignalScope bool   `json:"signal_scope"`
	Error       string `json:"error,omitempty"`
}

// SeccompStatus is the kernel's seccomp filter support.
type SeccompStatus struct {
	Available bool   `json:"available"`
	Library   string `json:"library,omitempty"` // libseccomp's version
	Error     string `json:"error,omitempty"`
	// UserNotification is seccomp's user notification with pidfd_getfd
	// (Linux 5.6): guard makes the command's connections after a check.
	UserNotification      bool   `json:"user_notification"`
	UserNotificationError string `json:"user_notification_error,omitempty"`
}

// NamespaceStatus says whether a namespace can be made, and how.
type NamespaceStatus struct {
	Available bool   `json:"available"`
	How       string `json:"how,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Feature is a promise of the sandbox and what keeps it here.
type Feature struct {
	Name     string `json:"name"`
	Provided bool   `json:"provided"`
	By       string `json:"by"`                // the mechanisms it needs
	Missing  string `json:"missing,omitempty"` // those this machine lacks
}

// BypassStatus says whether bypass mode may run on this machine.
type BypassStatus struct {
	Possible bool     `json:"possible"`
	Missing  []string `json:"missing,omitempty"`
}

// kernel is what Start needs to know of the machine; Probe adds what only
// the status shows.
type kernel struct {
	abi         int
	signalScope bool
	abiErr      string
	seccomp     bool
	seccompErr  string
	// userNotif: seccomp user notification and pidfd_getfd, with which
	// guard makes the command's connections.
	userNotif    bool
	userNotifErr string
	// mountNS: a mount namespace can be made, and so a network namespace.
	mountNS  bool
	mountHow string
	mountErr string
}

// mechanism is something the kernel provides that a feature needs.
type mechanism int

const (
	needLandlock mechanism = iota
	needLandlock3
	needLandlock4
	needLandlock5
	needLandlock6
	needSignalScope
	needSeccomp
	needUserNotif
	needMountNS
)

var mechanismNames = map[mechanism]string{
	needLandlock:    "Landlock",
	needLandlock3:   "Landlock ABI 3",
	needLandlock4:   "Landlock ABI 4",
	needLandlock5:   "Landlock ABI 5",
	needLandlock6:   "Landlock ABI 6",
	needSignalScope: "Landlock ABI 6 signal scoping",
	needSeccomp:     "seccomp",
	needUserNotif:   "seccomp user notification",
	needMountNS:     "mount namespace",
}

func (m mechanism) String() string { return mechanismNames[m] }

func (k kernel) has(m mechanism) bool {
	switch m {
	case needLandlock:
		return k.abi >= 1
	case needLandlock3:
		return k.abi >= 3
	case needLandlock4:
		return k.abi >= 4
	case needLandlock5:
		return k.abi >= 5
	case needLandlock6:
		return k.abi >= 6
	case needSignalScope:
		return k.signalScope
	case needSeccomp:
		return k.seccomp
	case needUserNotif:
		return k.seccomp && k.userNotif
	}
	return k.mountNS
}

// featureTable lists the sandbox's promises and the mechanisms each needs.
var featureTable = []struct {
	name  string
	needs []mechanism
}{
	{"blocked paths unreadable (outside writable roots)", []mechanism{needLandlock}},
	{"blocked paths unreadable inside writable roots", []mechanism{needMountNS}},
	{"writes only inside writable roots (truncation included)", []mechanism{needLandlock3}},
	{"read-only paths inside writable roots (.git/hooks, .git/config, .guard/)", []mechanism{needMountNS}},
	{"no chmod, utimes or xattr changes outside writable roots", []mechanism{needMountNS}},
	{"private /dev/shm and pseudo-terminals", []mechanism{needMountNS}},
	{"no raw devices (disks, kernel log)", []mechanism{needLandlock}},
	{"network off: no TCP", []mechanism{needLandlock4, needSeccomp}},
	{"network off: no UDP, raw, packet or netlink sockets", []mechanism{needSeccomp}},
	{"Unix sockets: only the allowed ones and the command's own", []mechanism{needUserNotif}},
	{"network off: a network namespace of its own", []mechanism{needMountNS}},
	{"no datagrams to abstract Unix sockets outside", []mechanism{needLandlock6}},
	{"TCP connections to chosen ports only", []mechanism{needLandlock4, needSeccomp}},
	{"no signals to processes outside", []mechanism{needSignalScope}},
	{"no tracing or memory access of processes outside", []mechanism{needLandlock, needSeccomp}},
	{"ioctl only on terminals and the allowed devices", []mechanism{needLandlock5}},
	{"no keystrokes pushed into the terminal (TIOCSTI, TIOCLINUX)", []mechanism{needSeccomp}},
	{"no io_uring, bpf, keyrings, mounts or new namespaces", []mechanism{needSeccomp}},
	{"no set-user-ID files", []mechanism{needSeccomp}},
	{"no new privileges; capabilities dropped", nil},
	{"nothing left running", nil},
}

// features says which promises this kernel keeps.
func (k kernel) features() []Feature {
	out := make([]Feature, 0, len(featureTable))
	for _, f := range featureTable {
		var by, missing []string
		for _, m := range f.needs {
			by = append(by, m.String())
			if !k.has(m) {
				missing = append(missing, m.String())
			}
		}
		if len(by) == 0 {
			by = []string{"prctl"}
		}
		out = append(out, Feature{Name: f.name, Provided: len(missing) == 0, By: strings.Join(by, ", "), Missing: strings.Join(missing, ", ")})
	}
	return out
}

// bypass says whether bypass mode may run with this kernel.
func (k kernel) bypass() BypassStatus {
	var missing []string
	if k.abi < 4 {
		missing = append(missing, fmt.Sprintf("Landlock ABI 4 or later (this kernel: %s)", k.landlockText()))
	}
	if !k.seccomp {
		missing = append(missing, "the seccomp filter ("+k.seccompErr+")")
	}
	return BypassStatus{Possible: len(missing) == 0, Missing: missing}
}

func (k kernel) landlockText() string {
	if k.abi == 0 {
		return "none: " + k.abiErr
	}
	return fmt.Sprintf("ABI %d", k.abi)
}

// kernel is the inverse of Probe: what Start would know of the machine.
func (s Status) kernel() kernel {
	return kernel{
		abi: s.Landlock.ABI, signalScope: s.Landlock.SignalScope, abiErr: s.Landlock.Error,
		seccomp: s.Seccomp.Available, seccompErr: s.Seccomp.Error,
		userNotif: s.Seccomp.UserNotification, userNotifErr: s.Seccomp.UserNotificationError,
		mountNS: s.MountNamespace.Available, mountHow: s.MountNamespace.How, mountErr: s.MountNamespace.Error,
	}
}
