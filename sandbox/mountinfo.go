package sandbox

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// mountEntry is a line of /proc/self/mountinfo: which part (Root) of which
// file system (Dev) is mounted where (Point).
type mountEntry struct {
	ID, Parent int
	Dev        string // major:minor
	Root       string // the directory of the file system that is mounted
	Point      string // where it is mounted
}

// parseMountinfo reads /proc/<pid>/mountinfo (proc(5)). Paths in it have
// space, tab, newline and backslash escaped as octal. Only the first five
// fields are read.
func parseMountinfo(data []byte) ([]mountEntry, error) {
	out := make([]mountEntry, 0, bytes.Count(data, []byte{'\n'})+1)
	seen := make(map[int]bool, cap(out))
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		var f [5][]byte
		nf := 0
		for nf < 5 {
			line = bytes.TrimLeft(line, " \t")
			if len(line) == 0 {
				break
			}
			end := bytes.IndexAny(line, " \t")
			if end < 0 {
				end = len(line)
			}
			f[nf], line = line[:end], line[end:]
			nf++
		}
		if nf == 0 {
			continue
		}
		if nf < 5 {
			return nil, fmt.Errorf("mountinfo line %d: %d fields, want at least 5", n, nf)
		}
		id, err1 := strconv.Atoi(string(f[0]))
		parent, err2 := strconv.Atoi(string(f[1]))
		if err1 != nil || err2 != nil || bytes.IndexByte(f[2], ':') < 0 {
			return nil, fmt.Errorf("mountinfo line %d: bad ids %q %q %q", n, f[0], f[1], f[2])
		}
		root, err1 := unescapeMountPath(string(f[3]))
		point, err2 := unescapeMountPath(string(f[4]))
		if err1 != nil || err2 != nil || !path.IsAbs(root) || !path.IsAbs(point) {
			return nil, fmt.Errorf("mountinfo line %d: bad path", n)
		}
		if seen[id] {
			return nil, fmt.Errorf("mountinfo line %d: mount %d twice", n, id)
		}
		seen[id] = true
		out = append(out, mountEntry{ID: id, Parent: parent, Dev: string(f[2]), Root: path.Clean(root), Point: path.Clean(point)})
	}
	return out, nil
}

// unescapeMountPath undoes the kernel's octal escapes (\040 for a space).
func unescapeMountPath(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// mountOf returns the mount a clean absolute path is on: the deepest mount
// point that holds it, the last mounted where several share a point.
func mountOf(mounts []mountEntry, p string) (mountEntry, bool) {
	best := -1
	for i, m := range mounts {
		if !within(p, m.Point) {
			continue
		}
		if best < 0 || len(m.Point) >= len(mounts[best].Point) {
			best = i
		}
	}
	if best < 0 {
		return mountEntry{}, false
	}
	return mounts[best], true
}

// aliases returns the other paths at which the file at p can be reached,
// through other mounts of the same file system (bind mounts): a file
// blocked at one path must be blocked at all of them, or reading it is one
// "cat /mnt/bind/..." away.
func aliases(mounts []mountEntry, p string) []string {
	m, ok := mountOf(mounts, p)
	if !ok {
		return nil
	}
	inFS := path.Join(m.Root, strings.TrimPrefix(p, m.Point))
	var out []string
	seen := map[string]bool{p: true}
	for _, o := range mounts {
		if o.Dev != m.Dev || !within(inFS, o.Root) {
			continue
		}
		alias := path.Join(o.Point, strings.TrimPrefix(inFS, o.Root))
		if seen[alias] {
			continue
		}
		// The alias leads to this file only if no other mount covers it.
		if top, ok := mountOf(mounts, alias); !ok || top.ID != o.ID {
			continue
		}
		seen[alias] = true
		out = append(out, alias)
	}
	return out
}
