package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockTimeout is how long an edit waits for another guard process that is
// editing the same file.
const lockTimeout = 10 * time.Second

// withLock runs fn while holding an exclusive flock on .NAME.lock beside
// path, so that
// guard processes editing the same file at once take turns instead of
// losing each other's changes. The lock file stays: removing it would let
// a third process lock a different inode.
func withLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("cannot lock %s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	deadline := time.Now().Add(lockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("cannot lock %s: %v", lock, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("another guard process has been editing %s for %v (lock %s); try again", path, lockTimeout, lock)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// writeAtomic replaces path with data: a reader sees the old file or the
// new one, never a part. With keep, the file keeps its mode (perm when it
// is new); without, it gets perm. Its directory is made 0700 when missing.
// A symlinked settings file (dotfiles kept in a repository) is written
// through: the link stays a link.
func writeAtomic(path string, data []byte, perm fs.FileMode, keep bool) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		if keep {
			perm = fi.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
