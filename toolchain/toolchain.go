// Package toolchain gives the commands guard sandboxes the build and
// package caches of their toolchains (Go, Cargo, npm, pip, Maven, Gradle,
// and every program that keeps its cache under XDG_CACHE_HOME) without
// letting them poison the caches the user's own builds trust.
//
// A command cannot write the user's real caches: a planted compiled package,
// module or crate is code that runs later, outside any sandbox. Nor can it
// use them read-only, since every toolchain writes its cache as it builds.
// So each workspace gets caches of its own, under guard's cache directory,
// and the command's environment points the toolchains at them; where a
// toolchain can read a second cache without writing it (Go's build cache
// through GOCACHEPROG, Go's modules through a file:// GOPROXY, Maven's
// tail repository, Gradle's read-only dependency cache), the user's real one
// is that second cache, so that a new workspace starts warm. The sandbox
// keeps the workspace's caches writable and every other workspace's out of
// sight ([Plan.Root] is private).
//
// [Options.Share] ([sandbox] share_caches) gives the command the user's own
// caches instead, writable: faster, and the risk above.
package toolchain

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/config"
)

// Options say whose caches, for which workspace.
type Options struct {
	Home       string // the user's home directory, absolute
	CacheHome  string // $XDG_CACHE_HOME; "" means Home/.cache
	ConfigHome string // $XDG_CONFIG_HOME; "" means Home/.config (Go's env file)
	Workspace  string // absolute, canonical
	// Getenv is the user's environment, as guard got it.
	Getenv func(string) (string, bool)
	// Share gives the command the user's own caches, writable.
	Share bool
	// GuardExe is guard's own executable, which serves Go's build cache
	// inside the sandbox (GOCACHEPROG); "" leaves Go with its private
	// cache alone.
	GuardExe string
}

// Plan is what one command gets for its toolchains' caches.
type Plan struct {
	// Dir is the workspace's own cache directory ("" with Share).
	Dir string
	// Root holds every workspace's cache directory: the sandbox hides it
	// but for Dir.
	Root string
	// Env are the variables to set in the command's environment, NAME=VALUE,
	// each replacing the user's (see [Plan.Apply]).
	Env []string
	// Writable are the directories the command must be able to write:
	// Dir, or with Share the user's own caches.
	Writable []string
	// Caches say, for guard sandbox explain, where each cache is.
	Caches []Cache
	// share says the plan gives the user's own caches.
	share bool
	// fold are the variables whose names the toolchain reads in any case
	// (npm_config_*): Apply drops every spelling of them.
	fold []string
}

// Cache is one toolchain cache as the command sees it.
type Cache struct {
	Tool string // "go", "rust", "node", "python", "java", "any"
	Var  string // the variable that points the toolchain at it
	Path string // where the command's cache is
	// ReadOnly is the user's own cache, which the toolchain also reads
	// (without writing it), or "".
	ReadOnly string
	Why      string
}

// cacheDef is an entry of the table of caches.
type cacheDef struct {
	tool string
	env  string // the variable that points the toolchain at the cache
	dir  string // its directory inside the workspace's cache directory
	// real is where the user's own cache is (for share, and as a
	// read-only second cache where the toolchain can read one).
	real func(u *user) string
	// share are the parts of the real cache that share makes writable
	// (relative; none: the whole of it). A toolchain's home that also
	// holds programs on PATH (~/.cargo/bin) is shared in part only.
	share []string
	// fold: the toolchain reads the variable's name in any case.
	fold bool
	// never shared: the caches of every other program stay private.
	private bool
	why     string
}

