//go:build linux && cgo

package sandbox

/*
extern int guard_userns_errno;
extern const char *guard_userns_step;
*/
import "C"

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// userNamespace reports what the constructor in userns_linux.c did: made a
// user namespace (made), did not try (neither made nor err), or failed.
func userNamespace() (made bool, err error) {
	switch n := int(C.guard_userns_errno); n {
	case -1:
		return false, nil
	case 0:
		return true, nil
	default:
		return false, fmt.Errorf("%s: %w", C.GoString(C.guard_userns_step), unix.Errno(n))
	}
}
