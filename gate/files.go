package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// lockWait is how long a store waits for another guard process to finish
// its update before giving up with an error (rather than hanging an agent).
const lockWait = 10 * time.Second

// withLock runs fn holding an exclusive flock on lockPath. The lock is a
// file of its own because the store itself is replaced by rename, which a
// lock on the store's inode would not survive.
func withLock(lockPath string, fn func() error) error {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	deadline := time.Now().Add(lockWait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("lock %s: %w", lockPath, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is held by another guard process for over %s; if none is running, remove the lock file", lockPath, lockWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return fn()
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, synced, then renamed over it, so that a reader sees the old
// file or the new one, never a half-written one.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename there is nothing left to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: the rename is durable once the directory is
		d.Close()
	}
	return nil
}

// privateDir makes dir (mode 0700) when missing, and refuses one that others
// may write into: they could swap guard's stores for their own.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %v): anyone could replace guard's stores there; run chmod 700 %s", dir, st.Mode().Perm(), dir)
	}
	return nil
}

// checkPrivate refuses a store file that others may write: an approval
// someone else added is not the user's.
func checkPrivate(st os.FileInfo, path string) error {
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("writable by other users (mode %v): anyone could add approvals; run chmod 600 %s", st.Mode().Perm(), path)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	return nil
}
