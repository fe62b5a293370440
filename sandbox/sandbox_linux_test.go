//go:build linux && cgo

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// These tests run real programs under the real kernel, through Start: each
// confinement is a stopped action next to the same action allowed where the
// policy allows it, so that a test cannot pass because the action fails
// anyway. A test skips only where the kernel lacks the feature it proves.

// world is one test's file system: a home with a secret, a workspace (the
// writable root) with the paths kept read-only, and a place outside both.
type world struct {
	root, home, ws, outside string
	expectLauncherFailure   bool // runAsNobody: exit 71 is the test's answer
}

const secret = "the secret key\n"

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", "proj"), outside: filepath.Join(root, "outside")}
	files := map[string]string{
		"home/.ssh/id_ed25519":              secret,
		"home/notes.txt":                    "notes\n",
		"home/.config/guard/approvals.json": `{"version":1,"rules":[]}`,
		"home/proj/file.txt":                "workspace file\n",
		"home/proj/.env":                    secret,
		"home/proj/.git/config":             "[core]\n",
		"home/proj/.git/hooks/README":       "hooks\n",
		"home/proj/.guard/settings.toml":    "[guard]\n",
		"outside/plain.txt":                 "outside\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// policy is the usual policy of the tests: the secret directory and the
// workspace's .env blocked, the workspace writable but for its .git/hooks,
// .git/config and .guard, a private TMPDIR, no network.
func (w *world) policy() Policy {
	return Policy{
		Blocked: []BlockedPath{
			{Path: filepath.Join(w.home, ".ssh"), Kind: Dir, Rule: "read(~/.ssh/**)"},
			{Path: filepath.Join(w.ws, ".env"), Kind: File, Rule: "read(*/.env)"},
		},
		Writable: []string{w.ws},
		ReadOnly: []ReadOnlyPath{
			{Path: filepath.Join(w.ws, ".git", "hooks"), Kind: Dir, Why: "git hooks run outside the sandbox"},
			{Path: filepath.Join(w.ws, ".git", "config"), Kind: File, Why: "core.hooksPath, aliases"},
			{Path: filepath.Join(w.ws, ".guard"), Kind: Dir, Why: "guard's project settings"},
		},
		TempDir: true,
	}
}

// result is what a sandboxed run did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %q\nstderr: %q", r.code, r.stdout, r.stderr)
}

// run runs argv (a real program) in the sandbox of p, in the workspace.
func (w *world) run(t *testing.T, p Policy, argv ...string) result {
	t.Helper()
	return runIn(t, p, w.ws, nil, argv...)
}

// helper runs the test binary's helper action in the sandbox of p.
func (w *world) helper(t *testing.T, p Policy, action ...string) result {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runIn(t, p, w.ws, []string{"GUARD_SANDBOX_HELPER=1"}, append([]string{exe}, action...)...)
}

func runIn(t *testing.T, p Policy, dir string, extraEnv []string, argv ...string) result {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + os.Getenv("HOME"), "LANG=C"}, extraEnv...)
	proc, err := Start(p, Command{Path: argv[0], Args: argv, Env: env, Dir: dir, Stdin: devnull, Stdout: outW, Stderr: errW})
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		t.Fatalf("Start %v: %v", argv, err)
	}
	var stdout, stderr bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { io.Copy(&stdout, outR); wg.Done() }()
	go func() { io.Copy(&stderr, errR); wg.Done() }()
	code, err := proc.Wait()
	if err != nil {
		t.Errorf("Wait: %v", err)
	}
	wg.Wait()
	outR.Close()
	errR.Close()
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func (r result) ok(t *testing.T, what string) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: want it allowed, got %s", what, r)
	}
	return r
}

func (r result) refused(t *testing.T, what string) result {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("%s: want it refused, got %s", what, r)
	}
	t.Logf("%s: refused: %s", what, strings.TrimSpace(r.stderr))
	return r
}

// refusedWith checks the refusal's error text (an errno's message).
func (r result) refusedWith(t *testing.T, what string, errno unix.Errno) result {
	t.Helper()
	r.refused(t, what)
	if !strings.Contains(r.stderr, errno.Error()) {
		t.Fatalf("%s: want %q, got %s", what, errno.Error(), r)
	}
	return r
}

func requireKernel(t *testing.T, what string, ok bool) {
	t.Helper()
	if !ok {
		t.Skipf("this kernel lacks %s", what)
	}
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the mount namespace is made by the launching thread")
	}
}

func requireFull(t *testing.T) kernel {
	t.Helper()
	k := currentKernel()
	requireKernel(t, "Landlock ABI 6", k.abi >= 6)
	requireKernel(t, "seccomp filters", k.seccomp)
	requireKernel(t, "a mount namespace (run the tests as root)", k.mountNS)
	return k
}

