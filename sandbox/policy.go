package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Policy is what one sandboxed command may do, in concrete paths. guard's
// pathpolicy computes it from the settings (the read-deny rules become
// [Policy.Blocked], the workspace and allow_write become [Policy.Writable]);
// this package enforces it and does not read settings itself.
//
// The zero Policy is the strictest: nothing writable, no network, and
// [Start] refuses to run where any part of it cannot be enforced.
type Policy struct {
	// Blocked are paths the command must not read or execute, by any route:
	// directly, through a symlink, through "..", /proc/self/root, a hard link
	// made inside the sandbox, or another mount of the same file system.
	// A blocked directory blocks everything beneath it.
	Blocked []BlockedPath

	// Writable are the roots the command may write beneath: the workspace,
	// [sandbox] allow_write. Everything else is read-only.
	Writable []string

	// ReadOnly are paths inside writable roots that must stay read-only:
	// .git/hooks, .git/config, .guard/, guard's own files. They can only be
	// enforced where a private mount namespace can be made.
	ReadOnly []ReadOnlyPath

	// TempDir makes a private temporary directory, writable, exported to the
	// command as TMPDIR and removed when the command ends.
	TempDir bool

	// Network turns the network on: any socket, any address.
	Network bool
	// TCPConnect, with Network off, lets the command open TCP connections to
	// these ports (and nothing else: no UDP, no Unix socket connections).
	TCPConnect []uint16
	// UnixSockets are the Unix sockets outside the sandbox the command may
	// connect to, with the network off or on. Every other connection to a
	// named or abstract Unix socket is refused but those to the command's
	// own (bound inside the sandbox). A socket that hands over the machine
	// ([SocketDanger]) is refused unless it is marked Dangerous.
	UnixSockets []UnixSocket

	// Private are directories whose contents the command must not see but
	// for the writable roots inside them: guard's toolchain caches, where a
	// command sees its own workspace's cache and no other workspace's
	// (a cache holds what was built from a workspace, which a read rule may
	// block).
	Private []string

	// AllowBackground lets processes the command leaves behind keep running
	// after it exits. Without it every one of them is killed.
	AllowBackground bool

	// AllowPartial starts the command even where part of this policy cannot
	// be enforced by this kernel; [Process.Gaps] then lists what is not. Without
	// it, [Start] returns an [*UnavailableError] and runs nothing.
	AllowPartial bool
}

// BlockedPath is a path the command must not read, with the rule it comes
// from (shown by [Explain]).
type BlockedPath struct {
	Path string
	// Kind is what the path was when the policy was computed. The sandbox
	// looks again when it starts, since the file system may have changed.
	Kind PathKind
	// Rule is the deny rule that blocks it, as the user wrote it.
	Rule string
}

// ReadOnlyPath is a path inside a writable root that must not be written,
// with the reason (shown by [Explain]).
type ReadOnlyPath struct {
	Path string
	// Kind is what the path was when the policy was computed (Explain uses
	// it; Start looks again). A missing path cannot be kept read-only: a
	// read-only bind needs something to bind over.
	Kind PathKind
	Why  string
}

// PathKind is what a path is on disk.
type PathKind int

// Path kinds.
const (
	Missing PathKind = iota // nothing there (yet)
	File                    // anything that is not a directory
	Dir
)

func (k PathKind) String() string {
	switch k {
	case File:
		return "file"
	case Dir:
		return "directory"
	}
	return "missing"
}

// Command is the program to run and its context.
type Command struct {
	// Path is the program. A name without a slash is looked up in the PATH
	// of Env.
	Path string
	// Args is the argument vector, Args[0] included. Empty means [Path].
	Args []string
	// Env is the environment, passed on as it is except for TMPDIR when
	// [Policy.TempDir] is set.
	Env []string
	// Dir is the working directory; empty means guard's own.
	Dir string
	// Stdin, Stdout and Stderr become the command's 0, 1 and 2; nil means
	// guard's own. No other descriptor reaches the command.
	Stdin, Stdout, Stderr *os.File
}

