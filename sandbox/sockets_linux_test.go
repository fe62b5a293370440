//go:build linux && cgo

package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// daemon is a Unix socket server outside the sandbox that counts the
// connections it accepts and greets each.
type daemon struct {
	path     string
	accepted atomic.Int64
}

func listenDaemon(t *testing.T, path, greeting string) *daemon {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	d := &daemon{path: path}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			d.accepted.Add(1)
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return d
}

func requireUserNotif(t *testing.T) {
	t.Helper()
	k := requireFull(t)
	requireKernel(t, "seccomp user notification and pidfd_getfd", k.userNotif)
}

// TestUnixSockets proves that a command reaches the Unix sockets the policy
// lists and its own, and no other, with the network off, on in part, or
// on: each refusal beside the same kind of connection allowed.
func TestUnixSockets(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	agent := listenDaemon(t, filepath.Join(w.outside, "agent.sock"), "agent")
	docker := listenDaemon(t, filepath.Join(w.outside, "docker.sock"), "docker")
	other := listenDaemon(t, filepath.Join(w.outside, "other.sock"), "other")
	abstract := fmt.Sprintf("@guard-test-outside-%d", os.Getpid())
	listenDaemon(t, abstract, "abstract")
	if err := os.Symlink(agent.path, filepath.Join(w.ws, "agent-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other.path, filepath.Join(w.ws, "other-link")); err != nil {
		t.Fatal(err)
	}

	modes := map[string]func(*Policy){
		"network off": func(*Policy) {},
		"TCP ports":   func(p *Policy) { p.TCPConnect = []uint16{9} },
		"network on":  func(p *Policy) { p.Network = true },
	}
	tests := []struct {
		name    string
		sockets []UnixSocket
		action  []string
		allowed bool
		errno   unix.Errno // of a refusal, when it is guard's
	}{
		{"a listed socket", []UnixSocket{{Path: agent.path}}, []string{"unix-read", agent.path}, true, 0},
		{"a socket that is not listed", []UnixSocket{{Path: agent.path}}, []string{"unix-read", other.path}, false, unix.EACCES},
		{"nothing listed", nil, []string{"unix-read", agent.path}, false, unix.EACCES},
		{"a listed socket through a symlink", []UnixSocket{{Path: agent.path}}, []string{"unix-read", filepath.Join(w.ws, "agent-link")}, true, 0},
		{"another socket through a symlink in the workspace", []UnixSocket{{Path: agent.path}}, []string{"unix-read", filepath.Join(w.ws, "other-link")}, false, unix.EACCES},
		{"a listed socket by a relative path", []UnixSocket{{Path: agent.path}}, []string{"unix-read", "../../outside/agent.sock"}, true, 0},
		{"another socket by a relative path", []UnixSocket{{Path: agent.path}}, []string{"unix-read", "../../outside/other.sock"}, false, unix.EACCES},
		{"a socket named docker.sock, listed", []UnixSocket{{Path: docker.path}}, []string{"unix-read", docker.path}, false, unix.EACCES},
		{"a socket named docker.sock, listed as dangerous", []UnixSocket{{Path: docker.path, Dangerous: true}}, []string{"unix-read", docker.path}, true, 0},
		{"an abstract socket outside", nil, []string{"abstract", strings.TrimPrefix(abstract, "@")}, false, 0},
		{"its own server in TMPDIR", nil, []string{"serve", "$TMPDIR/own.sock"}, true, 0},
		{"its own server in the workspace", nil, []string{"serve", "$PWD/own.sock"}, true, 0},
		{"its own server, connected to by a relative path", nil, []string{"serve", "$PWD/rel.sock", "relative"}, true, 0},
		{"its own abstract server", nil, []string{"serve", fmt.Sprintf("@guard-test-own-%d", os.Getpid())}, true, 0},
		{"its own server outside the writable roots", nil, []string{"serve", filepath.Join(w.outside, "squat.sock")}, false, 0},
	}
	for mode, set := range modes {
		for _, tc := range tests {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				p := w.policy()
				set(&p)
				p.UnixSockets = tc.sockets
				action := append([]string{}, tc.action...)
				// The helper runs without a shell: expand the variables.
				for i, a := range action {
					action[i] = strings.NewReplacer("$PWD", w.ws).Replace(a)
				}
				var r result
				if strings.Contains(strings.Join(action, " "), "$TMPDIR") {
					// The private TMPDIR is known inside only.
					r = w.run(t, p, "sh", "-c", `GUARD_SANDBOX_HELPER=1 exec "$0" "$1" "$TMPDIR/$2"`, mustExecutable(t), action[0], strings.TrimPrefix(action[1], "$TMPDIR/"))
				} else {
					r = w.helper(t, p, action...)
				}
				if !tc.allowed {
					if tc.errno != 0 {
						r.refusedWith(t, tc.name, tc.errno)
					} else {
						r.refused(t, tc.name)
					}
					return
				}
				r.ok(t, tc.name)
			})
		}
	}
	if n := other.accepted.Load(); n != 0 {
		t.Errorf("the unlisted socket accepted %d connections", n)
	}
	for i := 0; i < 500 && docker.accepted.Load() < 3; i++ {
		time.Sleep(10 * time.Millisecond) // the server counts after the client is done
	}
	if n := docker.accepted.Load(); n != 3 {
		t.Errorf("docker.sock accepted %d connections, want 3 (only where marked dangerous)", n)
	}
	if exists(filepath.Join(w.outside, "squat.sock")) {
		t.Error("the command bound a socket outside the writable roots")
	}
}