func TestBlockedPathUnreadableByAnyRoute(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	key := filepath.Join(w.home, ".ssh", "id_ed25519")
	notes := filepath.Join(w.home, "notes.txt")
	if err := os.Symlink(key, filepath.Join(w.ws, "key-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(notes, filepath.Join(w.ws, "notes-link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		blocked, other []string
	}{
		{"directly", []string{"cat", key}, []string{"cat", notes}},
		{"through a symlink made before", []string{"cat", filepath.Join(w.ws, "key-link")}, []string{"cat", filepath.Join(w.ws, "notes-link")}},
		{"through a symlink made inside", []string{"sh", "-c", "ln -s " + key + " l1 && cat l1"}, []string{"sh", "-c", "ln -s " + notes + " l2 && cat l2"}},
		{"through /proc/self/root", []string{"cat", "/proc/self/root" + key}, []string{"cat", "/proc/self/root" + notes}},
		{"through ..", []string{"cat", w.ws + "/../.ssh/../.ssh/id_ed25519"}, []string{"cat", w.ws + "/../notes.txt"}},
		{"through a hard link made inside", []string{"sh", "-c", "ln " + key + " hl1 && cat hl1"}, []string{"sh", "-c", "ln file.txt hl2 && cat hl2"}},
		{"by listing the directory", []string{"ls", filepath.Join(w.home, ".ssh")}, []string{"ls", w.home}},
		{"inside the writable workspace", []string{"cat", filepath.Join(w.ws, ".env")}, []string{"cat", filepath.Join(w.ws, "file.txt")}},
		{"inside the writable workspace, by a hard link", []string{"sh", "-c", "ln .env e2 && cat e2"}, []string{"sh", "-c", "ln file.txt f2 && cat f2"}},
		{"inside the writable workspace, by renaming", []string{"sh", "-c", "mv .env e3 && cat e3"}, []string{"sh", "-c", "mv file.txt f3 && cat f3"}},
		{"by python", []string{"python3", "-c", "print(open('" + key + "').read())"}, []string{"python3", "-c", "print(open('" + notes + "').read())"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(t, w.policy(), tc.blocked...).refused(t, "reading the blocked file")
			if strings.Contains(r.stdout, "secret") {
				t.Fatalf("the secret leaked: %s", r)
			}
			w.run(t, w.policy(), tc.other...).ok(t, "the same for a file that is not blocked")
		})
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, ".env")); string(b) != secret {
		t.Fatalf("the blocked file in the workspace changed: %q", b)
	}
}

// Without a mount namespace, Landlock alone refuses the blocked paths
// outside the writable roots.
func TestBlockedPathWithLandlockAlone(t *testing.T) {
	k := currentKernel()
	requireKernel(t, "Landlock", k.abi >= 1)
	w := newWorld(t)
	k.mountNS = false
	p := w.policy()
	p.ReadOnly = nil
	p.Blocked = p.Blocked[:1]
	pl, err := newPlan(p, k, &prepared{})
	if err != nil {
		t.Fatal(err)
	}
	if pl.mounts != nil || len(pl.refused) != 2 {
		t.Fatalf("want Landlock to refuse the blocked path and /dev, got %v (mounts %v)", pl.refused, pl.mounts)
	}
	// Run it for real, as a process without the mount namespace: a user
	// without user namespaces.
	requireRoot(t) // to become that user
	if err := exec.Command("chown", "-R", "65534:65534", w.root).Run(); err != nil {
		t.Fatal(err)
	}
	openToNobody(t, w.root)
	p.AllowPartial = true
	key := filepath.Join(w.home, ".ssh", "id_ed25519")
	r := w.runAsNobody(t, p, false, "cat", key)
	r.refused(t, "reading the blocked file with Landlock alone")
	w.runAsNobody(t, p, false, "cat", filepath.Join(w.home, "notes.txt")).ok(t, "reading a file that is not blocked")
	w.runAsNobody(t, p, false, "sh", "-c", "ln -s "+key+" l && cat l").refused(t, "a symlink")
	w.runAsNobody(t, p, false, "sh", "-c", "ln "+key+" hl").refused(t, "a hard link (refer)")
}

