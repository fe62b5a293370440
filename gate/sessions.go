package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guard-sh/guard/config"
)

// SessionTTL is how long a session's approvals last without use.
const SessionTTL = 24 * time.Hour

// touchEvery limits how often a hit rewrites the session file to record its
// use: an expiry of a day does not need second precision.
const touchEvery = time.Minute

// maxSessionID bounds a session's name (from --session or GUARD_SESSION).
const maxSessionID = 256

// NewSessionStore returns the store of "this session" answers: the session
// id's file under dir, or, with no id, a store that lasts for this
// invocation only.
func NewSessionStore(dir, id string) (SessionStore, error) {
	if id == "" {
		return &InvocationSession{}, nil
	}
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	return &SessionFile{Dir: dir, ID: id}, nil
}

// ValidSessionID refuses a session name that cannot be shown in one line.
func ValidSessionID(id string) error {
	if len(id) > maxSessionID {
		return fmt.Errorf("session id longer than %d bytes", maxSessionID)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("session id %q holds a control character", id)
		}
	}
	return nil
}

// InvocationSession keeps "this session" answers in memory: with no session
// named, an s answer lasts until guard exits.
type InvocationSession struct {
	mu   sync.Mutex
	keys map[string]bool
}

// Has reports whether key was approved for the session.
func (m *InvocationSession) Has(key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return key != "" && m.keys[key], nil
}

// Add remembers a for the session.
func (m *InvocationSession) Add(a Approval) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string]bool{}
	}
	m.keys[a.Key] = true
	return nil
}

// Scope says how long an s answer lasts.
func (m *InvocationSession) Scope() string {
	return "this invocation only (no session: name one with --session or GUARD_SESSION)"
}

// SessionFile keeps a named session's answers in a file of its own under
// Dir (guard's state directory), 0600, until the session is ended or
// SessionTTL passes without use.
type SessionFile struct {
	Dir string
	ID  string
	Now func() time.Time // for tests; time.Now when nil
}

type sessionDoc struct {
	Version  int        `json:"version"`
	Session  string     `json:"session"`
	LastUsed time.Time  `json:"last_used"`
	Rules    []Approval `json:"rules"`
}

// Path is the session's file. The name is a hash of the id, so that any id
// (slashes, dots, a thousand characters) makes one plain file name.
func (s *SessionFile) Path() string { return sessionPath(s.Dir, s.ID) }

func sessionPath(dir, id string) string {
	h := sha256.Sum256([]byte(id))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".json")
}

// Scope says how long an s answer lasts.
func (s *SessionFile) Scope() string {
	return fmt.Sprintf("session %s (until 'guard session end' or a day without use)", s.ID)
}

// Has reports whether key was approved for the session, and records the use.
func (s *SessionFile) Has(key string) (bool, error) {
	if key == "" {
		return false, nil
	}
	doc, err := s.load()
	if err != nil || doc == nil {
		return false, err
	}
	found := false
	for _, r := range doc.Rules {
		if r.Key == key {
			found = true
			break
		}
	}
	if found && s.now().Sub(doc.LastUsed) > touchEvery {
		err := withLock(s.lockPath(), func() error {
			doc, err := s.load()
			if err != nil || doc == nil {
				return err
			}
			doc.LastUsed = s.now().UTC()
			return s.save(doc)
		})
		if err != nil {
			return true, fmt.Errorf("recording the use of session %s: %w", s.ID, err)
		}
	}
	return found, nil
}

// Add remembers a for the session, and sweeps away other sessions' expired
// files.
func (s *SessionFile) Add(a Approval) error {
	if a.Key == "" {
		return errors.New("an approval without a key cannot be remembered")
	}
	if err := privateDir(s.Dir); err != nil {
		return err
	}
	if a.Added.IsZero() {
		a.Added = s.now()
	}
	a.Added = a.Added.UTC().Truncate(time.Second)
	err := withLock(s.lockPath(), func() error {
		doc, err := s.load()
		if err != nil {
			return err
		}
		if doc == nil {
			doc = &sessionDoc{Version: 1, Session: s.ID}
		}
		doc.LastUsed = s.now().UTC()
		for _, r := range doc.Rules {
			if r.Key == a.Key {
				return s.save(doc)
			}
		}
		doc.Rules = append(doc.Rules, a)
		sort.SliceStable(doc.Rules, func(i, j int) bool { return doc.Rules[i].Key < doc.Rules[j].Key })
		return s.save(doc)
	})
	if err != nil {
		return err
	}
	s.sweep()
	return nil
}

// List returns the session's approvals (none once it has expired).
func (s *SessionFile) List() ([]Approval, error) {
	doc, err := s.load()
	if err != nil || doc == nil {
		return nil, err
	}
	return doc.Rules, nil
}

// End forgets the session; it returns how many approvals it held.
func (s *SessionFile) End() (int, error) {
	n := 0
	if _, err := os.Stat(s.Dir); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	err := withLock(s.lockPath(), func() error {
		doc, err := s.load()
		if doc != nil {
			n = len(doc.Rules)
		}
		var fe *config.FileError
		if err != nil && !errors.As(err, &fe) {
			return err
		}
		// A corrupt session file is removed too: ending a session is how
		// the user gets rid of it.
		if err := os.Remove(s.Path()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
	return n, err
}

// load reads the session's file: nil when there is none or it has expired
// (then it is removed).
func (s *SessionFile) load() (*sessionDoc, error) {
	path := s.Path()
	data, st, err := readStore(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, asFileError(path, err)
	}
	if err := checkPrivate(st, path); err != nil {
		return nil, s.corrupt(err.Error())
	}
	var doc sessionDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, s.corrupt(fmt.Sprintf("not valid JSON: %v", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, s.corrupt("unexpected text after the JSON document")
	}
	if doc.Version != 1 {
		return nil, s.corrupt(fmt.Sprintf("version %d; this guard reads version 1", doc.Version))
	}
	if doc.Session != s.ID {
		// Two ids with one hash prefix: cannot happen in practice, and the
		// other session's approvals are not this one's.
		return nil, s.corrupt(fmt.Sprintf("holds session %q, not %q", doc.Session, s.ID))
	}
	if s.now().Sub(doc.LastUsed) > SessionTTL {
		os.Remove(path)
		return nil, nil
	}
	return &doc, nil
}

func (s *SessionFile) save(doc *sessionDoc) error {
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err // cannot happen: the document always marshals
	}
	if err := writeAtomic(s.Path(), append(data, '\n')); err != nil {
		return fmt.Errorf("saving session %s: %w", s.ID, err)
	}
	return nil
}

// sweep removes session files unused for longer than SessionTTL. Their
// modification time is their last use (every use rewrites them).
func (s *SessionFile) sweep() {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && s.now().Sub(info.ModTime()) > SessionTTL+touchEvery {
			os.Remove(filepath.Join(s.Dir, e.Name()))
		}
	}
}

func (s *SessionFile) lockPath() string { return filepath.Join(s.Dir, ".lock") }

func (s *SessionFile) corrupt(why string) error {
	return &config.FileError{File: s.Path(), Msg: fmt.Sprintf("session %s: %s; run 'guard session end %s' to forget it", s.ID, why, s.ID)}
}

func (s *SessionFile) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