// TestUnixSocketRace: a command that rewrites the address while guard
// checks it still reaches only the listed socket.
func TestUnixSocketRace(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	allowed := listenDaemon(t, filepath.Join(w.outside, "aaaa.sock"), "a")
	forbidden := listenDaemon(t, filepath.Join(w.outside, "bbbb.sock"), "b")
	p := w.policy()
	p.UnixSockets = []UnixSocket{{Path: allowed.path}}
	r := w.helper(t, p, "race", allowed.path, forbidden.path).ok(t, "racing")
	time.Sleep(100 * time.Millisecond) // the servers count after the clients are done
	t.Logf("%s; the listed socket accepted %d", strings.TrimSpace(r.stdout), allowed.accepted.Load())
	if n := forbidden.accepted.Load(); n != 0 {
		t.Fatalf("the race reached the socket that is not listed %d times", n)
	}
	if allowed.accepted.Load() == 0 {
		t.Fatal("no connection reached the listed socket: the race proves nothing")
	}
}

// TestUnixSocketByHardLink: a hard link in the workspace to a socket
// outside is still that socket, not the command's own.
func TestUnixSocketByHardLink(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	other := listenDaemon(t, filepath.Join(w.outside, "other.sock"), "other")
	// Made inside: the workspace is a mount of its own there.
	w.run(t, w.policy(), "ln", other.path, filepath.Join(w.ws, "mine.sock")).refused(t, "linking the socket into the workspace")
	// Planted before, from outside.
	planted := filepath.Join(w.ws, "planted.sock")
	if err := os.Link(other.path, planted); err != nil {
		t.Fatal(err)
	}
	w.helper(t, w.policy(), "unix-read", planted).refusedWith(t, "connecting through the planted link", unix.EACCES)
	if other.accepted.Load() != 0 {
		t.Fatal("the socket outside was reached through a hard link")
	}
	// The same link, listed, is reached: the refusal above was the check's.
	p := w.policy()
	p.UnixSockets = []UnixSocket{{Path: other.path}}
	w.helper(t, p, "unix-read", planted).ok(t, "connecting through the link to a listed socket")
}

// TestUnixSocketsRealPrograms: programs that run servers of their own work
// inside the sandbox with the network off.
func TestUnixSocketsRealPrograms(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	code := `
import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    mp.set_start_method("forkserver")
    with mp.Pool(2) as p:
        print(sum(p.map(sq, range(10))))
`
	script := filepath.Join(w.ws, "mp.py")
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	r := w.run(t, w.policy(), "python3", script).ok(t, "python's multiprocessing forkserver")
	if strings.TrimSpace(r.stdout) != "285" {
		t.Fatalf("got %s", r)
	}
	// socat-like: python serving and connecting on a named socket.
	w.run(t, w.policy(), "python3", "-c", `
import socket, os, threading
p = os.path.join(os.environ["TMPDIR"], "s")
srv = socket.socket(socket.AF_UNIX); srv.bind(p); srv.listen()
threading.Thread(target=lambda: srv.accept()[0].sendall(b"hi"), daemon=True).start()
c = socket.socket(socket.AF_UNIX); c.connect(p); assert c.recv(2) == b"hi"
`).ok(t, "python serving on a named socket")
}

