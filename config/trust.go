package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/guard-sh/guard/rule"
)

// TrustState is whether a workspace's project settings may loosen anything.
type TrustState string

// Trust states of a project's .guard/ settings.
const (
	TrustNone      TrustState = "none"      // the project has no settings files
	TrustUntrusted TrustState = "untrusted" // never trusted
	TrustTrusted   TrustState = "trusted"   // trusted, unchanged since
	TrustChanged   TrustState = "changed"   // trusted once, changed since
)

// Project is what guard knows about a workspace's .guard/ settings.
type Project struct {
	Files     []string // the project settings files that exist
	Digest    string   // SHA-256 of their names and contents, as read for this load
	Trust     TrustState
	TrustedAt time.Time // when the recorded trust was given (trusted or changed)
	// Loosening lists what the files would loosen: it applies only when
	// Trust is TrustTrusted. Ignored says it was left out.
	Loosening []Loosening
	Ignored   bool
}

// Loosening is one loosening setting of a project file.
type Loosening struct {
	File string
	Line int
	What string     // "allow shell(make *)", "network = \"on\"", ...
	Rule *rule.Rule // for an allow rule, the rule
}

func (l Loosening) String() string {
	if l.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.What)
	}
	return fmt.Sprintf("%s: %s", l.File, l.What)
}

// trustRecords is trust.json.
type trustRecords struct {
	Version    int                    `json:"version"`
	Workspaces map[string]trustRecord `json:"workspaces"`
}

type trustRecord struct {
	SHA256  string    `json:"sha256"`
	Trusted time.Time `json:"trusted"`
	Files   []string  `json:"files"`
}

// projectFile is a project settings file as read: its name relative to the
// workspace, and its bytes (nil when missing).
type projectFile struct {
	name   string
	data   []byte
	exists bool
}

// projectDigest hashes the project files' names and contents, each length-
// prefixed so that no two sets of files hash alike by moving bytes from one
// to the next, and a missing file differs from an empty one.
func projectDigest(files []projectFile) string {
	h := sha256.New()
	h.Write([]byte("guard-trust-v1\n"))
	for _, f := range files {
		h.Write([]byte(strconv.Itoa(len(f.name)) + ":" + f.name))
		if !f.exists {
			h.Write([]byte("-\n"))
			continue
		}
		h.Write([]byte("+" + strconv.Itoa(len(f.data)) + ":"))
		h.Write(f.data)
		h.Write([]byte("\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readTrust reads trust.json; a missing file is no trust at all.
func readTrust(path string) (trustRecords, error) {
	recs := trustRecords{Version: 1, Workspaces: map[string]trustRecord{}}
	data, ok, err := readSettings(path)
	if err != nil || !ok {
		return recs, err
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		return recs, &FileError{File: path, Msg: fmt.Sprintf("corrupt trust records (%v); delete the file and run 'guard trust' again in each project you trust", err)}
	}
	if recs.Version != 1 {
		return recs, &FileError{File: path, Msg: fmt.Sprintf("trust records of version %d; this guard reads version 1", recs.Version)}
	}
	if recs.Workspaces == nil {
		recs.Workspaces = map[string]trustRecord{}
	}
	return recs, nil
}

// trustOf says whether the digest is the one trusted for workspace.
func trustOf(recs trustRecords, workspace, digest string) (TrustState, time.Time) {
	r, ok := recs.Workspaces[workspace]
	switch {
	case !ok:
		return TrustUntrusted, time.Time{}
	case r.SHA256 == digest:
		return TrustTrusted, r.Trusted
	}
	return TrustChanged, r.Trusted
}

// RecordTrust trusts the project settings of s.Paths.Workspace exactly as
// they were read into s (s.Project.Digest): a file changed since s was
// loaded is not trusted by it. It reports false when that trust was already
// recorded. trust.json is written atomically, 0600 in a 0700 directory.
func RecordTrust(s *Settings, now time.Time) (bool, error) {
	if s.Project.Trust == TrustNone {
		return false, errors.New("no project settings to trust")
	}
	path := s.Paths.TrustFile
	changed := false
	err := withLock(path, func() error {
		recs, err := readTrust(path)
		if err != nil {
			return err
		}
		if r, ok := recs.Workspaces[s.Paths.Workspace]; ok && r.SHA256 == s.Project.Digest {
			return nil
		}
		var names []string
		for _, f := range s.Project.Files {
			rel, err := filepath.Rel(s.Paths.Workspace, f)
			if err != nil {
				rel = f
			}
			names = append(names, rel)
		}
		recs.Workspaces[s.Paths.Workspace] = trustRecord{SHA256: s.Project.Digest, Trusted: now.UTC().Truncate(time.Second), Files: names}
		data, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(path, append(data, '\n'), 0o600, false); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			return false, err
		}
		return false, fmt.Errorf("recording trust in %s: %w", path, err)
	}
	return changed, nil
}
