//go:build linux && cgo

package sandbox

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// mountPlan is what the private mount namespace changes. Landlock can only
// allow, and what it allows on a directory holds beneath it; the mounts do
// what that cannot: keep paths inside a writable root read-only or
// unreadable, and stop the changes Landlock does not see (chmod, utimes,
// extended attributes) everywhere outside the writable roots.
type mountPlan struct {
	writable []string // outermost writable roots, existing, canonical
	readOnly []string // existing paths inside writable roots to keep read-only
	// pins are the directories between a writable root and a read-only
	// path in it (.git for .git/hooks), outer first: each is bound onto
	// itself, writable as before, so that it is a mount point, which
	// cannot be renamed or removed. Otherwise "mv .git .git-old" would
	// take the read-only paths away with it and leave the name free for
	// a .git of the command's own.
	pins   []string
	covers []string // existing blocked paths to cover
	// own are the file systems prepare mounted (TMPDIR, /dev/shm,
	// /dev/pts), to make writable again after the tree is made read-only.
	own []string
	// unmountShm takes the private /dev/shm away: a path of the policy is
	// on the machine's.
	unmountShm bool
	// private are directories to hide but for the writable roots in them.
	private []privateDir
}

// privateDir is a directory whose contents the command must not see, but
// for keep (writable roots inside it, canonical).
type privateDir struct {
	dir  string
	keep []string
}

// prepared is what was done before the policy was known.
type prepared struct {
	mounts []mountEntry // the mount table, for aliases of blocked paths
	// tmp is where the private TMPDIR is mounted (tmpOK), when it is.
	tmp   string
	tmpOK bool
	own   []string // the file systems mounted anew
	// base are the Landlock rules most policies share (see baseRules).
	base *ruleset
}

// prepareMounts makes the thread's mount namespace and what in it does not
// depend on the policy: the private TMPDIR, /dev/shm and pseudo-terminals.
// The machine's /dev/shm holds other programs' shared memory, and the
// machine's /dev/pts every terminal of the user, whose keystrokes a process
// that opens one can read. Nothing is mounted where the namespace could
// not be made: the mounts would land in the machine's own.
func prepareMounts(tmp string, tmpOK bool) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	// Mounts made later on the machine still show here; none made here
	// shows there.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave: %w", err)
	}
	if tmpOK {
		if err := mountNew("tmpfs", tmp, map[string]string{"mode": "0700"}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV); err != nil {
			return err
		}
	}
	if err := mountNew("tmpfs", "/dev/shm", map[string]string{"mode": "1777"}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV); err != nil {
		return err
	}
	if err := mountNew("devpts", "/dev/pts", map[string]string{"mode": "0620", "ptmxmode": "0666"}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC); err != nil {
		return err
	}
	// /dev/ptmx is the machine's multiplexer; the instance's own is
	// /dev/pts/ptmx. Where /dev/ptmx is a symlink to it, nothing to do.
	var st unix.Stat_t
	if err := unix.Lstat("/dev/ptmx", &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if err := bindReadOnly("/dev/pts/ptmx", "/dev/ptmx", 0); err != nil {
		return fmt.Errorf("/dev/ptmx: %w", err)
	}
	return nil
}

// apply mounts what the policy needs in the calling thread's private mount
// namespace, which prepareMounts made. The goroutine is locked to
// its thread, which the runtime discards afterwards, so guard's other
// threads keep the machine's namespace.
//
// Every target is opened without following symlinks and mounted through
// its descriptor, so that a path swapped for a symlink meanwhile cannot
// move a mount elsewhere.
func (m *mountPlan) apply() error {
	// Keep a copy of each writable root, to put back over the read-only
	// tree: a copy keeps the flags of the mounts beneath it.
	type kept struct {
		path         string
		target, tree int
	}
	var keep []kept
	defer func() {
		for _, k := range keep {
			unix.Close(k.target)
			unix.Close(k.tree)
		}
	}()
	for _, w := range m.writable {
		target, err := openExact(w, unix.O_PATH)
		if err != nil {
			return fmt.Errorf("mount namespace: writable root %s: %w", w, err)
		}
		tree, err := unix.OpenTree(target, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		if err != nil {
			unix.Close(target)
			return fmt.Errorf("mount namespace: writable root %s: open_tree: %w", w, err)
		}
		keep = append(keep, kept{w, target, tree})
	}
	err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if err != nil {
		return fmt.Errorf("mount namespace: making the tree read-only: %w", err)
	}
	for _, k := range keep {
		if err := unix.MoveMount(k.tree, "", k.target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
			return fmt.Errorf("mount namespace: writable root %s: move_mount: %w", k.path, err)
		}
	}
	// The tree is read-only now, what prepareMounts mounted too.
	for _, p := range m.own {
		if p == "/dev/shm" && m.unmountShm {
			if err := unix.Unmount(p, unix.MNT_DETACH); err != nil {
				return fmt.Errorf("mount namespace: %s: %w", p, err)
			}
			continue
		}
		fd, err := openExact(p, unix.O_PATH)
		if err != nil {
			return fmt.Errorf("mount namespace: %s: %w", p, err)
		}
		err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("mount namespace: %s: %w", p, err)
		}
	}
	for _, p := range m.pins {
		if err := bindSelf(p); err != nil {
			return fmt.Errorf("mount namespace: pinning %s: %w", p, err)
		}
	}
	for _, p := range m.readOnly {
		if err := bindReadOnly(p, p, 0); err != nil {
			return fmt.Errorf("mount namespace: read-only %s: %w", p, err)
		}
	}
	if err := m.cover(); err != nil {
		return err
	}
	for _, pd := range m.private {
		if err := pd.hide(); err != nil {
			return fmt.Errorf("mount namespace: private %s: %w", pd.dir, err)
		}
	}
	return nil
}