// A command is not started in a blocked directory: it would read it
// through its working directory.
func TestBlockedWorkingDirectory(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	ssh := filepath.Join(w.home, ".ssh")
	_, err := Start(w.policy(), Command{Path: "cat", Args: []string{"cat", "id_ed25519"}, Dir: ssh})
	var pe *PolicyError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "read(~/.ssh/**)") {
		t.Fatalf("a working directory inside a blocked one: want a PolicyError naming the rule, got %v", err)
	}
	// Inheriting guard's own working directory, which is blocked.
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(ssh); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	if _, err := Start(w.policy(), Command{Path: "cat", Args: []string{"cat", "id_ed25519"}}); !errors.As(err, &pe) {
		t.Fatalf("inheriting a blocked working directory: want a PolicyError, got %v", err)
	}
	os.Chdir(old)
	runIn(t, w.policy(), w.home, nil, "cat", "notes.txt").ok(t, "a working directory that is not blocked")
}

// A file system mounted twice (a bind mount) does not lead around a block.
func TestBlockedPathThroughAnotherMount(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	bind := filepath.Join(w.outside, "bind")
	if err := os.MkdirAll(bind, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(w.home, bind, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot make a bind mount here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(bind, unix.MNT_DETACH) })
	w.run(t, w.policy(), "cat", filepath.Join(bind, ".ssh", "id_ed25519")).refused(t, "reading the blocked file through a bind mount")
	w.run(t, w.policy(), "cat", filepath.Join(bind, "notes.txt")).ok(t, "reading another file through the bind mount")
}

