//go:build unix && !linux

package pathpolicy

import (
	"os"
	"path/filepath"
)

// dirHandle is an open directory, by path where there is no getdents.
type dirHandle struct{ path string }

func openRoot(p string) (dirHandle, error) {
	st, err := lstat(p)
	if err == nil && !st.dir {
		err = errNotDir
	}
	return dirHandle{p}, err
}

func (h dirHandle) open(name string) (dirHandle, error) { return openRoot(filepath.Join(h.path, name)) }
func (h dirHandle) close()                              {}
func (h dirHandle) lstat(name string) (stat, error)     { return lstat(filepath.Join(h.path, name)) }

type dirent struct {
	name []byte
	typ  entryType
}

type dirBuf struct {
	in      []dirUser
	pending []walkUser
}

type entryType uint8

const (
	typeUnknown entryType = iota
	typeDir
	typeLink
	typeFile
)

func (h dirHandle) read([]byte, *dirBuf, bool) ([]dirent, error) {
	es, err := os.ReadDir(h.path)
	if err != nil {
		return nil, err
	}
	out := make([]dirent, 0, len(es))
	for _, e := range es {
		t := typeFile
		switch {
		case e.Type()&os.ModeSymlink != 0:
			t = typeLink
		case e.IsDir():
			t = typeDir
		}
		out = append(out, dirent{name: []byte(e.Name()), typ: t})
	}
	return out, nil
}

// listedNames: without a listing guard relies on, every name is examined.
func listedNames(string) map[string]bool { return nil }