// hide mounts an empty, read-only file system over the private directory,
// with a directory for each kept root, and binds the kept roots (their
// writable copies) back onto them.
func (pd privateDir) hide() error {
	type kept struct {
		rel  string
		tree int
	}
	var keep []kept
	defer func() {
		for _, k := range keep {
			unix.Close(k.tree)
		}
	}()
	for _, w := range pd.keep {
		fd, err := openExact(w, unix.O_PATH)
		if err != nil {
			return fmt.Errorf("%s: %w", w, err)
		}
		tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("%s: open_tree: %w", w, err)
		}
		keep = append(keep, kept{strings.TrimPrefix(w, pd.dir+"/"), tree})
	}
	if err := mountNew("tmpfs", pd.dir, map[string]string{"mode": "0755", "size": "64k"}, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC); err != nil {
		return err
	}
	root, err := openExact(pd.dir, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	for _, k := range keep {
		if err := mkdirBeneath(root, k.rel); err != nil {
			return fmt.Errorf("%s: %w", k.rel, err)
		}
	}
	if err := unix.MountSetattr(root, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("mount_setattr: %w", err)
	}
	for _, k := range keep {
		t, err := unix.Openat2(root, k.rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
		if err != nil {
			return fmt.Errorf("%s: %w", k.rel, err)
		}
		err = unix.MoveMount(k.tree, "", t, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		unix.Close(t)
		if err != nil {
			return fmt.Errorf("%s: move_mount: %w", k.rel, err)
		}
	}
	return nil
}

// mkdirBeneath makes the directories of rel (slash-separated, relative)
// beneath the directory root.
func mkdirBeneath(root int, rel string) error {
	dir, err := unix.Dup(root)
	if err != nil {
		return err
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			unix.Close(dir)
			return fmt.Errorf("%q: not a plain path", rel)
		}
		if err := unix.Mkdirat(dir, c, 0o755); err != nil && err != unix.EEXIST {
			unix.Close(dir)
			return err
		}
		next, err := unix.Openat(dir, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dir)
		if err != nil {
			return err
		}
		dir = next
	}
	unix.Close(dir)
	return nil
}

// cover hides the blocked paths: a directory under an empty, read-only
// file system, a file under /dev/null on a mount that allows no device
// (so that opening it fails, for reading and for writing).
func (m *mountPlan) cover() error {
	firstDir := ""
	for _, b := range m.covers {
		fd, err := openExact(b, unix.O_PATH)
		if err != nil {
			return fmt.Errorf("mount namespace: covering %s: %w", b, err)
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("mount namespace: covering %s: %w", b, err)
		}
		switch {
		case st.Mode&unix.S_IFMT != unix.S_IFDIR:
			err = bindReadOnly("/dev/null", b, unix.MOUNT_ATTR_NOEXEC)
		case firstDir == "":
			err = mountNew("tmpfs", b, map[string]string{"mode": "0", "size": "4k"}, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
			firstDir = b
		default:
			err = bindReadOnly(firstDir, b, unix.MOUNT_ATTR_NOEXEC)
		}
		if err != nil {
			return fmt.Errorf("mount namespace: covering %s: %w", b, err)
		}
	}
	return nil
}

// mountNew mounts a new file system of type fstype on target.
func mountNew(fstype, target string, opts map[string]string, attrs int) error {
	fs, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("mount namespace: %s: fsopen: %w", target, err)
	}
	defer unix.Close(fs)
	for k, v := range opts {
		if err := unix.FsconfigSetString(fs, k, v); err != nil {
			return fmt.Errorf("mount namespace: %s: %s=%s: %w", target, k, v, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("mount namespace: %s: creating %s: %w", target, fstype, err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return fmt.Errorf("mount namespace: %s: fsmount: %w", target, err)
	}
	defer unix.Close(mnt)
	t, err := openExact(target, unix.O_PATH)
	if err != nil {
		return fmt.Errorf("mount namespace: %s: %w", target, err)
	}
	defer unix.Close(t)
	if err := unix.MoveMount(mnt, "", t, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("mount namespace: %s: move_mount: %w", target, err)
	}
	return nil
}

// bindSelf mounts a copy of dir (and the mounts beneath it) on dir itself,
// with the same attributes: dir is then a mount point.
func bindSelf(dir string) error { return bindCopy(dir, dir, 0) }

// bindReadOnly mounts a read-only copy of src (and the mounts beneath it)
// on target.
func bindReadOnly(src, target string, attrs uint64) error {
	return bindCopy(src, target, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|attrs)
}

// bindCopy mounts a copy of src (and the mounts beneath it) on target,
// with the attributes set added (none: as src's).
func bindCopy(src, target string, set uint64) error {
	s, err := openExact(src, unix.O_PATH)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	tree, err := unix.OpenTree(s, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(tree)
	if set != 0 {
		attr := unix.MountAttr{Attr_set: set}
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("mount_setattr: %w", err)
		}
	}
	t := s
	if target != src {
		if t, err = openExact(target, unix.O_PATH); err != nil {
			return err
		}
		defer unix.Close(t)
	}
	if err := unix.MoveMount(tree, "", t, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}
