//go:build linux && cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// currentKernel finds, in a few system calls, what Start needs.
func currentKernel() kernel {
	var k kernel
	abi, ss, err := landlockABI()
	k.abi, k.signalScope = abi, ss
	if err != nil {
		k.abiErr = err.Error()
	}
	if err := seccompAvailable(); err != nil {
		k.seccompErr = err.Error()
	} else {
		k.seccomp = true
		if err := userNotifAvailable(); err != nil {
			k.userNotifErr = err.Error()
		} else {
			k.userNotif = true
		}
	}
	made, err := userNamespace()
	switch {
	case made:
		k.mountNS, k.mountHow = true, "user namespace"
	case hasCapability(unix.CAP_SYS_ADMIN):
		k.mountNS, k.mountHow = true, "CAP_SYS_ADMIN"
	case err != nil:
		k.mountErr = "user namespace: " + err.Error()
	default:
		k.mountErr = "no CAP_SYS_ADMIN, and no user namespace was made"
	}
	return k
}

// seccompAvailable checks that the kernel takes seccomp filters returning
// an errno.
func seccompAvailable() error {
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return errors.New("the kernel was built without seccomp (CONFIG_SECCOMP)")
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return fmt.Errorf("seccomp filters are not available (CONFIG_SECCOMP_FILTER): %w", e)
	}
	return nil
}

// userNotifAvailable checks that guard can make the command's connections:
// seccomp can send a call to guard (Linux 5.0), and guard can take the
// command's socket (pidfd_getfd, Linux 5.6).
func userNotifAvailable() error {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return fmt.Errorf("seccomp user notification is not available (Linux 5.0): %w", e)
	}
	if _, _, e := unix.Syscall(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0); e == unix.ENOSYS {
		return errors.New("pidfd_getfd is not available (Linux 5.6)")
	}
	return nil
}

// Probe finds what this machine offers the sandbox. Beyond what [Start]
// checks, it tries a user namespace in a child process (about a
// millisecond), so that a user who is not root learns whether guard exec
// can make one.
func Probe() Status {
	k := currentKernel()
	s := Status{
		Kernel:   kernelRelease(),
		Arch:     runtime.GOARCH,
		Landlock: LandlockStatus{ABI: k.abi, SignalScope: k.signalScope, Error: k.abiErr},
		Seccomp:  SeccompStatus{Available: k.seccomp, Library: seccompVersion(), Error: k.seccompErr, UserNotification: k.userNotif, UserNotificationError: k.userNotifErr},
	}
	userErr := tryUserNamespace()
	if userErr == nil {
		s.UserNamespace = NamespaceStatus{Available: true, How: "unprivileged"}
	} else {
		s.UserNamespace = NamespaceStatus{Error: userErr.Error()}
	}
	switch {
	case k.mountNS && k.mountHow == "CAP_SYS_ADMIN":
		if err := tryMountNamespace(); err != nil {
			k.mountNS, k.mountErr = false, err.Error()
			s.MountNamespace = NamespaceStatus{Error: k.mountErr}
			break
		}
		s.MountNamespace = NamespaceStatus{Available: true, How: "as root: the launching thread's own"}
	case k.mountNS:
		s.MountNamespace = NamespaceStatus{Available: true, How: "inside a user namespace"}
	case userErr == nil:
		// guard exec makes the user namespace before it starts (see
		// userns_linux.c); this process did not.
		k.mountNS, k.mountErr = true, ""
		s.MountNamespace = NamespaceStatus{Available: true, How: "inside the user namespace guard exec makes"}
	default:
		s.MountNamespace = NamespaceStatus{Error: "not root, and no user namespace: " + userErr.Error()}
		k.mountErr = s.MountNamespace.Error
	}
	s.Features = k.features()
	s.Bypass = k.bypass()
	return s
}

// Current is what [Start] would find of this machine, in a few system
// calls: [Probe] without its trial namespaces and library version. guard
// check and guard exec decide bypass with it on every run, where Probe's
// trial child would cost more than the rest of the decision.
func Current() Status {
	k := currentKernel()
	s := Status{
		Kernel:         kernelRelease(),
		Arch:           runtime.GOARCH,
		Landlock:       LandlockStatus{ABI: k.abi, SignalScope: k.signalScope, Error: k.abiErr},
		Seccomp:        SeccompStatus{Available: k.seccomp, Error: k.seccompErr, UserNotification: k.userNotif, UserNotificationError: k.userNotifErr},
		MountNamespace: NamespaceStatus{Available: k.mountNS, How: k.mountHow, Error: k.mountErr},
	}
	s.Features = k.features()
	s.Bypass = k.bypass()
	return s
}

// tryMountNamespace makes a mount namespace on a thread that is then
// discarded, as Start does: a capability is not enough where a container's
// own seccomp profile refuses unshare.
func tryMountNamespace() error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		err := unix.Unshare(unix.CLONE_NEWNS)
		if err == nil {
			err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, "")
		}
		done <- err
	}()
	if err := <-done; err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
	}
	return nil
}

// tryUserNamespace starts a child in a new user and mount namespace, the
// way the kernel would let guard exec make one.
func tryUserNamespace() error {
	exe := "/bin/true"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	pid, err := syscall.ForkExec(exe, []string{"true"}, &syscall.ProcAttr{
		Env: []string{},
		Sys: &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}},
		},
	})
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EACCES) {
			return fmt.Errorf("the kernel refuses unprivileged user namespaces (%w)", err)
		}
		return err
	}
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			break
		}
	}
	return nil
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return strings.TrimRight(string(u.Release[:]), "\x00")
}

// lookPath finds a program in the PATH of env, as execvp would. Relative
// directories in PATH are skipped: which program "." finds depends on where
// the command starts, and a gate approved a name, not a directory.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