// caches is the table: every cache a command gets, and why it matters.
var caches = []cacheDef{
	{tool: "go", env: "GOCACHE", dir: "go-build", real: (*user).goCache,
		why: "compiled packages and test results, which later builds link and trust"},
	{tool: "go", env: "GOMODCACHE", dir: "go-mod", real: (*user).goModCache,
		why: "downloaded modules, whose code later builds compile"},
	{tool: "rust", env: "CARGO_HOME", dir: "cargo", real: (*user).cargoHome, share: []string{"registry", "git"},
		why: "the crates registry and git checkouts, whose build scripts run at the next build; ~/.cargo/bin is on PATH"},
	{tool: "node", env: "npm_config_cache", dir: "npm", real: (*user).npmCache, fold: true,
		why: "npm's package cache, which later installs unpack and run"},
	{tool: "python", env: "PIP_CACHE_DIR", dir: "pip", real: (*user).pipCache,
		why: "downloaded and built wheels, which later installs put on sys.path"},
	{tool: "java", env: "MAVEN_OPTS", dir: "m2", real: (*user).mavenRepo,
		why: "Maven's local repository: plugins and dependencies later builds run"},
	{tool: "java", env: "GRADLE_USER_HOME", dir: "gradle", real: (*user).gradleHome, share: []string{"caches", "wrapper"},
		why: "Gradle's dependency cache and wrapper distributions, which later builds run"},
	{tool: "any", env: "XDG_CACHE_HOME", dir: "xdg", real: (*user).xdgCache, private: true,
		why: "every other program's cache (pre-commit's hook environments, uv, poetry, ccache, golangci-lint)"},
}

// Root returns the directory that holds every workspace's caches.
func Root(o Options) string {
	return filepath.Join(cacheHome(o), "guard", "caches")
}

func cacheHome(o Options) string {
	if o.CacheHome != "" {
		return o.CacheHome
	}
	return filepath.Join(o.Home, ".cache")
}

// WorkspaceDir returns the cache directory of a workspace:
// Root/<name>-<hash>, the name for people reading the directory and the
// hash (of the whole path) to tell apart workspaces of the same name.
func WorkspaceDir(o Options) string {
	return filepath.Join(Root(o), config.WorkspaceKey(o.Workspace))
}

// New computes the plan of a workspace. It looks at the file system (which
// of the user's caches exist) but changes nothing: [Plan.Make] does.
func New(o Options) Plan {
	u := &user{o: o}
	p := Plan{Root: Root(o), Dir: WorkspaceDir(o), share: o.Share}
	p.Writable = []string{p.Dir}
	for _, c := range caches {
		real := c.real(u)
		cache := Cache{Tool: c.tool, Var: c.env, Path: filepath.Join(p.Dir, c.dir), Why: c.why}
		if o.Share && !c.private && real != "" {
			cache.Path = real
			if len(c.share) == 0 {
				p.Writable = append(p.Writable, real)
			}
			for _, part := range c.share {
				p.Writable = append(p.Writable, filepath.Join(real, part))
			}
		} else if real != "" {
			cache.ReadOnly = p.readOnly(u, c, real)
		}
		p.Env = append(p.Env, c.env+"="+u.value(c, cache))
		if c.fold {
			p.fold = append(p.fold, c.env)
		}
		p.Caches = append(p.Caches, cache)
	}
	// A Cargo target directory the user keeps outside the workspace is a
	// shared build cache too.
	if t, ok := u.getenv("CARGO_TARGET_DIR"); ok && filepath.IsAbs(t) && !within(filepath.Clean(t), o.Workspace) {
		cache := Cache{Tool: "rust", Var: "CARGO_TARGET_DIR", Path: filepath.Join(p.Dir, "cargo-target"), Why: "a build directory outside the workspace, which later builds reuse"}
		if o.Share {
			cache.Path = filepath.Clean(t)
			p.Writable = append(p.Writable, cache.Path)
		}
		p.Env = append(p.Env, "CARGO_TARGET_DIR="+cache.Path)
		p.Caches = append(p.Caches, cache)
	}
	return p
}

// readOnly sets up the toolchain to read the user's own cache real after
// its private one, where it can, and returns real then ("" otherwise).
func (p *Plan) readOnly(u *user, c cacheDef, real string) string {
	switch c.env {
	case "GOCACHE":
		// Go reads the user's build cache through guard (GOCACHEPROG,
		// Go 1.24; older versions ignore it and use GOCACHE alone), until
		// the workspace's holds what its builds need.
		prog := goCacheProg(u.o.GuardExe)
		if prog == "" || !isDir(real) {
			return ""
		}
		id := GoToolchain(u.goRoot())
		if warm(filepath.Join(p.Dir, c.dir), id) {
			return ""
		}
		p.Env = append(p.Env, EnvGoCacheReadOnly+"="+real, EnvGoToolchain+"="+id, "GOCACHEPROG="+prog)
		return real
	case "GOMODCACHE":
		// Modules the user has already downloaded come from their module
		// cache, read as a proxy; the rest from the user's proxies, when
		// the network is on. go.sum still checks every one.
		download := filepath.Join(real, "cache", "download")
		if !isDir(download) {
			return ""
		}
		file := (&url.URL{Scheme: "file", Path: download}).String()
		p.Env = append(p.Env, "GOPROXY="+file+","+u.goEnv("GOPROXY", "https://proxy.golang.org,direct"))
		return real
	case "GRADLE_USER_HOME":
		caches := filepath.Join(real, "caches")
		if !isDir(filepath.Join(caches, "modules-2")) {
			return ""
		}
		p.Env = append(p.Env, "GRADLE_RO_DEP_CACHE="+caches)
		return caches
	case "MAVEN_OPTS":
		if !isDir(real) {
			return ""
		}
		return real // in the value: see user.value
	}
	return ""
}

