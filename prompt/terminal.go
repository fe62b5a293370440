// Package prompt is guard's terminal approver: it asks the person at the
// terminal to approve a request, answer a question or approve a plan.
//
// It talks to /dev/tty only, never to the command's stdin or stdout (they
// belong to the command, and to the agent that reads them). Everything it
// shows that came from the request is escaped, so that a hostile command
// cannot rewrite the prompt with escape sequences or a carriage return. Input
// typed before the prompt appeared is discarded, so that no keystroke queued
// in advance answers it.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/gate"
)

// DefaultDiffLines is how many lines of a diff a prompt shows ([ui] diff_lines).
const DefaultDiffLines = 120

// maxAttempts is how many unreadable answers a prompt takes before giving up.
const maxAttempts = 10

// maxAnswer bounds one line of input.
const maxAnswer = 4096

// Terminal asks on a terminal.
type Terminal struct {
	// Open opens the terminal. When nil, /dev/tty is opened: the process's
	// controlling terminal, which a test replaces with a pseudo-terminal.
	Open func() (*os.File, error)
	// Color: colour the diff and the choices (off for NO_COLOR).
	Color bool
	// DiffLines is [ui] diff_lines; DefaultDiffLines when 0.
	DiffLines int
}

// session is one conversation with the terminal: its file, in a mode where
// guard reads keys one by one (Ctrl+C arrives as a key, not a signal).
type session struct {
	f       *os.File
	saved   *unix.Termios
	stop    func() bool
	pending []byte
	// A SIGINT, SIGTERM or SIGHUP that reaches guard while it prompts
	// (from kill, or the terminal closing) cancels the prompt, so that the
	// terminal's modes are put back before guard exits.
	signals     chan os.Signal
	done        chan struct{}
	interrupted atomic.Bool
}

func (t *Terminal) open(ctx context.Context) (*session, error) {
	open := t.Open
	if open == nil {
		open = func() (*os.File, error) {
			return os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		}
	}
	f, err := open()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gate.ErrNoApprover, err)
	}
	var saved *unix.Termios
	err = withFD(f, func(fd int) (err error) {
		saved, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a terminal", gate.ErrNoApprover, f.Name())
	}
	raw := *saved
	// No line editing, echo or signals from the kernel: guard reads keys,
	// echoes them itself and sees Ctrl+C as the byte 0x03. Output
	// processing stays, so "\n" still starts a line.
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.IXON
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	err = withFD(f, func(fd int) error {
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
			return err
		}
		// Typed before the question was shown: not an answer to it.
		return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
	})
	if err != nil {
		withFD(f, func(fd int) error { return unix.IoctlSetTermios(fd, unix.TCSETS, saved) })
		f.Close()
		return nil, fmt.Errorf("%w: %v", gate.ErrNoApprover, err)
	}
	s := &session{f: f, saved: saved, signals: make(chan os.Signal, 1), done: make(chan struct{})}
	s.stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	signal.Notify(s.signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case <-s.signals:
			s.interrupted.Store(true)
			f.SetReadDeadline(time.Now())
		case <-s.done:
		}
	}()
	return s, nil
}

func (s *session) close() {
	signal.Stop(s.signals)
	close(s.done)
	s.stop()
	withFD(s.f, func(fd int) error { return unix.IoctlSetTermios(fd, unix.TCSETS, s.saved) })
	s.f.Close()
}

// withFD runs fn on f's descriptor without taking it out of Go's poller
// (f.Fd() would make it blocking, and read deadlines, which cancel a
// prompt, would then not work).
func withFD(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

func (s *session) write(text string) error {
	_, err := io.WriteString(s.f, text)
	return err
}

// errEOF is Ctrl+D at an empty line, or the terminal going away.
var errEOF = errors.New("end of input")

// readLine reads one line, echoing what is typed. Ctrl+C cancels
// (gate.ErrCanceled), Ctrl+D on an empty line is errEOF, Backspace and Ctrl+U
// edit.
func (s *session) readLine(ctx context.Context) (string, error) {
	var line []rune
	var utf []byte
	buf := make([]byte, 64)
	for {
		if len(s.pending) == 0 {
			n, err := s.f.Read(buf)
			if n == 0 || err != nil {
				if s.interrupted.Load() {
					s.write("\r\n")
					return "", gate.ErrCanceled
				}
				if ctx.Err() != nil {
					return "", ctx.Err()
				}
				if err == nil || errors.Is(err, io.EOF) {
					return "", errEOF
				}
				if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
					continue
				}
				return "", fmt.Errorf("reading the terminal: %w", err)
			}
			s.pending = append(s.pending, buf[:n]...)
		}
		c := s.pending[0]
		s.pending = s.pending[1:]
		switch {
		case c == 0x03: // Ctrl+C
			s.write("^C\r\n")
			return "", gate.ErrCanceled
		case c == 0x04: // Ctrl+D
			if len(line) == 0 {
				s.write("^D\r\n")
				return "", errEOF
			}
		case c == '\r' || c == '\n':
			s.write("\r\n")
			// A "\r\n" pair is one Enter.
			if c == '\r' && len(s.pending) > 0 && s.pending[0] == '\n' {
				s.pending = s.pending[1:]
			}
			return string(line), nil
		case c == 0x7f || c == 0x08: // Backspace
			if len(line) > 0 {
				line = line[:len(line)-1]
				s.write("\b \b")
			}
		case c == 0x15: // Ctrl+U
			for range line {
				s.write("\b \b")
			}
			line = line[:0]
		case c == 0x1b:
			// An escape sequence (arrow keys): dropped with what follows it
			// in this read.
			s.pending = s.pending[:0]
		case c < 0x20:
			// Other control keys are not part of an answer.
		case c < 0x80:
			if len(line) < maxAnswer {
				line = append(line, rune(c))
				s.f.Write([]byte{c})
			}
		default:
			utf = append(utf, c)
			if r, size := decodeRune(utf); size > 0 {
				utf = utf[:0]
				if r != 0xFFFD && len(line) < maxAnswer && printable(r) {
					line = append(line, r)
					s.write(string(r))
				}
			} else if len(utf) >= 4 {
				utf = utf[:0]
			}
		}
	}
}
