package pathpolicy

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// expand replaces $root, $home, $ws in s.
func (tr tree) expand(s string) string {
	return strings.NewReplacer("$root", tr.root, "$home", tr.home, "$ws", tr.ws, "$out", tr.outside).Replace(s)
}

func TestResolve(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name      string
		path, dir string // dir "" is $ws
		canonical string
		noFollow  string // "" when equal to canonical
		exists    bool
		err       error
		unknown   bool
		stream    bool
		noKernel  bool // the kernel itself cannot open it (a missing directory on the way)
	}{
		{name: "plain file", path: "$ws/README.md", canonical: "$ws/README.md", exists: true},
		{name: "relative to dir", path: "src/main.go", canonical: "$ws/src/main.go", exists: true},
		{name: "relative with dot", path: "./src/../README.md", canonical: "$ws/README.md", exists: true},
		{name: "home alone", path: "~", canonical: "$home", exists: true},
		{name: "home slash", path: "~/", canonical: "$home", exists: true},
		{name: "home expansion", path: "~/.ssh/id_rsa", canonical: "$home/.ssh/id_rsa", exists: true},
		{name: "~user is refused", path: "~root/.ssh/id_rsa", err: ErrUserHome},
		{name: "symlink into a denied dir", path: "ok.txt", canonical: "$home/.ssh/id_rsa", noFollow: "$ws/ok.txt", exists: true},
		{name: "symlink chain", path: "chain1", canonical: "$home/.ssh/id_rsa", noFollow: "$ws/chain1", exists: true},
		{name: "symlinked directory", path: "sshdir/config", canonical: "$home/.ssh/config", exists: true},
		{name: "absolute symlink", path: "abs/id_rsa", canonical: "$home/.ssh/id_rsa", exists: true},
		{name: "dotdot after a symlink goes up from the target", path: "up/../x", canonical: "$ws/sub/x", exists: true},
		{name: "dotdot after a symlinked dir", path: "sshdir/../notes.txt", canonical: "$home/notes.txt", exists: true},
		{name: "dotdot above root stays at root", path: "/../../../" + "etc", canonical: "/etc", exists: true},
		{name: "trailing slash follows the link", path: "sshdir/", canonical: "$home/.ssh", exists: true},
		{name: "trailing slash dot follows the link", path: "sshdir/.", canonical: "$home/.ssh", exists: true},
		{name: "no trailing slash: the link itself", path: "sshdir", canonical: "$home/.ssh", noFollow: "$ws/sshdir", exists: true},
		{name: "trailing slashes and dots", path: "$ws/src///.//", canonical: "$ws/src", exists: true},
		{name: "double slashes", path: "//" + "etc//passwd", canonical: "/etc/passwd", exists: true},
		{name: "nonexistent file", path: "src/new.go", canonical: "$ws/src/new.go"},
		{name: "nonexistent file under a symlinked dir", path: "sshdir/new_key", canonical: "$home/.ssh/new_key"},
		{name: "nonexistent dirs under a symlinked dir", path: "sshdir/a/b/c", canonical: "$home/.ssh/a/b/c"},
		{name: "dotdot out of a missing dir resumes resolution", path: "missing/../ok.txt", canonical: "$home/.ssh/id_rsa", noFollow: "$ws/ok.txt", exists: true, noKernel: true},
		{name: "dangling symlink resolves to its target", path: "dangling", canonical: "$ws/nowhere/at/all", noFollow: "$ws/dangling"},
		{name: "file used as a dir", path: "README.md/x", canonical: "$ws/README.md/x"},
		{name: "symlink loop", path: "loop1", err: ErrLoop},
		{name: "self loop", path: "selfloop/x", err: ErrLoop},
		{name: "NUL byte", path: "a\x00b", err: ErrNUL},
		{name: "empty", path: "", err: ErrEmpty},
		{name: "over-long path", path: strings.Repeat("a/", 2100), err: ErrTooLong},
		{name: "over-long name", path: strings.Repeat("n", 256), err: ErrTooLong},
		{name: "over-long name under a missing dir", path: "missing/" + strings.Repeat("n", 256), err: ErrTooLong},
		{name: "proc self root", path: "/proc/self/root$home/.ssh/id_rsa", canonical: "$home/.ssh/id_rsa", exists: true},
		{name: "proc thread-self root", path: "/proc/thread-self/root$home/.ssh/id_rsa", canonical: "$home/.ssh/id_rsa", exists: true},
		{name: "proc self cwd is the command's dir", path: "/proc/self/cwd/ok.txt", canonical: "$home/.ssh/id_rsa", noFollow: "$ws/ok.txt", exists: true},
		{name: "proc self cwd with another dir", path: "/proc/self/cwd/id_rsa", dir: "$home/.ssh", canonical: "$home/.ssh/id_rsa", exists: true},
		{name: "proc self root dotdot", path: "/proc/self/root/../proc/self/root$ws/x", canonical: "$ws/x", exists: true},
		{name: "proc mounts is the command's", path: "/proc/mounts", canonical: "/proc/self/mounts", noFollow: "/proc/mounts"},
		{name: "proc self status is not guard's", path: "/proc/self/status", canonical: "/proc/self/status"},
		{name: "dotdot out of proc self", path: "/proc/self/../self/root/etc/passwd", canonical: "/etc/passwd", exists: true},
		{name: "stdin", path: "/dev/stdin", canonical: "/proc/self/fd/0", noFollow: "/dev/stdin", stream: true},
		{name: "stdout", path: "/dev/stdout", canonical: "/proc/self/fd/1", noFollow: "/dev/stdout", stream: true},
		{name: "dev fd 2", path: "/dev/fd/2", canonical: "/proc/self/fd/2", stream: true},
		{name: "a descriptor is unknown", path: "/dev/fd/5", canonical: "/proc/self/fd/5", unknown: true},
		{name: "under a descriptor is unknown", path: "/dev/fd/3/.ssh/id_rsa", canonical: "/proc/self/fd/3/.ssh/id_rsa", unknown: true},
		{name: "under stdin is unknown", path: "/dev/stdin/x", canonical: "/proc/self/fd/0/x", unknown: true},
		{name: "proc self exe is unknown", path: "/proc/self/exe", canonical: "/proc/self/exe", unknown: true},
		{name: "another process's root is unknown", path: "/proc/1/root$home/.ssh/id_rsa", canonical: "/proc/1/root$home/.ssh/id_rsa", unknown: true},
		{name: "another process's cwd is unknown", path: "/proc/1/cwd/x", canonical: "/proc/1/cwd/x", unknown: true},
		{name: "a thread's root is unknown", path: "/proc/self/task/1/root/etc", canonical: "/proc/self/task/1/root/etc", unknown: true},
		{name: "unicode name", path: "café/ß.txt", canonical: "$ws/café/ß.txt"},
		{name: "case is kept", path: "$home/.SSH/id_rsa", canonical: "$home/.SSH/id_rsa"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tr.ws
			if tc.dir != "" {
				dir = tr.expand(tc.dir)
			}
			got, err := Resolve(tr.expand(tc.path), dir, tr.home)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tr.expand(tc.canonical)
			if got.Canonical != want {
				t.Errorf("canonical = %q, want %q", got.Canonical, want)
			}
			wantNF := want
			if tc.noFollow != "" {
				wantNF = tr.expand(tc.noFollow)
			}
			if got.NoFollow != wantNF {
				t.Errorf("no-follow = %q, want %q", got.NoFollow, wantNF)
			}
			if got.Exists != tc.exists {
				t.Errorf("exists = %v, want %v", got.Exists, tc.exists)
			}
			if (got.Unknown != "") != tc.unknown {
				t.Errorf("unknown = %q (%s), want unknown %v", got.Unknown, got.UnknownWhy, tc.unknown)
			}
			if got.Stream != tc.stream {
				t.Errorf("stream = %v, want %v", got.Stream, tc.stream)
			}
			// Where the kernel can open the path, the canonical path must
			// be the same file, and hold no symlink.
			if got.Exists && !tc.noKernel && !strings.HasPrefix(tc.path, "/proc/") {
				kernelPath := tr.expand(tc.path)
				if !strings.HasPrefix(kernelPath, "/") && !strings.HasPrefix(kernelPath, "~") {
					kernelPath = dir + "/" + kernelPath
				}
				kernelPath = strings.Replace(kernelPath, "~", tr.home, 1)
				sameFile(t, kernelPath, got.Canonical)
			}
		})
	}
}

