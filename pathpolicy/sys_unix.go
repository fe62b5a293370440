//go:build unix

package pathpolicy

import (
	"golang.org/x/sys/unix"
)

// The errors of lstat that resolution tells apart.
var (
	errNotExist    error = unix.ENOENT
	errNotDir      error = unix.ENOTDIR
	errAccess      error = unix.EACCES
	errNameTooLong error = unix.ENAMETOOLONG
)

// stat is what resolution needs of lstat's answer.
type stat struct {
	id    fileID
	link  bool
	dir   bool
	reg   bool
	nlink uint64
}

func fromStat(st *unix.Stat_t) stat {
	t := st.Mode & unix.S_IFMT
	return stat{
		id:    fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)},
		link:  t == unix.S_IFLNK,
		dir:   t == unix.S_IFDIR,
		reg:   t == unix.S_IFREG,
		nlink: uint64(st.Nlink),
	}
}

func lstat(p string) (stat, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(p, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return stat{}, err
		}
		return fromStat(&st), nil
	}
}

// statFollow is stat(2): the file a path leads to.
func statFollow(p string) (stat, error) {
	var st unix.Stat_t
	for {
		err := unix.Stat(p, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return stat{}, err
		}
		return fromStat(&st), nil
	}
}

func readlink(p string) (string, error) {
	buf := make([]byte, MaxPathLen+1)
	for {
		n, err := unix.Readlink(p, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n > MaxPathLen {
			return "", ErrTooLong
		}
		return string(buf[:n]), nil
	}
}
