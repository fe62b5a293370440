package toolchain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// home makes a user's home with the caches named, each holding a file.
func home(t *testing.T, caches ...string) string {
	t.Helper()
	h, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caches {
		if err := os.MkdirAll(filepath.Join(h, c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func envOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// value returns NAME's value in the plan's environment.
func value(p Plan, name string) (string, bool) {
	for _, kv := range p.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

func TestPlanPointsEveryToolchainAtTheWorkspacesCaches(t *testing.T) {
	h := home(t)
	ws := filepath.Join(h, "proj")
	p := New(Options{Home: h, Workspace: ws, Getenv: envOf(nil)})
	dir := WorkspaceDir(Options{Home: h, Workspace: ws})
	if p.Dir != dir || p.Root != filepath.Join(h, ".cache", "guard", "caches") || filepath.Dir(dir) != p.Root {
		t.Fatalf("Dir %q Root %q", p.Dir, p.Root)
	}
	if len(p.Writable) != 1 || p.Writable[0] != dir {
		t.Fatalf("want only the workspace's cache writable, got %q", p.Writable)
	}
	for name, sub := range map[string]string{
		"GOCACHE":          "go-build",
		"GOMODCACHE":       "go-mod",
		"CARGO_HOME":       "cargo",
		"npm_config_cache": "npm",
		"PIP_CACHE_DIR":    "pip",
		"GRADLE_USER_HOME": "gradle",
		"XDG_CACHE_HOME":   "xdg",
	} {
		if v, _ := value(p, name); v != filepath.Join(dir, sub) {
			t.Errorf("%s = %q, want %q", name, v, filepath.Join(dir, sub))
		}
	}
	if v, _ := value(p, "MAVEN_OPTS"); v != "-Dmaven.repo.local="+filepath.Join(dir, "m2") {
		t.Errorf("MAVEN_OPTS = %q", v)
	}
	for _, absent := range []string{"GOCACHEPROG", "GOPROXY", "GRADLE_RO_DEP_CACHE", "CARGO_TARGET_DIR"} {
		if v, ok := value(p, absent); ok {
			t.Errorf("%s = %q set without a cache of the user's to read", absent, v)
		}
	}
}

func TestPlanReadsTheUsersOwnCaches(t *testing.T) {
	h := home(t, ".cache/go-build", "go/pkg/mod/cache/download", ".gradle/caches/modules-2", ".m2/repository")
	ws := filepath.Join(h, "proj")
	o := Options{Home: h, Workspace: ws, Getenv: envOf(map[string]string{"MAVEN_OPTS": "-Xmx1g"}), GuardExe: "/usr/local/bin/guard"}
	p := New(o)
	dir := WorkspaceDir(o)
	tests := []struct{ name, want string }{
		{"GOCACHEPROG", "/usr/local/bin/guard go-cache"},
		{EnvGoCacheReadOnly, filepath.Join(h, ".cache", "go-build")},
		{"GOPROXY", "file://" + filepath.Join(h, "go/pkg/mod/cache/download") + ",https://proxy.golang.org,direct"},
		{"GRADLE_RO_DEP_CACHE", filepath.Join(h, ".gradle", "caches")},
		{"MAVEN_OPTS", "-Xmx1g -Dmaven.repo.local=" + filepath.Join(dir, "m2") + " -Dmaven.repo.local.tail=" + filepath.Join(h, ".m2", "repository")},
	}
	for _, tc := range tests {
		if v, _ := value(p, tc.name); v != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, v, tc.want)
		}
	}
	for _, c := range p.Caches {
		if c.Var == "GOCACHE" && c.ReadOnly != filepath.Join(h, ".cache", "go-build") {
			t.Errorf("the Go cache's read-only second is %q", c.ReadOnly)
		}
	}
	// The user's own settings decide where their caches are.
	gocache := filepath.Join(h, "elsewhere", "gocache")
	os.MkdirAll(gocache, 0o755)
	p = New(Options{Home: h, Workspace: ws, Getenv: envOf(map[string]string{"GOCACHE": gocache, "GOPROXY": "off"}), GuardExe: "/g"})
	if v, _ := value(p, EnvGoCacheReadOnly); v != gocache {
		t.Errorf("with GOCACHE set, the read-only cache is %q", v)
	}
	if v, _ := value(p, "GOPROXY"); !strings.HasSuffix(v, ",off") {
		t.Errorf("GOPROXY=off: the command's GOPROXY is %q, want the user's after the module cache", v)
	}
}

func TestGoEnvComesFromTheGoEnvFileAndGOROOT(t *testing.T) {
	h := home(t, "go/pkg/mod/cache/download", "goroot/bin")
	goroot := filepath.Join(h, "goroot")
	os.WriteFile(filepath.Join(goroot, "bin", "go"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(goroot, "go.env"), []byte("GOPROXY=https://goroot.example\n"), 0o644)
	os.WriteFile(filepath.Join(goroot, "VERSION"), []byte("go1.99\ntime x\n"), 0o644)
	path := filepath.Join(goroot, "bin")
	o := Options{Home: h, Workspace: filepath.Join(h, "p"), Getenv: envOf(map[string]string{"PATH": path})}
	if v, _ := value(New(o), "GOPROXY"); !strings.HasSuffix(v, ",https://goroot.example") {
		t.Errorf("GOROOT/go.env's GOPROXY was not kept: %q", v)
	}
	os.MkdirAll(filepath.Join(h, ".config", "go"), 0o755)
	os.WriteFile(filepath.Join(h, ".config", "go", "env"), []byte("GOPROXY=https://user.example\n"), 0o644)
	if v, _ := value(New(o), "GOPROXY"); !strings.HasSuffix(v, ",https://user.example") {
		t.Errorf("the user's go env file's GOPROXY was not kept: %q", v)
	}
	if got := GoToolchain((&user{o: o}).goRoot()); got != goroot+" go1.99" {
		t.Errorf("GoToolchain = %q", got)
	}
}

func TestShareGivesTheUsersOwnCachesWritable(t *testing.T) {
	h := home(t)
	ws := filepath.Join(h, "proj")
	p := New(Options{Home: h, Workspace: ws, Share: true, Getenv: envOf(nil), GuardExe: "/g"})
	want := []string{
		p.Dir,
		filepath.Join(h, ".cache", "go-build"),
		filepath.Join(h, "go", "pkg", "mod"),
		filepath.Join(h, ".cargo", "registry"),
		filepath.Join(h, ".cargo", "git"),
		filepath.Join(h, ".npm"),
		filepath.Join(h, ".cache", "pip"),
		filepath.Join(h, ".m2", "repository"),
		filepath.Join(h, ".gradle", "caches"),
		filepath.Join(h, ".gradle", "wrapper"),
	}
	if strings.Join(p.Writable, "\n") != strings.Join(want, "\n") {
		t.Fatalf("writable:\n%s\nwant:\n%s", strings.Join(p.Writable, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range p.Writable {
		if w == filepath.Join(h, ".cargo") || w == filepath.Join(h, ".cargo", "bin") || w == filepath.Join(h, ".cache") {
			t.Errorf("share made %s writable: it holds programs on PATH, or every program's cache", w)
		}
	}
	if v, _ := value(p, "XDG_CACHE_HOME"); v != filepath.Join(p.Dir, "xdg") {
		t.Errorf("other programs' caches must stay private with share, XDG_CACHE_HOME = %q", v)
	}
	if v, _ := value(p, "GOCACHE"); v != filepath.Join(h, ".cache", "go-build") {
		t.Errorf("GOCACHE = %q", v)
	}
	if _, ok := value(p, "GOCACHEPROG"); ok {
		t.Error("GOCACHEPROG with share")
	}
	if err := p.Make(); err != nil {
		t.Fatal(err)
	}
	for _, w := range p.Writable {
		if st, err := os.Stat(w); err != nil || !st.IsDir() {
			t.Errorf("Make did not make %s: %v", w, err)
		}
	}
}

func TestCargoTargetDirOutsideTheWorkspaceIsACache(t *testing.T) {
	h := home(t)
	ws := filepath.Join(h, "proj")
	tests := []struct {
		name, target string
		redirected   bool
	}{
		{"outside", filepath.Join(h, "target-shared"), true},
		{"inside", filepath.Join(ws, "target"), false},
		{"relative", "target", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{Home: h, Workspace: ws, Getenv: envOf(map[string]string{"CARGO_TARGET_DIR": tc.target})})
			v, ok := value(p, "CARGO_TARGET_DIR")
			if ok != tc.redirected || ok && v != filepath.Join(p.Dir, "cargo-target") {
				t.Fatalf("CARGO_TARGET_DIR = %q (set %v), want redirected=%v", v, ok, tc.redirected)
			}
		})
	}
}

func TestApplyReplacesTheUsersVariables(t *testing.T) {
	h := home(t)
	p := New(Options{Home: h, Workspace: filepath.Join(h, "p"), Getenv: envOf(nil)})
	env := p.Apply([]string{"GOCACHE=/home/u/.cache/go-build", "NPM_CONFIG_CACHE=/home/u/.npm", "Npm_Config_Cache=/x", "PATH=/bin", "GOCACHEX=kept"})
	seen := map[string]int{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		seen[strings.ToLower(k)]++
	}
	if seen["gocache"] != 1 || seen["npm_config_cache"] != 1 || seen["path"] != 1 || seen["gocachex"] != 1 {
		t.Fatalf("each variable once, the user's replaced: %q", env)
	}
	for _, kv := range env {
		if strings.Contains(kv, "/home/u/") || kv == "Npm_Config_Cache=/x" {
			t.Fatalf("the user's value survived: %q", kv)
		}
	}
}

func TestGoCacheProgQuoting(t *testing.T) {
	tests := []struct{ exe, want string }{
		{"/usr/local/bin/guard", "/usr/local/bin/guard go-cache"},
		{"/opt/my tools/guard", "'/opt/my tools/guard' go-cache"},
		{"/opt/it's/guard", ""},
		{"/opt/a\"b/guard", "'/opt/a\"b/guard' go-cache"},
		{"guard", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := goCacheProg(tc.exe); got != tc.want {
			t.Errorf("goCacheProg(%q) = %q, want %q", tc.exe, got, tc.want)
		}
	}
}

func TestWorkspaceDirs(t *testing.T) {
	a := WorkspaceDir(Options{Home: "/h", Workspace: "/src/a/proj"})
	b := WorkspaceDir(Options{Home: "/h", Workspace: "/src/b/proj"})
	if a == b || !strings.HasPrefix(filepath.Base(a), "proj-") || filepath.Dir(a) != "/h/.cache/guard/caches" {
		t.Fatalf("two workspaces named proj: %q %q", a, b)
	}
	for _, hostile := range []string{"/x/..", "/x/.hidden", "/x/a b\nc", "/"} {
		d := WorkspaceDir(Options{Home: "/h", Workspace: hostile})
		if filepath.Dir(d) != "/h/.cache/guard/caches" || strings.ContainsAny(filepath.Base(d), " \n/") || strings.HasPrefix(filepath.Base(d), ".") {
			t.Errorf("workspace %q: cache dir %q", hostile, d)
		}
	}
	if d := WorkspaceDir(Options{Home: "/h", CacheHome: "/xdg", Workspace: "/p"}); !strings.HasPrefix(d, "/xdg/guard/caches/") {
		t.Errorf("XDG_CACHE_HOME not honoured: %q", d)
	}
}

func TestMakeRefusesSymlinks(t *testing.T) {
	h := home(t, ".cache")
	victim := filepath.Join(h, "victim")
	os.MkdirAll(victim, 0o755)
	// A symlink where guard's cache directory goes (planted by a command
	// that could write ~/.cache, with allow_write).
	if err := os.Symlink(victim, filepath.Join(h, ".cache", "guard")); err != nil {
		t.Fatal(err)
	}
	p := New(Options{Home: h, Workspace: filepath.Join(h, "p"), Getenv: envOf(nil)})
	if err := p.Make(); err == nil {
		t.Fatal("Make followed a symlink")
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Fatalf("Make wrote through the symlink: %v", entries)
	}
	os.Remove(filepath.Join(h, ".cache", "guard"))
	if err := p.Make(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p.Dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the cache directory: %v %v", st, err)
	}
	// The part of the path that exists may be a symlink of the user's.
	h2 := home(t, "disk/cache")
	os.Symlink(filepath.Join(h2, "disk", "cache"), filepath.Join(h2, ".cache"))
	p2 := New(Options{Home: h2, Workspace: "/p", Getenv: envOf(nil)})
	if err := p2.Make(); err != nil {
		t.Fatalf("~/.cache as a symlink of the user's: %v", err)
	}
}