// sameFile checks that the kernel opens the same file through a and b, and
// that no component of b is a symlink.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	sa, err := statFollow(a)
	if err != nil {
		t.Fatalf("kernel cannot stat %s: %v", a, err)
	}
	sb, err := statFollow(b)
	if err != nil {
		t.Fatalf("kernel cannot stat canonical %s: %v", b, err)
	}
	if sa.id != sb.id {
		t.Errorf("%s and %s are different files", a, b)
	}
	for p := b; p != "/"; p = p[:max(strings.LastIndexByte(p, '/'), 1)] {
		if st, err := lstat(p); err == nil && st.link {
			t.Errorf("canonical %s holds the symlink %s", b, p)
		}
	}
}

func TestResolveMaxSymlinks(t *testing.T) {
	dir := t.TempDir()
	// A chain of exactly MaxSymlinks links resolves; one more is ELOOP,
	// as in the kernel.
	for i := 0; i <= MaxSymlinks; i++ {
		target := "file"
		if i > 0 {
			target = "l" + itoa(i-1)
		}
		if err := os.Symlink(target, dir+"/l"+itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dir+"/file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(dir+"/l"+itoa(MaxSymlinks-1), "/", ""); err != nil {
		t.Errorf("a chain of %d links: %v", MaxSymlinks, err)
	}
	if _, err := os.Stat(dir + "/l" + itoa(MaxSymlinks-1)); err != nil {
		t.Errorf("the kernel refuses a chain of %d links: %v", MaxSymlinks, err)
	}
	_, err := Resolve(dir+"/l"+itoa(MaxSymlinks), "/", "")
	if !errors.Is(err, ErrLoop) {
		t.Errorf("a chain of %d links: err = %v, want ELOOP", MaxSymlinks+1, err)
	}
	if _, err := os.Stat(dir + "/l" + itoa(MaxSymlinks)); err == nil {
		t.Errorf("the kernel follows a chain of %d links; guard's limit is wrong", MaxSymlinks+1)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
