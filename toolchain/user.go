package toolchain

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// user finds where the user's own caches are: each toolchain's variable
// if the user set one, else its default.
type user struct {
	o Options
	// Memos of one plan: the go command's root (looked for on PATH) and
	// the go env files read, by path.
	root     *string
	envFiles map[string]map[string]string
}

// getenv returns a variable of the user's environment.
func (u *user) getenv(name string) (string, bool) {
	if u.o.Getenv == nil {
		return "", false
	}
	return u.o.Getenv(name)
}

// abs returns the variable's value when it is an absolute path.
func (u *user) abs(name string) string {
	v, _ := u.getenv(name)
	if filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return ""
}

func (u *user) home(rel ...string) string {
	return filepath.Join(append([]string{u.o.Home}, rel...)...)
}

func (u *user) xdgCache() string { return cacheHome(u.o) }

func (u *user) goCache() string {
	if v := u.goEnv("GOCACHE", ""); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return filepath.Join(u.xdgCache(), "go-build")
}

func (u *user) goModCache() string {
	if v := u.goEnv("GOMODCACHE", ""); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if gp := u.goEnv("GOPATH", ""); gp != "" {
		if first := filepath.SplitList(gp)[0]; filepath.IsAbs(first) {
			return filepath.Join(first, "pkg", "mod")
		}
	}
	return u.home("go", "pkg", "mod")
}

func (u *user) cargoHome() string {
	if v := u.abs("CARGO_HOME"); v != "" {
		return v
	}
	return u.home(".cargo")
}

// npmCache honours npm's variable in any case, as npm does.
func (u *user) npmCache() string {
	for _, name := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := u.abs(name); v != "" {
			return v
		}
	}
	return u.home(".npm")
}

func (u *user) pipCache() string {
	if v := u.abs("PIP_CACHE_DIR"); v != "" {
		return v
	}
	return filepath.Join(u.xdgCache(), "pip")
}

func (u *user) mavenRepo() string { return u.home(".m2", "repository") }

func (u *user) gradleHome() string {
	if v := u.abs("GRADLE_USER_HOME"); v != "" {
		return v
	}
	return u.home(".gradle")
}

// value is the value of a cache's variable for the command.
func (u *user) value(c cacheDef, cache Cache) string {
	if c.env != "MAVEN_OPTS" {
		return cache.Path
	}
	// Maven takes its repository as a property, after the user's own
	// options; 3.9 also reads the tail repository (the user's own),
	// without writing it. The mvn script splits MAVEN_OPTS at blanks.
	var opts []string
	if old, _ := u.getenv("MAVEN_OPTS"); old != "" {
		opts = append(opts, old)
	}
	if !strings.ContainsAny(cache.Path, " \t\n") {
		opts = append(opts, "-Dmaven.repo.local="+cache.Path)
	}
	if cache.ReadOnly != "" && !strings.ContainsAny(cache.ReadOnly, " \t\n") {
		opts = append(opts, "-Dmaven.repo.local.tail="+cache.ReadOnly)
	}
	return strings.Join(opts, " ")
}

// goEnv returns a setting of the go command as go would find it without
// running it: the environment, the user's go env file, GOROOT/go.env.
func (u *user) goEnv(key, def string) string {
	if v, ok := u.getenv(key); ok && v != "" {
		return v
	}
	file := u.abs("GOENV")
	if v, _ := u.getenv("GOENV"); v == "off" {
		file = ""
	} else if file == "" {
		config := u.o.ConfigHome
		if config == "" {
			config = u.home(".config")
		}
		file = filepath.Join(config, "go", "env")
	}
	if v := u.envFile(file)[key]; v != "" {
		return v
	}
	if root := u.goRoot(); root != "" {
		if v := u.envFile(filepath.Join(root, "go.env"))[key]; v != "" {
			return v
		}
	}
	return def
}

// envFile is readEnvFile's settings of a file, read once per plan.
func (u *user) envFile(file string) map[string]string {
	if file == "" {
		return nil
	}
	if u.envFiles == nil {
		u.envFiles = map[string]map[string]string{}
	}
	m, ok := u.envFiles[file]
	if !ok {
		m = readEnvFile(file)
		u.envFiles[file] = m
	}
	return m
}

// goRoot is $GOROOT, else where the go on PATH lives.
func (u *user) goRoot() string {
	if u.root == nil {
		r := u.findGoRoot()
		u.root = &r
	}
	return *u.root
}

func (u *user) findGoRoot() string {
	if v := u.abs("GOROOT"); v != "" {
		return v
	}
	path, _ := u.getenv("PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		exe := filepath.Join(dir, "go")
		if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				return filepath.Dir(filepath.Dir(real))
			}
		}
	}
	return ""
}

// readEnvFile reads the KEY=VALUE lines of a go env file (nil when
// absent); the first of a key counts, as for the go command.
func readEnvFile(file string) map[string]string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if _, seen := m[k]; ok && !seen {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}
