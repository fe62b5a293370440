package integration

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// probe runs the probe program under guard exec in bypass mode (nothing
// asks; the sandbox alone decides) and reports whether the action was done.
func (w *world) probe(t *testing.T, extra []string, args ...string) (bool, result) {
	t.Helper()
	full := append([]string{"exec", "--mode", "bypass"}, extra...)
	full = append(full, "--", probeBin)
	r := w.guard(append(full, args...)...)
	switch r.code {
	case 0:
		return true, r
	case 1:
		return false, r
	}
	t.Fatalf("probe %v: unexpected exit: %s", args, r)
	return false, r
}

// bare runs the probe outside guard: the action must be possible at all,
// or a refusal under guard proves nothing.
func bare(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(probeBin, args...).CombinedOutput(); err != nil {
		t.Fatalf("outside the sandbox, probe %v fails too (%v: %s): the test proves nothing", args, err, out)
	}
}

// TestSandboxFiles proves, through guard exec, the sandbox's file
// guarantees: each refused action beside the same kind of action allowed.
func TestSandboxFiles(t *testing.T) {
	w := newWorld(t)
	w.settings(`[permissions]
deny = ["read(~/.ssh)"]
`)
	secret := w.write(filepath.Join(w.home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	notes := w.write(filepath.Join(w.home, "notes.txt"), "notes\n")
	w.write(".guard/settings.toml", "# the project's settings\n")
	os.MkdirAll(filepath.Join(w.workspace, ".git", "hooks"), 0o755)
	must(t, os.Symlink(secret, filepath.Join(w.workspace, "innocent.txt")))
	target := w.write(filepath.Join(w.home, "target.txt"), "original\n")
	must(t, os.Symlink(target, filepath.Join(w.workspace, "planted")))
	w.write("mine.txt", "mine\n")
	approvals := w.write(filepath.Join(w.configDir, "approvals.json"), `{"version":1,"rules":[]}`+"\n")

	tests := []struct {
		name    string
		args    []string
		allowed bool
	}{
		{"read a file outside the workspace", []string{"read", notes}, true},
		{"read a blocked file", []string{"read", secret}, false},
		{"read it through a symlink planted in the workspace", []string{"read", filepath.Join(w.workspace, "innocent.txt")}, false},
		{"read it through /proc/self/root", []string{"read", "/proc/self/root" + secret}, false},
		{"read it through ..", []string{"read", filepath.Join(w.workspace, "..", ".ssh", "id_ed25519")}, false},
		{"hard-link it into the workspace", []string{"link", secret, filepath.Join(w.workspace, "hl")}, false},
		{"write in the workspace", []string{"write", filepath.Join(w.workspace, "new.txt")}, true},
		{"write outside the workspace", []string{"write", filepath.Join(w.home, "out.txt")}, false},
		{"write through a planted symlink", []string{"write", filepath.Join(w.workspace, "planted")}, false},
		{"rename a file out of the workspace", []string{"rename", filepath.Join(w.workspace, "mine.txt"), filepath.Join(w.home, "moved.txt")}, false},
		{"write a git hook", []string{"write", filepath.Join(w.workspace, ".git", "hooks", "pre-commit")}, false},
		{"append to .git/config", []string{"append", filepath.Join(w.workspace, ".git", "config")}, false},
		{"write the project's guard settings", []string{"write", filepath.Join(w.workspace, ".guard", "settings.toml")}, false},
		{"write guard's approvals", []string{"write", approvals}, false},
		{"chmod a file outside", []string{"chmod", notes}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done, r := w.probe(t, nil, tc.args...)
			if done != tc.allowed {
				t.Fatalf("done=%v, want %v:\n%s", done, tc.allowed, r)
			}
			if strings.Contains(r.stdout, "PRIVATE KEY") {
				t.Fatalf("the secret leaked:\n%s", r)
			}
		})
	}
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Error("the planted symlink's target changed")
	}
	if b, _ := os.ReadFile(approvals); !strings.Contains(string(b), `"rules":[]`) {
		t.Error("guard's approvals changed")
	}
	if exists(filepath.Join(w.workspace, ".git", "hooks", "pre-commit")) {
		t.Error("a git hook was written")
	}
}

