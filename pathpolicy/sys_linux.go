package pathpolicy

import (
	"golang.org/x/sys/unix"
)

// procRootIno is PROC_ROOT_INO, the inode of procfs's root directory,
// wherever procfs is mounted.
const procRootIno = 1

// isProcfs reports whether dir is on a procfs, whose links (/proc/self,
// /proc/PID/root, /proc/PID/fd/N) are judged by name rather than followed.
func isProcfs(dir string) bool {
	var fs unix.Statfs_t
	for {
		err := unix.Statfs(dir, &fs)
		if err == unix.EINTR {
			continue
		}
		return err == nil && fs.Type == unix.PROC_SUPER_MAGIC
	}
}
