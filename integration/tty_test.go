package integration

import "syscall"

// noTTY starts guard in a new session with no controlling terminal, the way
// an agent's background shell runs it: /dev/tty cannot be opened.
func noTTY() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
