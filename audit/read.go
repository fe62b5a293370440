package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// Entry is one line of the log: its record, or why it is not one.
type Entry struct {
	File   string
	Line   int
	Raw    []byte // the line without its newline
	Record Record
	Err    error // the line is not a record (the log was edited or cut)
}

// maxLine bounds a line the reader accepts; a record is far smaller (every
// free-text field is cut to MaxDetail), so a longer line is not guard's.
const maxLine = 4 << 20

// Read calls fn for every line of the log, oldest file first. It returns
// [ErrNoLog] when there is no log, and stops at fn's first error.
func (l *Log) Read(fn func(Entry) error) error {
	files := l.Files()
	if len(files) == 0 {
		return ErrNoLog
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		err = readLines(f, name, fn)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readLines reads the lines of r. An incomplete last line (a writer
// mid-write, or a log cut short) is reported as an entry with an error.
func readLines(r io.Reader, name string, fn func(Entry) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, complete, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit log %s: %w", name, err)
		}
		e := parse(name, n, line)
		if !complete {
			e.Err = fmt.Errorf("%s:%d: incomplete last line (%d bytes)", name, n, len(line))
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// readLine returns the next line without its newline, whether it ended with
// one, and io.EOF when nothing is left. Bytes past maxLine are dropped.
func readLine(br *bufio.Reader) (line []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if room := maxLine - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(line) == 0 {
				return nil, false, io.EOF
			}
			return line, false, nil
		case err != nil:
			return nil, false, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), true, nil
	}
}

func parse(name string, n int, line []byte) Entry {
	e := Entry{File: name, Line: n, Raw: append([]byte(nil), line...)}
	if len(line) >= maxLine {
		e.Err = fmt.Errorf("%s:%d: line longer than %d bytes: not a record of guard's", name, n, maxLine)
		return e
	}
	if err := json.Unmarshal(line, &e.Record); err != nil {
		e.Err = fmt.Errorf("%s:%d: not a record: %v", name, n, err)
	} else if e.Record.Decision == "" || e.Record.Reason == "" {
		e.Err = fmt.Errorf("%s:%d: not a record: no decision or reason", name, n)
	}
	return e
}

// Follow calls fn for every line of the current log, then for each line
// appended, until ctx ends. It follows the log across rotation. poll is how
// often it looks for new lines.
func (l *Log) Follow(ctx context.Context, poll time.Duration, fn func(Entry) error) error {
	var (
		f    *os.File
		ino  uint64
		line int
		br   *bufio.Reader
	)
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	open := func() error {
		nf, err := os.Open(l.Path)
		if err != nil {
			return err
		}
		st, err := nf.Stat()
		if err != nil {
			nf.Close()
			return err
		}
		if f != nil {
			f.Close()
		}
		f, ino, line, br = nf, inode(st), 0, bufio.NewReaderSize(nf, 64<<10)
		return nil
	}
	var pending []byte
	for {
		if f == nil {
			if err := open(); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("audit log: %w", err)
			}
		}
		if f != nil {
			for {
				chunk, err := br.ReadBytes('\n')
				pending = append(pending, chunk...)
				if err != nil && len(pending) < maxLine {
					break // the rest of the line is not written yet
				}
				line++
				if ferr := fn(parse(l.Path, line, bytes.TrimSuffix(pending, []byte("\n")))); ferr != nil {
					return ferr
				}
				pending = pending[:0]
			}
			// Rotated: the name now holds another file. What was left in the
			// old one has been read above; start on the new one.
			if st, err := os.Stat(l.Path); err == nil && inode(st) != ino {
				f.Close()
				f, pending = nil, pending[:0]
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}

// Format is a record as one line of the human table of `guard audit`.
func Format(r Record) string {
	rule := ""
	if r.Rule != "" {
		rule = "  " + display(r.Rule, 60)
		if r.Source != "" {
			rule += " (" + r.Source + ")"
		}
	} else if r.Source != "" {
		rule = "  (" + r.Source + ")"
	}
	waited := ""
	if r.WaitedMS > 0 {
		waited = fmt.Sprintf("  waited %s", (time.Duration(r.WaitedMS) * time.Millisecond).Round(100*time.Millisecond))
	}
	return fmt.Sprintf("%s  %-5s  %-20s  %-11s  %s%s%s",
		r.Time.Local().Format("2006-01-02 15:04:05"), r.Decision, r.Reason, r.Kind, display(r.Detail, 80), rule, waited)
}

// Header is the first line of the human table.
func Header() string {
	return fmt.Sprintf("%-19s  %-5s  %-20s  %-11s  %s", "TIME", "DEC", "REASON", "KIND", "DETAIL  RULE (SOURCE)")
}

// display makes s safe to print on a terminal (a logged command may hold
// escape sequences that would rewrite the screen) and at most n runes long.
func display(s string, n int) string {
	safe := true
	for _, r := range s {
		if !unicode.IsPrint(r) {
			safe = false
			break
		}
	}
	if !safe {
		s = strconv.Quote(s)
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return strings.TrimSpace(s)
}
