package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSettingsSize bounds a settings file. A project's files come with the
// repository: one that is a symlink to /dev/zero, or a gigabyte of text,
// must not take guard down with it.
const maxSettingsSize = 1 << 20

// readSettings reads a settings file. A file that is not there (nor its
// directory) is no settings at all: ok is false and err nil. Anything else
// that keeps guard from reading it is a *FileError: a settings file guard
// cannot read must stop it, not be skipped.
func readSettings(path string) (data []byte, ok bool, err error) {
	return readSettingsWithin(path, "")
}

// readSettingsWithin is readSettings for a file that must resolve to a
// path inside dir (when dir is not ""). A project's .guard/settings.toml
// that is a symlink to ~/.aws/credentials would otherwise have guard read
// the user's secrets and quote them in a parse error, to whoever runs it.
func readSettingsWithin(path, dir string) (data []byte, ok bool, err error) {
	outside := func(real string) error {
		return &FileError{File: path, Msg: fmt.Sprintf("leads to %q, outside the workspace; a project's settings must be files in the project", real)}
	}
	if dir != "" {
		// Most projects have no .guard/: one lstat says so, where resolving
		// the path would examine each of its directories first.
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil
		}
		if real, err := filepath.EvalSymlinks(path); err == nil && !isWithin(real, dir) {
			return nil, false, outside(real)
		}
	}
	// O_NONBLOCK: opening a FIFO planted as a settings file must not hang.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil
		}
		return nil, false, &FileError{File: path, Msg: fmt.Sprintf("cannot read settings: %v", unwrapPath(err))}
	}
	defer f.Close()
	if dir != "" {
		// The file opened is the one to judge: a link swapped after the
		// check above shows here.
		if real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); err == nil && !isWithin(real, dir) {
			return nil, false, outside(real)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, false, &FileError{File: path, Msg: fmt.Sprintf("cannot read settings: %v", unwrapPath(err))}
	}
	if !fi.Mode().IsRegular() {
		return nil, false, &FileError{File: path, Msg: fmt.Sprintf("not a regular file (%s); settings must be a TOML file", fileKind(fi.Mode()))}
	}
	data, err = io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return nil, false, &FileError{File: path, Msg: fmt.Sprintf("cannot read settings: %v", unwrapPath(err))}
	}
	if len(data) > maxSettingsSize {
		return nil, false, &FileError{File: path, Msg: fmt.Sprintf("larger than %d bytes; settings files are small, is this the right file?", maxSettingsSize)}
	}
	return data, true, nil
}

// isWithin reports whether path is dir or below it.
func isWithin(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
