package pathpolicy

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory. The walk opens each directory relative to
// its parent with O_NOFOLLOW, so that a directory swapped for a symlink
// while guard walks is not followed out of the tree.
type dirHandle struct{ fd int }

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

func openRoot(p string) (dirHandle, error) {
	fd, err := retry(func() (int, error) { return unix.Open(p, dirFlags, 0) })
	return dirHandle{fd}, err
}

func (h dirHandle) open(name string) (dirHandle, error) {
	fd, err := retry(func() (int, error) { return unix.Openat(h.fd, name, dirFlags, 0) })
	return dirHandle{fd}, err
}

func (h dirHandle) close() { unix.Close(h.fd) }

func (h dirHandle) lstat(name string) (stat, error) {
	var st unix.Stat_t
	_, err := retry(func() (int, error) { return 0, unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return stat{}, err
	}
	return fromStat(&st), nil
}

// dirent is an entry of a directory, with its type as getdents gives it.
// Its name points into the directory's arena: converting every name of a
// large tree to a string would cost an allocation per file.
type dirent struct {
	name   []byte
	typ    entryType
	off, n int    // where name is in the arena
	key    uint64 // the first eight bytes of name, for sorting
}

// dirBuf holds the entries of one directory, and the planner's state for
// it; the walk keeps one per depth.
type dirBuf struct {
	arena   []byte
	ents    []dirent
	in      []dirUser
	pending []walkUser
}

type entryType uint8

const (
	typeUnknown entryType = iota
	typeDir
	typeLink
	typeFile // a regular file, or anything else that is not a directory or link
)

// read returns the directory's entries, sorted by name when sorted is set
// (so that two walks of the same tree visit it in the same order), else in
// the order the kernel gives. It reads the kernel's linux_dirent64 records
// directly; the names are copied into the arena of d, which read reuses, so
// that a walk allocates little per directory.
func (h dirHandle) read(buf []byte, d *dirBuf, sorted bool) ([]dirent, error) {
	d.arena, d.ents = d.arena[:0], d.ents[:0]
	for {
		n, err := retry(func() (int, error) { return unix.Getdents(h.fd, buf) })
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break // cannot happen: a record the kernel did not write
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if !(len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.') {
				t := typeFile
				switch b[18] {
				case unix.DT_DIR:
					t = typeDir
				case unix.DT_LNK:
					t = typeLink
				case unix.DT_UNKNOWN:
					t = typeUnknown
				}
				// The name is set once the arena stops growing.
				d.ents = append(d.ents, dirent{typ: t, off: len(d.arena), n: len(name)})
				d.arena = append(d.arena, name...)
			}
			b = b[reclen:]
		}
	}
	for i := range d.ents {
		e := &d.ents[i]
		e.name = d.arena[e.off : e.off+e.n : e.off+e.n]
	}
	if !sorted {
		return d.ents, nil
	}
	for i := range d.ents {
		e := &d.ents[i]
		var k [8]byte
		copy(k[:], e.name)
		e.key = binary.BigEndian.Uint64(k[:])
	}
	// Most names differ in their first eight bytes: compare those as one
	// number first.
	slices.SortFunc(d.ents, func(a, b dirent) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return bytes.Compare(a.name, b.name)
	})
	return d.ents, nil
}

func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// maxListedNames bounds the directory listedNames reads: a home or
// workspace has far fewer entries.
const maxListedNames = 1 << 16

// listedNames returns the names in dir, lower-cased, or nil when guard
// cannot rely on them to tell which names lookups find: an error, a
// directory past maxListedNames, a name that is not ASCII (a case-folding
// file system may find "ſ" under "s", which lower-casing ASCII does not
// show), or a file system other than the local ones of localFS, whose
// lookups may find names its listing does not show (an automounter, a FUSE
// file system). Any answer is safe for a caller that examines a name when
// it is listed, and every name when nil comes back.
func listedNames(dir string) map[string]bool {
	var fs unix.Statfs_t
	if _, err := retry(func() (int, error) { return 0, unix.Statfs(dir, &fs) }); err != nil || !localFS(int64(fs.Type)) {
		return nil
	}
	h, err := openRoot(dir)
	if err != nil {
		return nil
	}
	defer h.close()
	ents, err := h.read(make([]byte, 8<<10), &dirBuf{}, false)
	if err != nil || len(ents) > maxListedNames {
		return nil
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		for _, c := range e.name {
			if c >= 0x80 {
				return nil
			}
		}
		names[strings.ToLower(string(e.name))] = true
	}
	return names
}

// zfsSuperMagic is ZFS's statfs magic number (x/sys has no constant).
const zfsSuperMagic = 0x2fc12fc1

// localFS reports whether a file system, by its statfs magic number, is
// one whose directory listings show every name a lookup finds.
func localFS(magic int64) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, // ext2, ext3 and ext4
		unix.XFS_SUPER_MAGIC,
		unix.BTRFS_SUPER_MAGIC,
		unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, // its listing merges the layers as its lookups do
		zfsSuperMagic:
		return true
	}
	return false
}