// TestSocketDanger pins the table of sockets that hand over the machine.
func TestSocketDanger(t *testing.T) {
	tests := []struct {
		path      string
		dangerous bool
	}{
		{"/var/run/docker.sock", true},
		{"/home/u/.docker/run/docker.sock", true},
		{"/tmp/x/docker.sock", true},
		{"/run/containerd/containerd.sock", true},
		{"/run/user/1000/podman/podman.sock", true},
		{"/run/dbus/system_bus_socket", true},
		{"/run/user/1000/bus", true},
		{"/run/systemd/private", true},
		{"/tmp/.X11-unix/X0", true},
		{"/run/user/1000/wayland-0", true},
		{"/tmp/tmux-1000/default", true},
		{"/run/user/1000/vscode-ipc-1234.sock", true},
		{"/tmp/ssh-XXXX/agent.1234", false},
		{"/run/user/1000/gnupg/S.gpg-agent.ssh", false},
		{"/home/u/proj/app.sock", false},
		{"/run/user/1000/docker.socket.lock", false},
	}
	for _, tc := range tests {
		if got := SocketDanger(tc.path) != ""; got != tc.dangerous {
			t.Errorf("SocketDanger(%q) = %q, want dangerous=%v", tc.path, SocketDanger(tc.path), tc.dangerous)
		}
	}
}

// TestAbstractNamesStayInside: with the network off, an abstract name the
// command binds is in its own network namespace, where no program of the
// machine's can be fooled into connecting to it; with the network on it is
// the machine's.
func TestAbstractNamesStayInside(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network on %v", network), func(t *testing.T) {
			name := fmt.Sprintf("@guard-test-squat-%d-%v", os.Getpid(), network)
			ready, stop := filepath.Join(w.ws, "ready"), filepath.Join(w.ws, "stop")
			os.Remove(ready)
			os.Remove(stop)
			p := w.policy()
			p.Network = network
			done := make(chan result, 1)
			go func() { done <- w.helper(t, p, "hold", name, ready, stop) }()
			for i := 0; i < 500 && !exists(ready); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			c, err := net.Dial("unix", name)
			if err == nil {
				c.Close()
			}
			os.WriteFile(stop, nil, 0o644)
			(<-done).ok(t, "holding an abstract name")
			if reached := err == nil; reached != network {
				t.Fatalf("the command's abstract name reachable outside: %v (%v), want %v", reached, err, network)
			}
		})
	}
}

