// Package sandbox confines a command guard launches, in the kernel: Landlock
// for the file system, TCP ports and scopes, a seccomp filter for the system
// calls that go around them, a private mount namespace, where one can be
// made, for what Landlock cannot express (read-only paths inside writable
// ones, blocked paths inside writable ones, a read-only view of the rest),
// and a network namespace of its own for a command without network.
//
// The launcher never starts a second Go program: it confines one OS thread
// of guard itself (Landlock domains, seccomp filters, no_new_privs,
// capabilities and mount namespaces are per thread, and a child inherits
// its thread's) and starts the command from that thread. The rest of guard
// stays unconfined, and the command's domain is strictly inside guard's, so
// it cannot trace guard or read it through /proc.
//
// Every connect(2) of the command comes to guard (seccomp user
// notification), which checks the address and makes the connection itself:
// Unix sockets only to the policy's and the command's own (see
// supervisor_linux.go). See docs/sandbox.md.
package sandbox
