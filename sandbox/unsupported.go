//go:build !linux || !cgo

package sandbox

import (
	"errors"
	"os"
	"runtime"
)

// This build has no sandbox: guard was built for another system than Linux,
// or without cgo (libseccomp needs it). Everything here says so.

const whyUnsupported = "this guard was built without the sandbox (it needs Linux and cgo)"

// Probe reports that nothing is available.
func Probe() Status {
	k := kernel{abiErr: whyUnsupported, seccompErr: whyUnsupported, mountErr: whyUnsupported}
	return Status{
		Arch:           runtime.GOARCH,
		Landlock:       LandlockStatus{Error: whyUnsupported},
		Seccomp:        SeccompStatus{Error: whyUnsupported},
		MountNamespace: NamespaceStatus{Error: whyUnsupported},
		UserNamespace:  NamespaceStatus{Error: whyUnsupported},
		Features:       k.features(),
		Bypass:         k.bypass(),
	}
}

// Current is Probe: nothing is available.
func Current() Status { return Probe() }

// Launcher is a prepared launching thread; this build never has one.
type Launcher struct{}

// PrepareOption is an option of Prepare.
type PrepareOption func()

// ExpectNetwork does nothing in this build.
func ExpectNetwork(bool) PrepareOption { return func() {} }

// Prepare returns a launcher whose Start fails.
func Prepare(...PrepareOption) *Launcher { return &Launcher{} }

// Start always fails in this build.
func (*Launcher) Start(p Policy, c Command) (*Process, error) { return Start(p, c) }

// Close does nothing.
func (*Launcher) Close() {}

// Process is a command running in the sandbox; this build never has one.
type Process struct{}

// Start always fails in this build.
func Start(Policy, Command) (*Process, error) {
	return nil, &UnavailableError{Missing: []string{whyUnsupported}, Fix: "build guard on Linux with CGO_ENABLED=1"}
}

// Pid is the command's process ID.
func (*Process) Pid() int { return 0 }

// Gaps are the parts of the policy not enforced.
func (*Process) Gaps() []Item { return nil }

// RefusedSockets lists the Unix sockets the command was refused.
func (*Process) RefusedSockets() []string { return nil }

// Signal sends sig to the command.
func (*Process) Signal(os.Signal) error { return errors.New(whyUnsupported) }

// Wait waits for the command.
func (*Process) Wait() (int, error) { return 0, errors.New(whyUnsupported) }

// SeccompBPF fails in this build.
func SeccompBPF(Policy) ([]byte, error) { return nil, errors.New(whyUnsupported) }