// TestPrivateDirectories: the command sees its own directory inside a
// private one, and nothing else there.
func TestPrivateDirectories(t *testing.T) {
	requireFull(t)
	w := newWorld(t)
	caches := filepath.Join(w.home, ".cache", "guard", "caches")
	mine := filepath.Join(caches, "proj-1")
	theirs := filepath.Join(caches, "other-2")
	for _, d := range []string{mine, theirs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(theirs, "built.o"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "built.o"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := w.policy()
	p.Writable = append(p.Writable, mine)
	p.Private = []string{caches}
	w.run(t, p, "cat", filepath.Join(theirs, "built.o")).refused(t, "reading another workspace's cache")
	w.run(t, p, "cat", filepath.Join(mine, "built.o")).ok(t, "reading its own cache")
	r := w.run(t, p, "ls", "-A", caches).ok(t, "listing the caches")
	if strings.TrimSpace(r.stdout) != "proj-1" {
		t.Fatalf("the command sees %q in the caches, want its own only", r.stdout)
	}
	w.run(t, p, "sh", "-c", "echo x > "+filepath.Join(mine, "new.o")+" && mkdir -p "+filepath.Join(mine, "a/b")).ok(t, "writing its own cache")
	w.run(t, p, "sh", "-c", "echo x > "+filepath.Join(theirs, "poison.o")).refused(t, "writing another workspace's cache")
	w.run(t, p, "mkdir", filepath.Join(caches, "third")).refused(t, "making a cache of its own beside")
	if !exists(filepath.Join(mine, "new.o")) || exists(filepath.Join(theirs, "poison.o")) {
		t.Fatal("the writes did not land where they should")
	}
}

// TestConnectsTheKernelRefuses: a connect that the kernel would refuse on
// its own gets the same error from guard, which makes the connections.
func TestConnectsTheKernelRefuses(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	file := filepath.Join(w.ws, "file.txt")
	tests := []struct {
		name, path string
	}{
		{"bad-fd", file},
		{"not-a-socket", file},
		{"bad-pointer", file},
		{"huge-length", file},
		{"no-name", ""},
		{"unspec-dgram", file},
		{"inet-address", file},
		{"path", file},                                // a file that is no socket
		{"path", filepath.Join(w.ws, "missing.sock")}, // nothing there
		{"path", filepath.Join(w.ws, "no-dir", "s")},  // not even the directory
		{"dgram-own", filepath.Join(w.ws, "dgram.sock")},
	}
	for _, tc := range tests {
		t.Run(tc.name+" "+filepath.Base(tc.path), func(t *testing.T) {
			os.Remove(filepath.Join(w.ws, "dgram.sock"))
			cmd := exec.Command(mustExecutable(t), "connect-edge", tc.name, tc.path)
			cmd.Env = []string{"GUARD_SANDBOX_HELPER=1"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(w.ws, "dgram.sock"))
			r := w.helper(t, w.policy(), "connect-edge", tc.name, tc.path).ok(t, tc.name)
			if r.stdout != string(out) {
				t.Fatalf("errno inside %s, outside %s", strings.TrimSpace(r.stdout), strings.TrimSpace(string(out)))
			}
		})
	}
}

// TestSocketFilters proves the per-launch socket filters in a BPF
// interpreter: which calls go to guard, which are refused where guard
// cannot make connections.
func TestSocketFilters(t *testing.T) {
	arch := nativeAudit(t)
	notify, err := notifyFilter()
	if err != nil {
		t.Fatal(err)
	}
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	tests := []struct {
		name   string
		prog   func() ([]unix.SockFilter, error)
		call   string
		args   [6]uint64
		want   uint32
		noProg bool
	}{
		{"connect goes to guard", func() ([]unix.SockFilter, error) { return notify, nil }, "connect", [6]uint64{3}, unix.SECCOMP_RET_USER_NOTIF, false},
		{"bind does not", func() ([]unix.SockFilter, error) { return notify, nil }, "bind", [6]uint64{3}, unix.SECCOMP_RET_ALLOW, false},
		{"sendmsg does not", func() ([]unix.SockFilter, error) { return notify, nil }, "sendmsg", [6]uint64{3}, unix.SECCOMP_RET_ALLOW, false},
		{"supervised, network off: nothing more", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, true, true) }, "", [6]uint64{}, 0, true},
		{"supervised, no network namespace: no bind", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, true, false) }, "bind", [6]uint64{3}, eperm, false},
		{"supervised, no network namespace: no listen", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, true, false) }, "listen", [6]uint64{3}, eperm, false},
		{"supervised, no network namespace: connect is guard's", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, true, false) }, "connect", [6]uint64{3}, unix.SECCOMP_RET_ALLOW, false},
		{"unsupervised, network off: no connect", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, false, true) }, "connect", [6]uint64{3}, eperm, false},
		{"unsupervised, network off: bind in its own namespace", func() ([]unix.SockFilter, error) { return fallbackFilter(netOff, false, true) }, "bind", [6]uint64{3}, unix.SECCOMP_RET_ALLOW, false},
		{"unsupervised, TCP ports: no Unix socket", func() ([]unix.SockFilter, error) { return fallbackFilter(netTCP, false, false) }, "socket", [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, eperm, false},
		{"unsupervised, TCP ports: TCP sockets", func() ([]unix.SockFilter, error) { return fallbackFilter(netTCP, false, false) }, "socket", [6]uint64{unix.AF_INET, unix.SOCK_STREAM}, unix.SECCOMP_RET_ALLOW, false},
		{"unsupervised, TCP ports: connect (Landlock checks the port)", func() ([]unix.SockFilter, error) { return fallbackFilter(netTCP, false, false) }, "connect", [6]uint64{3}, unix.SECCOMP_RET_ALLOW, false},
		{"unsupervised, network on: nothing (a gap Explain lists)", func() ([]unix.SockFilter, error) { return fallbackFilter(netOn, false, false) }, "", [6]uint64{}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := tc.prog()
			if err != nil {
				t.Fatal(err)
			}
			if tc.noProg {
				if prog != nil {
					t.Fatalf("want no filter, got %d instructions", len(prog))
				}
				return
			}
			vm := programVM(t, prog)
			if got := run(t, vm, seccompData(syscallNr(t, tc.call), arch, tc.args)); got != tc.want {
				t.Fatalf("%s: got %#x, want %#x", tc.call, got, tc.want)
			}
			// Every other call passes.
			if got := run(t, vm, seccompData(syscallNr(t, "getpid"), arch, [6]uint64{})); got != unix.SECCOMP_RET_ALLOW {
				t.Fatalf("getpid: got %#x", got)
			}
		})
	}
}

