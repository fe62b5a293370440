// Command floor is the floor of any Go wrapper, for the sandbox benchmark
// (bench/sandbox): it only execs its argument. It is built as guard is
// (cgo, dynamically linked), so the difference between the two is what
// guard does, not how Go starts.
package main

import (
	"os"
	"syscall"

	_ "runtime/cgo" // link as guard links: against libc, with cgo's runtime
)

func main() {
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	os.Stderr.WriteString("floor: " + err.Error() + "\n")
	os.Exit(127)
}
