package sandbox

import (
	"fmt"
	"strings"
)

// UnavailableError says that the sandbox cannot be set up as the policy
// requires on this machine: which parts are missing and what to do. Nothing
// was run. guard exits 71 on it.
type UnavailableError struct {
	// Missing are the parts of the policy this kernel or machine cannot
	// enforce, each a sentence.
	Missing []string
	// Fix says what the user can do.
	Fix string
}

func (e *UnavailableError) Error() string {
	msg := "sandbox unavailable: " + strings.Join(e.Missing, "; ")
	if e.Fix != "" {
		msg += " (" + e.Fix + ")"
	}
	return msg
}

// PolicyError is a policy that cannot be enforced as written: a relative
// path, a blocked path that holds a writable root, a path whose canonical
// form changed while the sandbox was being set up.
type PolicyError struct {
	Path string
	Msg  string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("sandbox policy: %s: %s", e.Path, e.Msg)
}
