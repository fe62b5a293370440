// Package audit writes and reads guard's audit log: one JSON object per line,
// one line per decision of the gate, in $XDG_STATE_HOME/guard/audit.jsonl.
//
// Many guard processes append to the same log at once. Each record is one
// write(2) on a descriptor opened with O_APPEND, so lines never interleave;
// past [MaxSize] the log is rotated under a lock, keeping [Keep] old files.
package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Limits of the log. Each is a bound on what a hostile command can make guard
// write: a command of a megabyte is logged by its first [MaxDetail] bytes.
const (
	// MaxSize is the size past which the log is rotated.
	MaxSize = 16 << 20
	// Keep is how many rotated logs are kept (audit.jsonl.1 ... .Keep).
	Keep = 3
	// MaxDetail is the most of a detail, a target, a message or a comment
	// that a record keeps.
	MaxDetail = 2000
	// MaxTargets is the most targets a record lists.
	MaxTargets = 64
)

// Record is one decision.
type Record struct {
	Time      time.Time `json:"time"`
	Workspace string    `json:"workspace,omitempty"`
	Session   string    `json:"session,omitempty"`
	Mode      string    `json:"mode,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Kind      string    `json:"kind"`
	Detail    string    `json:"detail"`
	Targets   []string  `json:"targets,omitempty"`
	// Decision is allow, deny, or ask (a request handed on to someone).
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Rule     string `json:"rule,omitempty"`
	// Source is the rule's source (global, workspace, project, managed,
	// flag, built-in) or what else decided (user, mode, reviewer, hook,
	// session, approvals).
	Source string `json:"source,omitempty"`
	// Where is the file and line of the rule, when it came from a file.
	Where string `json:"where,omitempty"`
	// WaitedMS is the time spent waiting for the user, in milliseconds.
	WaitedMS int64  `json:"waited_ms"`
	Message  string `json:"message,omitempty"`
	// Comment is what the user, the reviewer or a hook said.
	Comment string `json:"comment,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// Truncated is set when a field was cut to the limits above.
	Truncated bool `json:"truncated,omitempty"`
}

// Log appends records to the file at Path.
type Log struct {
	Path string
	// MaxSize overrides the package's [MaxSize] when positive (tests).
	MaxSize int64
}

// Append writes rec as one line. It creates the log (0600) and its directory
// (0700) when missing. The line is written with a single write on an O_APPEND
// descriptor: concurrent writers never interleave.
func (l *Log) Append(rec Record) error {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	if rec.PID == 0 {
		rec.PID = os.Getpid()
	}
	rec.limit()
	line, err := marshal(&rec)
	if err != nil {
		return fmt.Errorf("audit: %w", err) // a time encoding/json refuses (year outside 0-9999)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	f, err := l.open()
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(line)) > l.maxSize() {
		f.Close()
		if err := l.rotate(int64(len(line))); err != nil {
			return err
		}
		if f, err = l.open(); err != nil {
			return err
		}
	}
	n, err := f.Write(line)
	cerr := f.Close()
	switch {
	case err != nil:
		return fmt.Errorf("audit log %s: %w", l.Path, err)
	case n != len(line):
		return fmt.Errorf("audit log %s: short write", l.Path)
	case cerr != nil:
		return fmt.Errorf("audit log %s: %w", l.Path, cerr)
	}
	return nil
}

func (l *Log) maxSize() int64 {
	if l.MaxSize > 0 {
		return l.MaxSize
	}
	return MaxSize
}

// open opens the log for appending. O_NOFOLLOW: a symlink planted in its place
// would send guard's writes elsewhere.
func (l *Log) open() (*os.File, error) {
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return f, nil
}

// rotate renames the log to .1 (and .1 to .2, ...), under a lock so that two
// processes that both find the log full rotate it once.
func (l *Log) rotate(need int64) error {
	lock, err := os.OpenFile(l.Path+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("audit log: lock: %w", err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	st, err := os.Lstat(l.Path)
	if err != nil || st.Size()+need <= l.maxSize() {
		return nil // another process rotated it first
	}
	for i := Keep - 1; i >= 1; i-- {
		os.Rename(l.Path+"."+strconv.Itoa(i), l.Path+"."+strconv.Itoa(i+1))
	}
	if err := os.Rename(l.Path, l.Path+".1"); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	return nil
}

// Files returns the log's files that exist, oldest first.
func (l *Log) Files() []string {
	var out []string
	for i := Keep; i >= 1; i-- {
		p := l.Path + "." + strconv.Itoa(i)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	if _, err := os.Lstat(l.Path); err == nil {
		out = append(out, l.Path)
	}
	return out
}

// limit cuts the record's free-text fields to the package's limits.
func (r *Record) limit() {
	cut := func(s *string) {
		if len(*s) > MaxDetail {
			*s = truncate(*s, MaxDetail)
			r.Truncated = true
		}
	}
	cut(&r.Detail)
	cut(&r.Message)
	cut(&r.Comment)
	cut(&r.Rule)
	if len(r.Targets) > MaxTargets {
		r.Targets = append(r.Targets[:MaxTargets:MaxTargets], fmt.Sprintf("... %d more", len(r.Targets)-MaxTargets))
		r.Truncated = true
	} else if r.Targets != nil {
		r.Targets = append([]string(nil), r.Targets...)
	}
	for i := range r.Targets {
		cut(&r.Targets[i])
	}
}

// truncate cuts s to at most n bytes on a rune boundary and marks the cut.
func truncate(s string, n int) string {
	const mark = "…"
	n -= len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

// ErrNoLog is returned by readers when the log does not exist yet.
var ErrNoLog = errors.New("no audit log yet: guard has decided nothing here")
