package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/guard-sh/guard/config"
)

// Approval is one remembered answer: the key it covers, how the prompt said
// it, and when it was given.
type Approval struct {
	Key   string    `json:"key"`
	Label string    `json:"label"`
	Added time.Time `json:"added"`
}

// approvalsVersion is the only version of approvals.json guard reads.
const approvalsVersion = 1

// maxStoreSize bounds a store file guard reads: thousands of approvals fit
// in far less, and a bigger file is not one guard wrote.
const maxStoreSize = 32 << 20

type approvalsDoc struct {
	Version int        `json:"version"`
	Rules   []Approval `json:"rules"`
}

// ApprovalFile is the saved approvals, approvals.json (seed APR-20):
// {"version":1,"rules":[{"key","label","added"}]}, sorted by key, replaced
// atomically under a lock so that concurrent guard processes lose nothing.
// A missing file is empty; a corrupt one is a [*config.FileError] (exit 78),
// never reset.
type ApprovalFile struct {
	Path string
	Now  func() time.Time // for tests; time.Now when nil
}

// Has reports whether key is saved. The empty key never is.
//
// It checks the whole file as List does (a corrupt file is an error, not
// an absent key), but reads the shape guard writes without decoding it
// into values (see scanApprovals), and decodes only what it cannot read so.
func (s *ApprovalFile) Has(key string) (bool, error) {
	if key == "" {
		return false, nil
	}
	data, st, err := readStore(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, asFileError(s.Path, err)
	}
	if err := checkPrivate(st, s.Path); err != nil {
		return false, s.corrupt(err.Error())
	}
	if found, ok := scanApprovals(data, key); ok {
		return found, nil
	}
	rules, err := s.decode(data)
	if err != nil {
		return false, err
	}
	i := sort.Search(len(rules), func(i int) bool { return rules[i].Key >= key })
	return i < len(rules) && rules[i].Key == key, nil
}

// List returns the saved approvals, sorted by key.
func (s *ApprovalFile) List() ([]Approval, error) {
	data, st, err := readStore(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, asFileError(s.Path, err)
	}
	if err := checkPrivate(st, s.Path); err != nil {
		return nil, s.corrupt(err.Error())
	}
	return s.decode(data)
}

// Add saves a, keeping the first time a key was added.
func (s *ApprovalFile) Add(a Approval) error {
	if a.Key == "" {
		return errors.New("an approval without a key cannot be saved")
	}
	if a.Added.IsZero() {
		a.Added = s.now()
	}
	a.Added = a.Added.UTC().Truncate(time.Second)
	return s.update(func(rules []Approval) ([]Approval, bool) {
		for _, r := range rules {
			if r.Key == a.Key {
				return rules, false
			}
		}
		return append(rules, a), true
	})
}

// Revoke removes key; it reports whether the key was saved.
func (s *ApprovalFile) Revoke(key string) (bool, error) {
	found := false
	err := s.update(func(rules []Approval) ([]Approval, bool) {
		out := rules[:0]
		for _, r := range rules {
			if r.Key == key {
				found = true
				continue
			}
			out = append(out, r)
		}
		return out, found
	})
	return found, err
}

// Clear removes every saved approval and returns how many there were.
func (s *ApprovalFile) Clear() (int, error) {
	n := 0
	err := s.update(func(rules []Approval) ([]Approval, bool) {
		n = len(rules)
		return []Approval{}, n > 0
	})
	return n, err
}

// update reads, changes and rewrites the file under its lock.
func (s *ApprovalFile) update(change func([]Approval) ([]Approval, bool)) error {
	if err := privateDir(filepath.Dir(s.Path)); err != nil {
		return err
	}
	return withLock(s.Path+".lock", func() error {
		rules, err := s.List()
		if err != nil {
			return err
		}
		rules, changed := change(rules)
		if !changed {
			return nil
		}
		sort.SliceStable(rules, func(i, j int) bool { return rules[i].Key < rules[j].Key })
		if rules == nil {
			rules = []Approval{}
		}
		data, err := json.MarshalIndent(approvalsDoc{Version: approvalsVersion, Rules: rules}, "", "  ")
		if err != nil {
			return err // cannot happen: the document always marshals
		}
		if err := writeAtomic(s.Path, append(data, '\n')); err != nil {
			return fmt.Errorf("saving %s: %w", s.Path, err)
		}
		return nil
	})
}

func (s *ApprovalFile) decode(data []byte) ([]Approval, error) {
	var doc approvalsDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, s.corrupt(fmt.Sprintf("not valid JSON: %v", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, s.corrupt("unexpected text after the JSON document")
	}
	if doc.Version != approvalsVersion {
		return nil, s.corrupt(fmt.Sprintf("version %d; this guard reads version %d", doc.Version, approvalsVersion))
	}
	for i, r := range doc.Rules {
		if r.Key == "" {
			return nil, s.corrupt(fmt.Sprintf("rule %d has no key", i+1))
		}
	}
	sort.SliceStable(doc.Rules, func(i, j int) bool { return doc.Rules[i].Key < doc.Rules[j].Key })
	return doc.Rules, nil
}

func (s *ApprovalFile) corrupt(why string) error {
	return &config.FileError{File: s.Path, Msg: why + "; guard will not use or reset it: fix it, or move it away to start with no saved approvals"}
}

func (s *ApprovalFile) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// readStore reads a store file of at most maxStoreSize bytes.
func readStore(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > maxStoreSize {
		return nil, nil, &config.FileError{File: path, Msg: fmt.Sprintf("%d bytes: larger than any store guard writes (%d); move it away", st.Size(), maxStoreSize)}
	}
	// io.ReadAll, into a buffer of the size stat gave (and a byte more, to
	// see the end): growing one as the file is read copies it over and over.
	r := io.LimitReader(f, maxStoreSize+1)
	data := make([]byte, 0, st.Size()+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, st, nil
		}
		if err != nil {
			return data, st, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// asFileError makes a store's read error a configuration error naming the
// file (exit 78), keeping one that already is.
func asFileError(path string, err error) error {
	var fe *config.FileError
	if errors.As(err, &fe) {
		return err
	}
	return &config.FileError{File: path, Msg: fmt.Sprintf("cannot read: %v", unwrapPath(err))}
}

// unwrapPath drops the *os.PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