// clean checks that every path of the policy is absolute, and returns a copy
// with clean, sorted and de-duplicated paths. A path that is not absolute is
// a bug in the caller: resolving it against guard's working directory could
// block or expose the wrong file.
func (p Policy) clean() (Policy, error) {
	var err error
	fix := func(what, path string) string {
		if err != nil {
			return ""
		}
		if path == "" || !filepath.IsAbs(path) || strings.ContainsRune(path, 0) {
			err = &PolicyError{Path: path, Msg: what + " paths must be absolute"}
			return ""
		}
		return filepath.Clean(path)
	}
	q := p
	q.Blocked = nil
	seen := map[string]bool{}
	for _, b := range p.Blocked {
		b.Path = fix("blocked", b.Path)
		if !seen[b.Path] {
			seen[b.Path] = true
			q.Blocked = append(q.Blocked, b)
		}
	}
	sort.Slice(q.Blocked, func(i, j int) bool { return q.Blocked[i].Path < q.Blocked[j].Path })
	q.Writable = nil
	for _, w := range p.Writable {
		q.Writable = append(q.Writable, fix("writable", w))
	}
	q.Writable = dedupe(q.Writable)
	q.ReadOnly = nil
	seen = map[string]bool{}
	for _, r := range p.ReadOnly {
		r.Path = fix("read-only", r.Path)
		if !seen[r.Path] {
			seen[r.Path] = true
			q.ReadOnly = append(q.ReadOnly, r)
		}
	}
	sort.Slice(q.ReadOnly, func(i, j int) bool { return q.ReadOnly[i].Path < q.ReadOnly[j].Path })
	q.UnixSockets = nil
	seenSock := map[string]int{}
	for _, s := range p.UnixSockets {
		s.Path = fix("unix socket", s.Path)
		if i, ok := seenSock[s.Path]; ok {
			// The same socket twice: marked dangerous once is enough.
			q.UnixSockets[i].Dangerous = q.UnixSockets[i].Dangerous || s.Dangerous
			continue
		}
		seenSock[s.Path] = len(q.UnixSockets)
		q.UnixSockets = append(q.UnixSockets, s)
	}
	sort.Slice(q.UnixSockets, func(i, j int) bool { return q.UnixSockets[i].Path < q.UnixSockets[j].Path })
	q.Private = nil
	for _, d := range p.Private {
		q.Private = append(q.Private, fix("private", d))
	}
	q.Private = dedupe(q.Private)
	if err != nil {
		return Policy{}, err
	}
	for _, b := range q.Blocked {
		for _, w := range q.Writable {
			if within(w, b.Path) {
				return Policy{}, &PolicyError{Path: b.Path, Msg: fmt.Sprintf("the blocked path holds the writable root %s; drop the deny rule %s or the writable root", w, b.Rule)}
			}
		}
	}
	for _, d := range q.Private {
		if d == "/" {
			return Policy{}, &PolicyError{Path: d, Msg: "the root directory cannot be private"}
		}
	}
	return q, nil
}

// UnixSocket is a Unix socket outside the sandbox the command may connect
// to.
type UnixSocket struct {
	Path string
	// Dangerous says the user knows this socket hands over the machine or
	// the session (written `dangerous = true`); without it such a socket
	// ([SocketDanger]) is refused.
	Dangerous bool
}

// refused returns why the command may not connect to s although it is
// listed, or "".
func (s UnixSocket) refused() string {
	if s.Dangerous {
		return ""
	}
	return SocketDanger(s.Path)
}

// privateKeeps returns the writable roots inside private directory d.
func (p Policy) privateKeeps(d string) []string {
	var out []string
	for _, w := range p.Writable {
		if w != d && within(w, d) {
			out = append(out, w)
		}
	}
	return out
}

// dedupe sorts paths and drops repeats.
func dedupe(paths []string) []string {
	sort.Strings(paths)
	out := paths[:0]
	for i, p := range paths {
		if i == 0 || p != paths[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether path is dir or beneath it. Both are clean and
// absolute.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// outermost drops every path that lies within another of paths (sorted).
func outermost(paths []string) []string {
	var out []string
	for _, p := range paths {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// insideWritable returns the writable root that holds path, or "".
func (p Policy) insideWritable(path string) string {
	for _, w := range p.Writable {
		if within(path, w) {
			return w
		}
	}
	return ""
}

// netMode is the network setting of a policy.
type netMode int

const (
	netOff netMode = iota // no network
	netTCP                // TCP to the ports of Policy.TCPConnect only
	netOn                 // the whole network
)

func (p Policy) netMode() netMode {
	switch {
	case p.Network:
		return netOn
	case len(p.TCPConnect) > 0:
		return netTCP
	}
	return netOff
}
