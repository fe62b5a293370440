//go:build linux && cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock access rights, by what they are for.
const (
	llRead = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// llWrite is every right that changes the file system, and reading.
	llWrite = llRead | ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer |
		ll.AccessFSTruncate
	// llFile are the rights a rule on a file (not a directory) may carry.
	llFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// llDevice is reading, writing and ioctl on a device node.
	llDevice = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// llDeviceRead is reading a device node.
	llDeviceRead = ll.AccessFSReadFile
)

// llHandledFS returns the file system rights an ABI version handles. Rights
// newer than guard knows (ABI 9's connecting to Unix sockets by path) are
// not handled, so they stay allowed: they are listed as such by Explain.
func llHandledFS(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return 1<<13 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi <= 4:
		return 1<<15 - 1
	}
	return 1<<16 - 1
}

// landlockABI returns the kernel's Landlock ABI version, or 0 with the
// reason when Landlock is not there. Signal scoping (ABI 6) counts only
// with the fix of erratum 2 (signals between the threads of one process);
// without it guard's own runtime could not preempt the confined thread.
func landlockABI() (abi int, signalScope bool, err error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOSYS):
			return 0, false, errors.New("the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)")
		case errors.Is(err, unix.EOPNOTSUPP):
			return 0, false, errors.New("Landlock is not enabled: add landlock to the lsm= list of the kernel command line")
		}
		return 0, false, fmt.Errorf("landlock: %w", err)
	}
	if v >= 6 {
		errata, err := ll.LandlockGetErrata()
		signalScope = err == nil && errata&0x2 != 0
	}
	return v, signalScope, nil
}

// ruleset is a Landlock ruleset being built.
type ruleset struct {
	fd      int
	handled uint64 // file system rights handled
	net     bool   // TCP handled
}

// newRuleset creates the ruleset of a policy for an ABI version: every file
// system right handled; TCP bind and connect handled unless the network is
// on; abstract Unix sockets and signals scoped always (the network on is
// the IP network: guard makes the command's Unix connections, and the
// scope keeps its datagrams from abstract sockets outside).
func newRuleset(abi int, signalScope bool, mode netMode) (*ruleset, error) {
	attr := ll.RulesetAttr{HandledAccessFS: llHandledFS(abi)}
	if abi >= 4 && mode != netOn {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 6 {
		attr.Scoped |= ll.ScopeAbstractUnixSocket
		if signalScope {
			attr.Scoped |= ll.ScopeSignal
		}
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock: creating the ruleset: %w", err)
	}
	return &ruleset{fd: fd, handled: attr.HandledAccessFS, net: attr.HandledAccessNet != 0}, nil
}

func (r *ruleset) close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// addFD allows rights beneath the file or directory fd refers to.
func (r *ruleset) addFD(fd int, rights uint64, isDir bool) error {
	rights &= r.handled
	if !isDir {
		rights &= llFile
	}
	if rights == 0 {
		return nil
	}
	return ll.LandlockAddPathBeneathRule(r.fd, &ll.PathBeneathAttr{AllowedAccess: rights, ParentFd: fd}, 0)
}

// addPath allows rights beneath path, which must have no symlink in it
// (a symlink swapped in would move the rule elsewhere). A missing path
// needs no rule.
func (r *ruleset) addPath(path string, rights uint64) error {
	fd, err := openExact(path, unix.O_PATH)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: %s: %w", path, err)
	}
	if err := r.addFD(fd, rights, st.Mode&unix.S_IFMT == unix.S_IFDIR); err != nil {
		return fmt.Errorf("landlock: %s: %w", path, err)
	}
	return nil
}

// addPort allows TCP connections to port.
func (r *ruleset) addPort(port uint16) error {
	if !r.net {
		return nil
	}
	err := ll.LandlockAddNetPortRule(r.fd, &ll.NetPortAttr{AllowedAccess: ll.AccessNetConnectTCP, Port: uint64(port)}, 0)
	if err != nil {
		return fmt.Errorf("landlock: TCP port %d: %w", port, err)
	}
	return nil
}

// restrictSelf enforces the ruleset on the calling thread, which the caller
// has locked and set no_new_privs on.
func (r *ruleset) restrictSelf() error {
	if err := ll.LandlockRestrictSelf(r.fd, 0); err != nil {
		return fmt.Errorf("landlock: enforcing the ruleset: %w", err)
	}
	return nil
}

