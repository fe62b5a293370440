// Package integration tests the built guard binary end to end, under the real
// kernel: real settings files in a temporary home, real programs, real
// sandboxes. Nothing here is mocked. A test skips only where the kernel lacks
// the feature it proves, and then says why.
package integration

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// guardBin is the binary under test, built once per run by TestMain, and
// probeBin the program the tests run inside the sandbox (./probe).
var guardBin, probeBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "guard-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	guardBin = filepath.Join(dir, "guard")
	probeBin = filepath.Join(dir, "probe")
	_, here, _, _ := runtime.Caller(0)
	for pkg, out := range map[string]string{"./cmd/guard": guardBin, "./integration/probe": probeBin} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Dir = filepath.Dir(filepath.Dir(here))
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if b, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, b)
			return 1
		}
	}
	return m.Run()
}

// world is one test's machine: a home with guard's config and state in it,
// a workspace (a git repository unless told otherwise) and the environment
// guard runs with.
type world struct {
	t         *testing.T
	root      string
	home      string
	workspace string
	configDir string // $XDG_CONFIG_HOME/guard
	stateDir  string // $XDG_STATE_HOME/guard
	managed   string
	env       []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	// Resolve the temp dir's own symlinks so that paths compare as the
	// kernel sees them.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{
		t:         t,
		root:      root,
		home:      filepath.Join(root, "home"),
		workspace: filepath.Join(root, "home", "proj"),
		managed:   filepath.Join(root, "managed.toml"),
	}
	w.configDir = filepath.Join(w.home, ".config", "guard")
	w.stateDir = filepath.Join(w.home, ".local", "state", "guard")
	for _, d := range []string{w.workspace, filepath.Join(w.home, ".config"), filepath.Join(w.home, ".local", "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"GUARD_MANAGED_SETTINGS=" + w.managed,
		"LANG=C.UTF-8",
	}
	w.git("init", "-q", "-b", "main")
	w.git("config", "user.email", "t@example.com")
	w.git("config", "user.name", "t")
	return w
}

// git runs git in the workspace, outside guard.
func (w *world) git(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = w.workspace
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// write creates a file (and its directories) with the given content.
func (w *world) write(path, content string) string {
	w.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.workspace, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// settings writes the user's global settings file.
func (w *world) settings(toml string) {
	w.t.Helper()
	w.write(filepath.Join(w.configDir, "settings.toml"), toml)
}

// result is what a run of guard did.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// guard runs the binary in the workspace with no terminal and no stdin.
func (w *world) guard(args ...string) result {
	w.t.Helper()
	return w.guardIn(w.workspace, "", args...)
}

// guardIn runs the binary in dir with stdin.
func (w *world) guardIn(dir, stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = dir
	cmd.Env = w.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// No controlling terminal: guard must not find one to ask.
	cmd.SysProcAttr = noTTY()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		w.t.Fatalf("guard %s: still running after 2 minutes", strings.Join(args, " "))
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ee.ExitCode() < 0 {
			r.code = -1
		}
	case err != nil:
		w.t.Fatal(err)
	}
	return r
}

// expect fails the test unless r exited with code.
func (r result) expect(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	return r
}

// exists reports whether path is there (not following a final symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// tcpServer listens on a loopback port for the test's length, accepting
// and closing every connection, and returns its address.
func tcpServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}