// TestUnixSocketsWithoutUserNotification: on a kernel where guard cannot
// make the connections, none is made with the network off, the listed
// sockets included, and the command's own servers still work.
func TestUnixSocketsWithoutUserNotification(t *testing.T) {
	k := requireFull(t)
	k.userNotif = false
	w := newWorld(t)
	agent := listenDaemon(t, filepath.Join(w.outside, "agent.sock"), "agent")
	p := w.policy()
	p.UnixSockets = []UnixSocket{{Path: agent.path}}
	start := func(action ...string) result {
		L := &Launcher{k: k, l: prepareLauncher(k, true, true)}
		outR, outW, _ := os.Pipe()
		errR, errW, _ := os.Pipe()
		exe := mustExecutable(t)
		proc, err := L.Start(p, Command{Path: exe, Args: append([]string{exe}, action...), Env: []string{"GUARD_SANDBOX_HELPER=1"}, Dir: w.ws, Stdout: outW, Stderr: errW})
		outW.Close()
		errW.Close()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(outR)
		errb, _ := io.ReadAll(errR)
		code, _ := proc.Wait()
		return result{code: code, stdout: string(out), stderr: string(errb)}
	}
	start("unix-read", agent.path).refusedWith(t, "a listed socket, without user notification", unix.EPERM)
	start("serve", filepath.Join(w.ws, "own.sock")).refused(t, "its own server needs connect too")
	if agent.accepted.Load() != 0 {
		t.Fatal("the socket was reached")
	}
}

// TestUnixSocketNamesAreCheckedBothWays: a harmless name that leads to a
// socket named like Docker's, or Docker's name leading elsewhere, is
// refused unless marked dangerous.
func TestUnixSocketNamesAreCheckedBothWays(t *testing.T) {
	requireUserNotif(t)
	w := newWorld(t)
	docker := listenDaemon(t, filepath.Join(w.outside, "docker.sock"), "docker")
	agent := listenDaemon(t, filepath.Join(w.outside, "agent.sock"), "agent")
	harmless := filepath.Join(w.outside, "harmless.sock")
	os.Symlink(docker.path, harmless)
	disguised := filepath.Join(w.outside, "run", "docker.sock")
	os.MkdirAll(filepath.Dir(disguised), 0o755)
	os.Symlink(agent.path, disguised)
	tests := []struct {
		name    string
		listed  UnixSocket
		connect string
		allowed bool
	}{
		{"a harmless name leading to docker.sock", UnixSocket{Path: harmless}, docker.path, false},
		{"the same, marked dangerous", UnixSocket{Path: harmless, Dangerous: true}, docker.path, true},
		{"docker.sock leading elsewhere", UnixSocket{Path: disguised}, agent.path, false},
		{"the same, marked dangerous", UnixSocket{Path: disguised, Dangerous: true}, agent.path, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := w.policy()
			p.UnixSockets = []UnixSocket{tc.listed}
			r := w.helper(t, p, "unix-read", tc.connect)
			if tc.allowed {
				r.ok(t, tc.name)
			} else {
				r.refusedWith(t, tc.name, unix.EACCES)
			}
		})
	}
}