// EnvGoCacheReadOnly names the user's Go build caches (a path list) for
// guard's GOCACHEPROG ([ServeGoCache]), which reads them without writing
// them.
const EnvGoCacheReadOnly = "GUARD_GOCACHE_READONLY"

// EnvGoToolchain tells guard's GOCACHEPROG which toolchain guard found
// ([GoToolchain]), for its warm mark.
const EnvGoToolchain = "GUARD_GO_TOOLCHAIN"

// GoToolchain identifies the Go toolchain in goroot: its directory and
// version ("" when unknown). A new version builds everything anew.
func GoToolchain(goroot string) string {
	if goroot == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		return ""
	}
	version, _, _ := strings.Cut(string(b), "\n")
	return goroot + " " + strings.TrimSpace(version)
}

// goCacheProg is the GOCACHEPROG that runs guard's cache server, or "" when
// guard's path cannot be written in it.
func goCacheProg(exe string) string {
	switch {
	case exe == "" || !filepath.IsAbs(exe):
		return ""
	case !strings.ContainsAny(exe, " \t\n'\""):
		return exe + " go-cache"
	case !strings.ContainsAny(exe, "'\n"):
		return "'" + exe + "' go-cache"
	}
	return ""
}

// Apply returns env with the plan's variables set, replacing the user's
// (every spelling of a name the toolchain reads in any case).
func (p Plan) Apply(env []string) []string {
	set := map[string]bool{}
	for _, kv := range p.Env {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	folded := map[string]bool{}
	for _, f := range p.fold {
		folded[strings.ToLower(f)] = true
	}
	out := make([]string, 0, len(env)+len(p.Env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if set[name] || folded[strings.ToLower(name)] {
			continue
		}
		out = append(out, kv)
	}
	return append(out, p.Env...)
}

// Make creates the directories the plan needs: the workspace's cache
// directory (private to the user) and, with Share, the user's caches that
// are missing. Below the user's cache directory (which may be a symlink of
// their own), guard's directories are never reached through a symlink: a
// command that could write there could plant one, and guard would make
// directories where it points.
func (p Plan) Make() error {
	base := filepath.Dir(filepath.Dir(p.Root)) // XDG_CACHE_HOME
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("toolchain caches: %w", err)
	}
	rel, err := filepath.Rel(base, p.Dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("toolchain caches: %s is not inside %s", p.Dir, base) // cannot happen
	}
	if err := mkdirBelow(base, rel); err != nil {
		return fmt.Errorf("toolchain caches: %w", err)
	}
	if p.share {
		for _, w := range p.Writable {
			if w != p.Dir {
				if err := os.MkdirAll(w, 0o700); err != nil {
					return fmt.Errorf("toolchain caches: %w", err)
				}
			}
		}
	}
	return nil
}

// mkdirBelow makes the directories of rel (0700) beneath base, refusing a
// symlink anywhere in rel.
func mkdirBelow(base, rel string) error {
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		return err
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", real, err)
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if name == "" || name == "." || name == ".." {
			unix.Close(fd)
			return fmt.Errorf("%q: not a plain path", rel)
		}
		if err := unix.Mkdirat(fd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return fmt.Errorf("%s: %w", filepath.Join(real, name), err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("%s: %w (not a directory of guard's: a symlink?)", filepath.Join(real, name), err)
		}
		fd = next
		real = filepath.Join(real, name)
	}
	unix.Close(fd)
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// within reports whether path is dir or beneath it (both clean).
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