func TestWritesOnlyInsideWritableRoots(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	if err := os.Symlink(w.home, filepath.Join(w.ws, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		blocked, other []string
		victim         string // must not exist afterwards
	}{
		{"a new file outside", []string{"sh", "-c", "echo x > ../pwned"}, []string{"sh", "-c", "echo x > new && cat new"}, "home/pwned"},
		{"through a symlink planted before", []string{"sh", "-c", "echo x > escape/pwned2"}, []string{"sh", "-c", "mkdir d && ln -s d inner && echo x > inner/f && cat d/f"}, "home/pwned2"},
		{"through a symlink planted inside", []string{"sh", "-c", "ln -s " + w.home + " e2 && echo x > e2/pwned3"}, []string{"sh", "-c", "ln -s file.txt fl && echo y >> fl"}, "home/pwned3"},
		{"by renaming out", []string{"mv", "file.txt", w.home + "/moved"}, []string{"mv", "file.txt", "moved"}, "home/moved"},
		{"by truncating a file outside", []string{"truncate", "-s", "0", w.home + "/notes.txt"}, []string{"truncate", "-s", "0", "file.txt"}, ""},
		{"into /tmp", []string{"sh", "-c", "echo x > /tmp/guard-test-pwned-" + strconv.Itoa(os.Getpid())}, []string{"sh", "-c", "echo x > $TMPDIR/f && cat $TMPDIR/f"}, ""},
		{"into guard's approvals", []string{"sh", "-c", "echo '{}' > " + w.home + "/.config/guard/approvals.json"}, []string{"sh", "-c", "echo '{}' > approvals.json"}, ""},
		{"into .git/hooks", []string{"sh", "-c", "echo evil > .git/hooks/pre-commit"}, []string{"sh", "-c", "echo ok > .git/description"}, "home/proj/.git/hooks/pre-commit"},
		{"into .git/config", []string{"sh", "-c", "echo evil >> .git/config"}, []string{"sh", "-c", "echo ok >> .git/description"}, ""},
		{"into .guard", []string{"sh", "-c", "echo 'mode = \"bypass\"' > .guard/settings.local.toml"}, []string{"sh", "-c", "mkdir -p .other && echo x > .other/settings.toml"}, "home/proj/.guard/settings.local.toml"},
		{"by removing .git/hooks", []string{"rm", "-rf", ".git/hooks"}, []string{"rm", "-rf", ".other2"}, ""},
		{"by renaming .guard away", []string{"mv", ".guard", "g2"}, []string{"sh", "-c", "mkdir x && mv x y"}, ""},
		{"by chmod outside", []string{"chmod", "777", w.home + "/notes.txt"}, []string{"chmod", "600", "file.txt"}, ""},
		{"a set-user-ID file inside", []string{"chmod", "u+s", "file.txt"}, []string{"chmod", "u+x", "file.txt"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.run(t, w.policy(), tc.blocked...).refused(t, "the write")
			if tc.victim != "" && exists(filepath.Join(w.root, tc.victim)) {
				t.Fatalf("%s was written", tc.victim)
			}
			w.run(t, w.policy(), tc.other...).ok(t, "the same inside the workspace")
		})
	}
	want := map[string]string{
		"home/notes.txt":                    "notes\n",
		"home/.config/guard/approvals.json": `{"version":1,"rules":[]}`,
		"home/proj/.git/config":             "[core]\n",
		"home/proj/.guard/settings.toml":    "[guard]\n",
	}
	for name, content := range want {
		if b, _ := os.ReadFile(filepath.Join(w.root, name)); string(b) != content {
			t.Errorf("%s changed: %q", name, b)
		}
	}
	if st, _ := os.Stat(filepath.Join(w.home, "notes.txt")); st.Mode().Perm() != 0o644 {
		t.Errorf("notes.txt's mode changed: %v", st.Mode())
	}
}

// A workspace that holds guard's own files keeps them read-only.
func TestGuardFilesInsideTheWorkspaceStayReadOnly(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	approvals := filepath.Join(w.home, ".config", "guard", "approvals.json")
	p := Policy{Writable: []string{w.home}, ReadOnly: []ReadOnlyPath{{Path: filepath.Dir(approvals), Kind: Dir, Why: "guard's config"}}}
	runIn(t, p, w.home, nil, "sh", "-c", "echo '{}' > "+approvals).refused(t, "writing the approvals file")
	runIn(t, p, w.home, nil, "sh", "-c", "rm "+approvals).refused(t, "removing the approvals file")
	runIn(t, p, w.home, nil, "sh", "-c", "echo x > notes.txt").ok(t, "writing elsewhere in the home")
	if b, _ := os.ReadFile(approvals); string(b) != `{"version":1,"rules":[]}` {
		t.Fatalf("the approvals file changed: %q", b)
	}
	// The directories between the writable root and a read-only path
	// cannot be moved away or removed to put another in its place (the
	// read-only mount would go with them and leave the name free).
	cfg := filepath.Dir(approvals)
	for _, attack := range []string{
		"mv .config .config-old",
		"mv .config/guard .config/guard-old",
		"rm -rf .config",
		"mv .config/guard/approvals.json .config/guard/x",
	} {
		runIn(t, p, w.home, nil, "sh", "-c", attack).refused(t, attack)
		if !exists(approvals) || !exists(cfg) {
			t.Fatalf("%s: the read-only path is gone", attack)
		}
	}
	// Everything else there stays writable.
	runIn(t, p, w.home, nil, "sh", "-c", "echo x > .config/other && mkdir .config/d && mv .config/d .config/e && rm -r .config/e .config/other").ok(t, "working beside the pinned directories")
}

func TestFreshFilesWorkInsideTheWorkspaceAndTmpdir(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	script := `set -e
for d in "$PWD" "$TMPDIR"; do
	echo one > "$d/fresh"
	grep -q one "$d/fresh"
	echo two >> "$d/fresh"
	mv "$d/fresh" "$d/renamed"
	test "$(cat "$d/renamed")" = "$(printf 'one\ntwo')"
	mkdir "$d/sub" && touch "$d/sub/x" && rm -r "$d/sub"
	ln -s renamed "$d/link" && cat "$d/link" > /dev/null && rm "$d/link"
	rm "$d/renamed"
	test ! -e "$d/renamed"
done
echo "$TMPDIR"`
	r := w.run(t, w.policy(), "sh", "-c", script).ok(t, "working with fresh files")
	tmp := strings.TrimSpace(r.stdout)
	if tmp == "" || within(tmp, w.ws) {
		t.Fatalf("TMPDIR is %q", tmp)
	}
	// The private TMPDIR is its own: what one command leaves there, the
	// next does not see.
	w.run(t, w.policy(), "sh", "-c", `echo left > "$TMPDIR/left"`).ok(t, "writing TMPDIR")
	w.run(t, w.policy(), "sh", "-c", `test ! -e "$TMPDIR/left" && test -z "$(ls -A "$TMPDIR")"`).ok(t, "a fresh TMPDIR")
}

func TestNetworkOff(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go acceptAll(ln)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()

	off := w.policy()
	on := w.policy()
	on.Network = true
	tests := []struct {
		name   string
		action []string
		errno  unix.Errno
		onToo  bool // refused with the network on too
	}{
		{"TCP to a loopback server", []string{"tcp", ln.Addr().String()}, unix.EPERM, false},
		{"UDP", []string{"udp", udp.LocalAddr().String()}, unix.EPERM, false},
		{"a raw socket", []string{"raw"}, unix.EPERM, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.helper(t, off, tc.action...).refusedWith(t, "with the network off", tc.errno)
			r := w.helper(t, on, tc.action...)
			if tc.onToo {
				r.refused(t, "with the network on (no capabilities)")
			} else {
				r.ok(t, "with the network on")
			}
		})
	}
	t.Run("a Unix socket pair still works", func(t *testing.T) {
		w.helper(t, off, "socketpair").ok(t, "a socket pair with the network off")
	})
	t.Run("python's socket module", func(t *testing.T) {
		code := "import socket; s = socket.create_connection(('127.0.0.1', " + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + ")); print('connected')"
		w.run(t, off, "python3", "-c", code).refused(t, "python with the network off")
		w.run(t, on, "python3", "-c", code).ok(t, "python with the network on")
	})
}