// openExact opens path (absolute) with flags, refusing any symlink on the
// way: a path the policy names must be the path the kernel resolves.
func openExact(path string, flags uint64) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   flags | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// pathTree is the set of paths whose reading is refused, as a tree of
// their components.
type pathTree struct {
	children map[string]*pathTree
	blocked  bool // this path is refused; nothing beneath needs a look
}

func newPathTree(paths []string) *pathTree {
	root := &pathTree{}
	for _, p := range paths {
		n := root
		for _, c := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
			if c == "" {
				continue
			}
			if n.children == nil {
				n.children = map[string]*pathTree{}
			}
			child := n.children[c]
			if child == nil {
				child = &pathTree{}
				n.children[c] = child
			}
			n = child
		}
		n.blocked = true
	}
	return root
}

// allowReadExcept allows reading and executing everything but the paths of
// refused (blocked paths, and /dev, whose nodes are allowed one by one).
// Landlock can only allow, and a right allowed on a directory holds for
// everything beneath it, so this allows every sibling along the way from
// the root to each refused path, and not the path itself: a file created
// later beside a refused path is not readable either.
//
// Listing directories is allowed everywhere, from the root: without it
// "ls ~" fails whenever something in the home is blocked. The names in a
// blocked directory can therefore be listed, not its files read; where a
// mount namespace is made, an empty directory covers it and hides even the
// names.
func (r *ruleset) allowReadExcept(refused []string) error {
	rootFD, err := openExact("/", unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fmt.Errorf("landlock: /: %w", err)
	}
	defer unix.Close(rootFD)
	tree := newPathTree(refused)
	if tree.blocked {
		return r.addFD(rootFD, ll.AccessFSReadDir, true)
	}
	if err := r.addFD(rootFD, ll.AccessFSReadDir, true); err != nil {
		return fmt.Errorf("landlock: /: %w", err)
	}
	return r.allowReadBeneath(rootFD, "/", tree)
}

func (r *ruleset) allowReadBeneath(dirFD int, dir string, tree *pathTree) error {
	entries, err := readDir(dirFD)
	if errors.Is(err, unix.EACCES) {
		// The user cannot list it, so nothing in it is allowed: the
		// command may read less than the user, never more.
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		child := tree.children[name]
		switch {
		case child != nil && child.blocked:
			continue
		case child != nil:
			// On the way to a refused path: look inside. It was a
			// directory when the policy was made canonical; a symlink now
			// would lead the rules elsewhere.
			sub, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			switch {
			case errors.Is(err, unix.ELOOP):
				return &PolicyError{Path: filepath.Join(dir, name), Msg: "is a symlink now, on the way to a blocked path; run the command again"}
			case errors.Is(err, unix.ENOTDIR):
				// A file now: nothing can be beneath it.
				if err := r.allowEntry(dirFD, dir, name, false); err != nil {
					return err
				}
				continue
			case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT):
				continue // as above: nothing in it is allowed
			case err != nil:
				return fmt.Errorf("landlock: %s: %w", filepath.Join(dir, name), err)
			}
			err = r.allowReadBeneath(sub, filepath.Join(dir, name), child)
			unix.Close(sub)
			if err != nil {
				return err
			}
		case e.Type() == os.ModeSymlink:
			// A link needs no rule: what it points to has its own.
		default:
			if err := r.allowEntry(dirFD, dir, name, e.IsDir()); err != nil {
				return err
			}
		}
	}
	return nil
}

// allowEntry allows reading and executing beneath the entry name of a
// directory, as the type it was listed with. A directory that became a
// file since takes a file's rights; a file that became a directory gets
// rights that are valid on both.
func (r *ruleset) allowEntry(dirFD int, dir, name string, isDir bool) error {
	fd, err := unix.Openat(dirFD, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // gone since it was listed: nothing to allow
	}
	if err != nil {
		return fmt.Errorf("landlock: %s: %w", filepath.Join(dir, name), err)
	}
	defer unix.Close(fd)
	err = r.addFD(fd, llRead, isDir)
	if isDir && errors.Is(err, unix.EINVAL) {
		err = r.addFD(fd, llRead, false)
	}
	if err != nil {
		return fmt.Errorf("landlock: %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// readDir lists a directory open as fd.
func readDir(fd int) ([]os.DirEntry, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "dir")
	defer f.Close()
	return f.ReadDir(-1)
}
