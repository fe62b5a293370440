//go:build linux && cgo && !amd64 && !arm64

package sandbox

// builtinSeccomp is empty on architectures whose programs are not compiled
// ahead of time: seccompFilter compiles them at run time.
var builtinSeccomp [3]string
