//go:build linux && cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// plan is a policy resolved against the file system as it is now.
type plan struct {
	// refused are the blocked paths Landlock refuses: those no mount
	// covers (none exists, or no mount namespace is made), and /dev.
	refused  []string
	writable []string // canonical, existing writable roots
	mounts   *mountPlan
	// tmp is the private TMPDIR: an empty file system mounted in the mount
	// namespace on tmp (tmpMount), or a directory made for this command.
	tmp         string
	tmpMount    bool
	explanation Explanation
	blocked     []BlockedPath // canonical, aliases included
}

// newPlan resolves p against the file system.
func newPlan(p Policy, k kernel, pre *prepared) (*plan, error) {
	pl := &plan{}
	// What the policy names must be what the kernel finds: the canonical
	// path, every component of which is a directory or the final file.
	real := p
	real.Blocked = nil
	mounts := pre.mounts
	seen := map[string]bool{}
	for _, b := range p.Blocked {
		path, kind := canonical(b.Path)
		if !seen[path] {
			seen[path] = true
			real.Blocked = append(real.Blocked, BlockedPath{Path: path, Kind: kind, Rule: b.Rule})
		}
		for _, alias := range aliases(mounts, path) {
			if _, kind := canonical(alias); !seen[alias] {
				seen[alias] = true
				real.Blocked = append(real.Blocked, BlockedPath{Path: alias, Kind: kind, Rule: b.Rule})
			}
		}
	}
	real.Writable = nil
	for _, w := range p.Writable {
		if c, kind := canonical(w); kind != Missing {
			real.Writable = append(real.Writable, c)
		}
	}
	real.ReadOnly = nil
	for _, r := range p.ReadOnly {
		r.Path, r.Kind = canonical(r.Path)
		real.ReadOnly = append(real.ReadOnly, r)
	}
	// A symlink can lead a blocked path into a writable root, or over one.
	real, err := real.clean()
	if err != nil {
		return nil, err
	}
	pl.writable = real.Writable
	if p.TempDir && k.mountNS && pre.tmpOK {
		pl.tmp, pl.tmpMount = pre.tmp, true
	}
	if k.mountNS {
		m := &mountPlan{own: pre.own}
		uses := append([]string{}, real.Writable...)
		for _, u := range real.UnixSockets {
			uses = append(uses, u.Path)
		}
		for _, u := range uses {
			if within(u, "/dev/shm") {
				m.unmountShm = true // it would hide a path the command may use
			}
		}
		pinned := map[string]bool{}
		for _, r := range real.ReadOnly {
			if r.Kind != Missing && real.insideWritable(r.Path) != "" {
				m.readOnly = append(m.readOnly, r.Path)
				root := outermostRoot(real.Writable, r.Path)
				for d := filepath.Dir(r.Path); d != root && within(d, root); d = filepath.Dir(d) {
					pinned[d] = true
				}
			}
		}
		for d := range pinned {
			m.pins = append(m.pins, d)
		}
		// Outer first; an inner pin is made inside the outer one.
		sort.Slice(m.pins, func(i, j int) bool {
			return len(m.pins[i]) < len(m.pins[j]) || len(m.pins[i]) == len(m.pins[j]) && m.pins[i] < m.pins[j]
		})
		// A cover over TMPDIR (or where it is made) would hide it.
		tmp := pl.tmp
		if p.TempDir && !pl.tmpMount {
			tmp = os.TempDir()
		}
		covered := map[string]bool{}
		for _, b := range real.Blocked {
			if b.Kind != Missing && (tmp == "" || !within(tmp, b.Path)) {
				m.covers = append(m.covers, b.Path)
				covered[b.Path] = true
			}
		}
		pl.mounts = m
		for _, b := range real.Blocked {
			if !covered[b.Path] {
				pl.refused = append(pl.refused, b.Path)
			}
		}
	} else {
		for _, b := range real.Blocked {
			pl.refused = append(pl.refused, b.Path)
		}
	}
	// Private directories: covered, but for the writable roots in them,
	// where a mount namespace is made; otherwise refused by Landlock (the
	// writable roots in them have rules of their own).
	real.Private = nil
	for _, d := range p.Private {
		c, kind := canonical(d)
		if kind != Dir {
			continue // nothing to hide
		}
		real.Private = append(real.Private, c)
		if pl.mounts != nil {
			pl.mounts.private = append(pl.mounts.private, privateDir{dir: c, keep: real.privateKeeps(c)})
		} else if real.insideWritable(c) == "" {
			pl.refused = append(pl.refused, c)
		}
	}
	pl.refused = append(pl.refused, "/dev")
	pl.explanation = real.explain(k)
	pl.blocked = real.Blocked
	return pl, nil
}

// checkDir refuses a working directory inside a blocked path: the command
// would read it through "." whatever covers it.
func (pl *plan) checkDir(dir string) error {
	c, _ := canonical(filepath.Clean(dir))
	for _, b := range pl.blocked {
		if within(c, b.Path) {
			return &PolicyError{Path: dir, Msg: fmt.Sprintf("the working directory is blocked by %s; start the command elsewhere", b.Rule)}
		}
	}
	return nil
}

// tmpMountpoint returns the directory on which the mount namespace mounts
// the command's private TMPDIR: the same for every command of this user
// (each gets its own file system there, which dies with its namespace), so
// that nothing is made or removed on disk at each run. ok is false when it
// cannot be used safely: not a directory of this user's, or open to others.
func tmpMountpoint() (dir string, ok bool) {
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("guard-%d", os.Getuid()))
	var st unix.Stat_t
	err := unix.Lstat(dir, &st)
	if errors.Is(err, unix.ENOENT) {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", false
		}
		err = unix.Lstat(dir, &st)
	}
	if err != nil {
		return "", false
	}
	if c, _ := canonical(dir); st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != uint32(os.Getuid()) || st.Mode&0o077 != 0 || c != dir {
		return "", false
	}
	return dir, true
}

// canonical returns the canonical form of path (the symlinks of the part
// that exists resolved) and what is there. A path without symlinks, the
// usual case, costs one openat2 and one fstat.
func canonical(path string) (string, PathKind) {
	fd, err := openExact(path, unix.O_PATH)
	if err == nil {
		defer unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return path, Missing
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return path, Dir
		}
		return path, File
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		// No symlink before the missing part: the path is canonical.
		return path, Missing
	}
	if c, err := filepath.EvalSymlinks(path); err == nil {
		return canonical(c)
	}
	if path == "/" {
		return path, Missing
	}
	dir, _ := canonical(filepath.Dir(path))
	return filepath.Join(dir, filepath.Base(path)), Missing
}

// readProcFile reads a file of /proc, whose size stat does not tell, in as
// few reads as it takes.
func readProcFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 32<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// outermostRoot is the shortest of the writable roots that holds path.
func outermostRoot(roots []string, path string) string {
	best := ""
	for _, w := range roots {
		if within(path, w) && (best == "" || len(w) < len(best)) {
			best = w
		}
	}
	return best
}
