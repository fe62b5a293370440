package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/rule"
)

// fixture is one test's machine: a home with guard's config directory, a
// workspace, and a managed settings file, all real files in a temp dir.
type fixture struct {
	t       *testing.T
	root    string
	opts    LoadOptions
	env     map[string]string
	managed string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: root, env: map[string]string{}}
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{ws, filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.managed = filepath.Join(root, "managed.toml")
	f.opts = LoadOptions{
		Home:              home,
		Workspace:         ws,
		ManagedFile:       f.managed,
		SystemManagedFile: filepath.Join(root, "etc", "guard", "managed.toml"),
		RuntimeDir:        filepath.Join(root, "run", "user", "1000"),
		LookupEnv: func(k string) (string, bool) {
			v, ok := f.env[k]
			return v, ok
		},
	}
	return f
}

func (f *fixture) home() string      { return f.opts.Home }
func (f *fixture) workspace() string { return f.opts.Workspace }
func (f *fixture) paths() Paths      { return DefaultPaths(f.opts) }

// file returns the path of a source's settings file.
func (f *fixture) file(src string) string {
	p := f.paths()
	switch src {
	case "managed":
		return p.ManagedFile
	case "global":
		return p.GlobalFile
	case "workspace":
		return p.WorkspaceFile
	case "project":
		return p.ProjectFiles[0]
	case "project-local":
		return p.ProjectFiles[1]
	}
	f.t.Fatalf("no source %q", src)
	return ""
}

// write writes a source's settings file (or any path, when it has a slash).
func (f *fixture) write(src, content string) string {
	f.t.Helper()
	path := src
	if !strings.Contains(src, "/") {
		path = f.file(src)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f *fixture) load() *Settings {
	f.t.Helper()
	s, err := Load(f.opts)
	if err != nil {
		f.t.Fatalf("Load: %v", err)
	}
	return s
}

func (f *fixture) loadErr() error {
	f.t.Helper()
	_, err := Load(f.opts)
	if err == nil {
		f.t.Fatal("Load succeeded; want an error")
	}
	return err
}

// trust records trust in the project as it is now.
func (f *fixture) trust() {
	f.t.Helper()
	s := f.load()
	if _, err := RecordTrust(s, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		f.t.Fatal(err)
	}
}

// hasWarning reports whether a warning holds every one of parts.
func hasWarning(s *Settings, parts ...string) bool {
	for _, w := range s.Warnings {
		ok := true
		for _, p := range parts {
			if !strings.Contains(w.String(), p) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func warningsText(s *Settings) string {
	var b strings.Builder
	for _, w := range s.Warnings {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

// ruleStrings lists rules as "action rule source line".
func ruleStrings(rs []rule.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Action)+" "+r.String()+" "+string(r.Source))
	}
	return out
}

func hasRule(rs []rule.Rule, action rule.Action, text string) bool {
	want, err := rule.New(action, text)
	if err != nil {
		panic(err)
	}
	for _, r := range rs {
		if r.Action == action && r.String() == want.String() {
			return true
		}
	}
	return false
}

func asFileError(t *testing.T, err error) *FileError {
	t.Helper()
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FileError", err, err)
	}
	return fe
}

func asFlagError(t *testing.T, err error) *FlagError {
	t.Helper()
	var fe *FlagError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FlagError", err, err)
	}
	return fe
}