func TestTCPToChosenPortsOnly(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	allowed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	go acceptAll(allowed)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go acceptAll(other)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	p := w.policy()
	p.TCPConnect = []uint16{uint16(allowed.Addr().(*net.TCPAddr).Port)}
	w.helper(t, p, "tcp", allowed.Addr().String()).ok(t, "TCP to the allowed port")
	w.helper(t, p, "tcp", other.Addr().String()).refused(t, "TCP to another port")
	w.helper(t, p, "udp", udp.LocalAddr().String()).refusedWith(t, "UDP", unix.EPERM)
	// guard makes the connections: it checks the port as Landlock would.
	w.run(t, p, "python3", "-c", "import socket; socket.create_connection(('127.0.0.1', "+strconv.Itoa(other.Addr().(*net.TCPAddr).Port)+"))").refused(t, "python to another port")
	w.run(t, p, "python3", "-c", "import socket; socket.create_connection(('127.0.0.1', "+strconv.Itoa(allowed.Addr().(*net.TCPAddr).Port)+"))").ok(t, "python to the allowed port")
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() { io.Copy(io.Discard, c); c.Close() }()
	}
}

// outsider starts a process outside the sandbox and returns its pid.
func outsider(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func TestNoReachIntoProcessesOutside(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	pid := strconv.Itoa(outsider(t))
	p := w.policy()
	t.Run("ptrace", func(t *testing.T) {
		w.helper(t, p, "ptrace", pid).refusedWith(t, "tracing a process outside", unix.EPERM)
		if err := unix.PtraceAttach(mustAtoi(pid)); err != nil {
			t.Skipf("tracing is refused outside the sandbox too (%v): the refusal above proves nothing more", err)
		}
		unix.PtraceDetach(mustAtoi(pid))
	})
	t.Run("kill", func(t *testing.T) {
		w.run(t, p, "kill", "-TERM", pid).refused(t, "signalling a process outside")
		w.run(t, p, "sh", "-c", "sleep 30 & kill -TERM $!").ok(t, "signalling its own child")
	})
	t.Run("reading its environment and memory", func(t *testing.T) {
		for _, f := range []string{"environ", "mem", "cwd/.", "root" + w.home + "/notes.txt", "fd/0"} {
			w.run(t, p, "cat", "/proc/"+pid+"/"+f).refused(t, "reading /proc/"+pid+"/"+f)
		}
		w.run(t, p, "sh", "-c", "cat /proc/$$/environ > /dev/null").ok(t, "reading its own environment")
	})
	t.Run("reading guard through /proc", func(t *testing.T) {
		w.run(t, p, "cat", fmt.Sprintf("/proc/%d/environ", os.Getpid())).refused(t, "reading guard's environment")
		// Every thread of guard, the one that started the command (in the
		// same Landlock domain) included.
		w.helper(t, p, "read-parent").refused(t, "reading guard's threads' environment and memory")
	})
	t.Run("signalling guard", func(t *testing.T) {
		w.helper(t, p, "signal-parent").refused(t, "signalling guard or any of its threads")
	})
	t.Run("process_vm_readv", func(t *testing.T) {
		w.helper(t, p, "vmread", pid).refusedWith(t, "reading another process's memory", unix.EPERM)
		cmd := exec.Command(mustExecutable(t), "vmread", pid)
		cmd.Env = []string{"GUARD_SANDBOX_HELPER=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("process_vm_readv is refused outside the sandbox too: %v %s", err, out)
		}
	})
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func TestNoNewNamespacesMountsOrIoUring(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	p := w.policy()
	w.run(t, p, "unshare", "-Urm", "true").refused(t, "unshare -Urm")
	w.run(t, p, "unshare", "-n", "true").refused(t, "unshare -n")
	w.run(t, p, "sh", "-c", "mount -t tmpfs none $TMPDIR").refused(t, "mount")
	w.run(t, p, "sh", "-c", "umount "+filepath.Join(w.ws, ".git", "hooks")).refused(t, "umount of a read-only bind")
	w.helper(t, p, "io_uring").refusedWith(t, "io_uring", unix.EPERM)
	// The same actions are allowed outside the sandbox, so the refusals
	// are the sandbox's.
	if os.Geteuid() == 0 {
		if out, err := exec.Command("unshare", "-Urm", "true").CombinedOutput(); err != nil {
			t.Errorf("unshare -Urm fails outside the sandbox too: %v %s", err, out)
		}
	}
	cmd := exec.Command(mustExecutable(t), "io_uring")
	cmd.Env = []string{"GUARD_SANDBOX_HELPER=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("io_uring is not available outside the sandbox either: %v %s", err, out)
	}
}

func mustExecutable(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestNoPrivileges(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	r := w.helper(t, w.policy(), "caps").ok(t, "reading its status")
	for _, want := range []string{"NoNewPrivs:\t1", "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "Seccomp:\t2"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in the command's status:\n%s", want, r.stdout)
		}
	}
	// Root's powers over the machine: raw disks, sysctls, the kernel log.
	if disk := firstBlockDevice(); disk != "" {
		w.run(t, w.policy(), "head", "-c", "512", disk).refused(t, "reading the raw disk "+disk)
		if os.Geteuid() == 0 {
			if out, err := exec.Command("head", "-c", "512", disk).CombinedOutput(); err != nil {
				t.Logf("the disk is not readable outside the sandbox either: %v %s", err, out)
			}
		}
	}
	w.run(t, w.policy(), "sh", "-c", "echo 1 > /proc/sys/vm/drop_caches").refused(t, "writing a sysctl")
	w.run(t, w.policy(), "sh", "-c", "echo guard > /dev/kmsg").refused(t, "writing the kernel log")
	w.run(t, w.policy(), "dmesg").refused(t, "reading the kernel log")
	w.run(t, w.policy(), "sh", "-c", "echo x > /dev/null && head -c 4 /dev/urandom > /dev/null").ok(t, "the ordinary devices")
}

func firstBlockDevice() string {
	entries, _ := os.ReadDir("/sys/class/block")
	for _, e := range entries {
		if p := "/dev/" + e.Name(); exists(p) {
			return p
		}
	}
	return ""
}

// A descriptor guard inherited without close-on-exec does not reach the
// command: it would read the blocked file past Landlock.
func TestInheritedDescriptorsDoNotReachTheCommand(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	fd, err := unix.Open(filepath.Join(w.home, ".ssh", "id_ed25519"), unix.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	w.helper(t, w.policy(), "fd", strconv.Itoa(fd)).refusedWith(t, "using the inherited descriptor", unix.EBADF)
	w.helper(t, w.policy(), "fd", "1").ok(t, "using its own stdout")
	w.run(t, w.policy(), "sh", "-c", "cat <&"+strconv.Itoa(fd)).refused(t, "reading it from a shell")
}

func TestNothingLeftRunning(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	pidFile := filepath.Join(w.ws, "daemon.pid")
	w.helper(t, w.policy(), "daemon", pidFile).ok(t, "leaving a daemon behind")
	pid := readPid(t, pidFile)
	if alive(pid) {
		unix.Kill(pid, unix.SIGKILL)
		t.Fatalf("the daemon %d survived", pid)
	}
	os.Remove(pidFile)
	p := w.policy()
	p.AllowBackground = true
	w.helper(t, p, "daemon", pidFile).ok(t, "leaving a daemon behind, allowed")
	pid = readPid(t, pidFile)
	if !alive(pid) {
		t.Fatalf("the daemon %d was stopped although background processes are allowed", pid)
	}
	unix.Kill(pid, unix.SIGKILL)
	reap(pid)
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile(file)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			return mustAtoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func reap(pid int) {
	var ws unix.WaitStatus
	unix.Wait4(pid, &ws, 0, nil)
}

func TestExitStatus(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	if r := w.run(t, w.policy(), "sh", "-c", "exit 7"); r.code != 7 {
		t.Fatalf("want 7, got %s", r)
	}
	if r := w.run(t, w.policy(), "sh", "-c", "kill -KILL $$"); r.code != 128+9 {
		t.Fatalf("want 137, got %s", r)
	}
	if r := w.run(t, w.policy(), "sh", "-c", "echo out; echo err >&2"); r.stdout != "out\n" || r.stderr != "err\n" {
		t.Fatalf("the streams are the command's own: %s", r)
	}
}

// Signals sent to guard reach the command. Not parallel: it signals the
// test process itself.
func TestSignalsReachTheCommand(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	outR, outW, _ := os.Pipe()
	defer outR.Close()
	exe := mustExecutable(t)
	proc, err := Start(w.policy(), Command{Path: exe, Args: []string{exe, "wait-signal"}, Env: []string{"GUARD_SANDBOX_HELPER=1"}, Dir: w.ws, Stdout: outW})
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(outR, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("the command did not start: %q %v", line, err)
	}
	<-proc.caughtCh
	if err := unix.Kill(os.Getpid(), unix.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	code, err := proc.Wait()
	if err != nil || code != 40+int(unix.SIGUSR1) {
		t.Fatalf("want the command to get SIGUSR1 (exit %d), got %d %v", 40+int(unix.SIGUSR1), code, err)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// The zero Policy refuses to run where anything is missing, and Start
// refuses relative paths.
func TestStartRefusesWhatItCannotEnforce(t *testing.T) {
	_, err := Start(Policy{Writable: []string{"relative"}}, Command{Path: "/bin/true"})
	var pe *PolicyError
	if !errors.As(err, &pe) {
		t.Fatalf("want a PolicyError, got %v", err)
	}
	w := newWorld(t)
	_, err = Start(Policy{Writable: []string{w.ws}, Blocked: []BlockedPath{{Path: w.home, Rule: "read(~)"}}}, Command{Path: "/bin/true"})
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "read(~)") {
		t.Fatalf("a blocked path holding the workspace: want a PolicyError naming the rule, got %v", err)
	}
}

// As a user without privileges, the sandbox makes its mount namespace in a
// user namespace, made before the Go runtime starts.
func TestUnprivilegedUserNamespace(t *testing.T) {
	requireRoot(t) // to become another user
	requireFull(t)
	w := newWorld(t)
	if err := exec.Command("chown", "-R", "65534:65534", w.root).Run(); err != nil {
		t.Fatal(err)
	}
	openToNobody(t, w.root)
	p := w.policy()
	r := w.runAsNobody(t, p, true, "sh", "-c", "id -u; echo x > .git/hooks/pre-commit")
	r.refused(t, "writing .git/hooks as nobody")
	if !strings.HasPrefix(r.stdout, "65534") {
		t.Fatalf("the command does not run as the user: %s", r)
	}
	w.runAsNobody(t, p, true, "cat", filepath.Join(w.ws, ".env")).refused(t, "reading the blocked .env inside the workspace")
	w.runAsNobody(t, p, true, "sh", "-c", "echo ok > new && cat new && echo t > $TMPDIR/t").ok(t, "writing the workspace and TMPDIR")
	w.runAsNobody(t, p, true, "unshare", "-Ur", "true").refused(t, "a user namespace inside")
}

// Where part of the policy cannot be enforced (here: no mount namespace, as
// a user without user namespaces), Start runs nothing unless the policy
// allows a partial sandbox, and says what is missing.
func TestStrictPolicyRefusesWhatItCannotEnforce(t *testing.T) {
	requireRoot(t)
	requireFull(t)
	w := newWorld(t)
	if err := exec.Command("chown", "-R", "65534:65534", w.root).Run(); err != nil {
		t.Fatal(err)
	}
	openToNobody(t, w.root)
	w.expectLauncherFailure = true
	r := w.runAsNobody(t, w.policy(), false, "sh", "-c", "echo ran > ran")
	if r.code != 71 || !strings.Contains(r.stderr, "sandbox unavailable") || !strings.Contains(r.stderr, ".git/hooks") {
		t.Fatalf("want exit 71 naming the read-only path it cannot keep, got %s", r)
	}
	if exists(filepath.Join(w.ws, "ran")) {
		t.Fatal("the command ran")
	}
	p := w.policy()
	p.AllowPartial = true
	w.runAsNobody(t, p, false, "sh", "-c", "echo ran > ran").ok(t, "the same, partial sandbox allowed")
}

// runAsNobody runs argv in the sandbox of p from a copy of the test binary
// running as nobody; userns says whether that launcher makes a user
// namespace (GUARD_SANDBOX_USERNS=1).
func (w *world) runAsNobody(t *testing.T, p Policy, userns bool, argv ...string) result {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to become nobody")
	}
	exe := nobodyBinary(t)
	req, err := jsonString(launchRequest{Policy: p, Args: argv, Env: []string{"PATH=/usr/bin:/bin", "LANG=C"}, Dir: w.ws})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{"GUARD_SANDBOX_LAUNCH=" + req}
	if userns {
		cmd.Env = append(cmd.Env, "GUARD_SANDBOX_USERNS=1")
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if (code == 71 || code == 70) && !w.expectLauncherFailure {
		t.Fatalf("the launcher failed: %s", errb.String())
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// openToNobody lets nobody reach dir: the testing package makes its
// parent private.
func openToNobody(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

var nobodyOnce struct {
	sync.Once
	path string
	err  error
}

// nobodyBinary is a copy of the test binary that nobody can run.
func nobodyBinary(t *testing.T) string {
	nobodyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guard-sandbox-test-")
		if err != nil {
			nobodyOnce.err = err
			return
		}
		os.Chmod(dir, 0o755)
		src, err := os.ReadFile(mustExecutable(t))
		if err != nil {
			nobodyOnce.err = err
			return
		}
		nobodyOnce.path = filepath.Join(dir, "sandbox.test")
		nobodyOnce.err = os.WriteFile(nobodyOnce.path, src, 0o755)
	})
	if nobodyOnce.err != nil {
		t.Fatal(nobodyOnce.err)
	}
	return nobodyOnce.path
}

// A command that shares the user's terminal cannot type into it: the
// keystrokes would reach the user's shell after the command exits.
func TestNoKeystrokesPushedIntoTheTerminal(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	// Raw mode, so that a pushed byte can be read at once.
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 2
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	exe := mustExecutable(t)
	proc, err := Start(w.policy(), Command{Path: exe, Args: []string{exe, "tiocsti"}, Env: []string{"GUARD_SANDBOX_HELPER=1"}, Dir: w.ws, Stdin: tty, Stdout: tty, Stderr: tty})
	if err != nil {
		t.Fatal(err)
	}
	code, _ := proc.Wait()
	out := drain(ptmx)
	if code == 0 || !strings.Contains(out, unix.EPERM.Error()) {
		t.Fatalf("TIOCSTI in the sandbox: want it refused with EPERM, got exit %d, output %q", code, out)
	}
	if pushed := readAvailable(tty); pushed != "" {
		t.Fatalf("the sandbox pushed %q into the terminal", pushed)
	}
	// The same program outside the sandbox does push the byte: the refusal
	// above is the sandbox's.
	cmd := exec.Command(exe, "tiocsti")
	cmd.Env = []string{"GUARD_SANDBOX_HELPER=1"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Run(); err != nil {
		t.Skipf("TIOCSTI is refused outside the sandbox too (%v, %s): the kernel disables it", err, drain(ptmx))
	}
	if pushed := readAvailable(tty); pushed != "X" {
		t.Fatalf("outside the sandbox, want X pushed, got %q", pushed)
	}
}

// drain reads what the terminal wrote so far.
func drain(ptmx *os.File) string {
	fd := int(ptmx.Fd())
	unix.SetNonblock(fd, true)
	var b bytes.Buffer
	buf := make([]byte, 4096)
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
		n, err := unix.Read(fd, buf)
		if n > 0 {
			b.Write(buf[:n])
			continue
		}
		if err != nil && err != unix.EAGAIN {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return b.String()
}

// readAvailable reads what is waiting in the terminal's input.
func readAvailable(tty *os.File) string {
	buf := make([]byte, 64)
	n, _ := unix.Read(int(tty.Fd()), buf)
	if n < 0 {
		n = 0
	}
	return string(buf[:n])
}

// The command's terminal is its own: it is in the foreground, and Ctrl-C
// reaches it once (from the terminal; guard does not pass it on again).
func TestTerminalIsTheCommandsOwn(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	exe := mustExecutable(t)
	req, err := jsonString(launchRequest{Policy: w.policy(), Args: []string{exe, "count-int"}, Env: []string{"GUARD_SANDBOX_HELPER=1"}, Dir: w.ws})
	if err != nil {
		t.Fatal(err)
	}
	// The launcher leads a session whose terminal is the pty, as guard in
	// a user's shell does.
	cmd := exec.Command(exe)
	cmd.Env = []string{"GUARD_SANDBOX_LAUNCH=" + req, "GUARD_SANDBOX_LAUNCH_SAY=1"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	buf := make([]byte, 256)
	for !strings.Contains(out.String(), "ready") || !strings.Contains(out.String(), "launcher catching signals") {
		n, err := ptmx.Read(buf)
		if err != nil {
			t.Fatalf("reading the terminal: %v (so far %q)", err, out.String())
		}
		out.Write(buf[:n])
	}
	if _, err := ptmx.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 41 {
		t.Fatalf("want one SIGINT (exit 41), got %v; terminal: %q", err, out.String()+drain(ptmx))
	}
}

// guard itself stays unconfined: only the thread that starts a command is
// confined, and never the main thread (whose /proc entries stand for the
// whole process).
func TestGuardStaysUnconfined(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	before := statusLines(t, "/proc/self/status")
	for i := 0; i < 5; i++ {
		w.run(t, w.policy(), "true").ok(t, "a command")
	}
	for _, f := range []string{"/proc/self/status", "/proc/thread-self/status"} {
		after := statusLines(t, f)
		for _, k := range []string{"NoNewPrivs", "Seccomp", "Seccomp_filters", "CapEff", "CapBnd"} {
			if after[k] != before[k] {
				t.Errorf("%s: %s is %q, was %q before the commands", f, k, after[k], before[k])
			}
		}
	}
	if a, b := nsInode("self"), nsInode("thread-self"); a != b {
		t.Errorf("the main thread is in another mount namespace (%d) than this one (%d)", a, b)
	}
}

func statusLines(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}