// TestSandboxFreshFilesWork: the workspace and TMPDIR are a working tree:
// create, read, write, rename, delete.
func TestSandboxFreshFilesWork(t *testing.T) {
	w := newWorld(t)
	w.settings(`[permissions]
deny = ["read(~/.ssh)"]
`)
	script := `set -e
for d in "$PWD" "$TMPDIR"; do
  echo one > "$d/f" ; cat "$d/f" >/dev/null ; echo two >> "$d/f"
  mv "$d/f" "$d/g" ; ln -s g "$d/l" ; ln "$d/g" "$d/h" ; chmod +x "$d/g"
  rm "$d/g" "$d/h" "$d/l" ; mkdir -p "$d/x/y" ; rmdir "$d/x/y" "$d/x"
done
echo ok`
	r := w.guard("exec", "--mode", "bypass", "--", "bash", "-c", script).expect(t, 0)
	if strings.TrimSpace(r.stdout) != "ok" {
		t.Fatalf("file work failed: %s", r)
	}
}

// TestSandboxNetwork: with the network off no TCP, UDP, raw socket or
// abstract Unix socket outside; with --network on, TCP works.
func TestSandboxNetwork(t *testing.T) {
	w := newWorld(t)
	addr := tcpServer(t)
	abs, err := net.Listen("unix", "@guard-test-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer abs.Close()
	absName := strings.TrimPrefix(abs.Addr().String(), "@")
	bare(t, "tcp", addr)
	bare(t, "abstract", absName)

	tests := []struct {
		name    string
		extra   []string
		args    []string
		allowed bool
	}{
		{"TCP to loopback with the network off", nil, []string{"tcp", addr}, false},
		{"TCP to loopback with --network on", []string{"--network", "on"}, []string{"tcp", addr}, true},
		{"UDP with the network off", nil, []string{"udp", "127.0.0.1:9"}, false},
		{"a raw socket", nil, []string{"raw"}, false},
		{"an abstract Unix socket outside", nil, []string{"abstract", absName}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done, r := w.probe(t, tc.extra, tc.args...)
			if done != tc.allowed {
				t.Fatalf("done=%v, want %v:\n%s", done, tc.allowed, r)
			}
		})
	}
}

// TestSandboxProcessesAndKernel: no reach into processes outside, no new
// namespaces, no io_uring.
func TestSandboxProcessesAndKernel(t *testing.T) {
	w := newWorld(t)
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	pid := strconv.Itoa(victim.Process.Pid)
	bare(t, "environ", pid)
	bare(t, "io_uring")

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ptrace a process outside", []string{"ptrace", pid}},
		{"signal a process outside", []string{"kill", pid}},
		{"read a process's environment outside", []string{"environ", pid}},
		{"make user and mount namespaces", []string{"unshare"}},
		{"set up io_uring", []string{"io_uring"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if done, r := w.probe(t, nil, tc.args...); done {
				t.Fatalf("the sandbox let it through:\n%s", r)
			}
		})
	}
	// The victim is still alive.
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatal("the process outside was killed")
	}
	// unshare(1) as a user would type it.
	r := w.guard("exec", "--mode", "bypass", "--", "unshare", "-Urm", "true")
	if r.code == 0 {
		t.Fatalf("unshare -Urm ran: %s", r)
	}
}

// TestSandboxNoKeystrokesIntoTheTerminal: TIOCSTI on the user's terminal
// is refused.
func TestSandboxNoKeystrokesIntoTheTerminal(t *testing.T) {
	w := newWorld(t)
	if screen, code := w.ttyRunProgram(t, probeBin, "", "tiocsti"); code != 0 {
		t.Skipf("TIOCSTI is refused outside the sandbox too (the kernel disables it): %s", screen)
	}
	screen, code := w.ttyRun(t, "", "exec", "--mode", "bypass", "--", probeBin, "tiocsti")
	if code != 1 || !strings.Contains(screen, "probe tiocsti") {
		t.Fatalf("TIOCSTI was not refused: exit %d\n%s", code, screen)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
