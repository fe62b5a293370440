// Package gitconfig finds, in git's configuration, the places from which git
// will later run code or take configuration: the hooks directory
// (core.hooksPath), included configuration files (include.path,
// includeIf.*.path), the templates copied into new repositories
// (init.templateDir), and the programs named by the variables that make git
// run one (core.fsmonitor, filter drivers, diff drivers, credential
// helpers, shell aliases, ...).
//
// A sandboxed command may write its workspace, so where one of these lies
// inside the workspace it could plant code that git runs outside any
// sandbox, on the user's next commit or status: guard keeps them read-only
// like .git/hooks and .git/config themselves. The package reads files only;
// it never runs git.
package gitconfig

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Place is a file or directory git takes code or configuration from.
type Place struct {
	Path string // absolute and clean, as configured (not resolved)
	Dir  bool   // a directory: everything in it counts
	// Hooks: a hooks directory, which may be made empty where it is
	// missing (git runs nothing from an empty one).
	Hooks bool
	// Why says which variable of which file names it, and what git does
	// with it: "core.hooksPath in /w/.git/config:3: git runs the hooks here".
	Why string
}

// Options say where to look. Empty fields are looked up the way git does
// (the environment and the home directory).
type Options struct {
	// Dir is where the repository is looked for: it or the nearest parent
	// holding .git. Without one, only the user's and the system's files are
	// read (relative places are then unknown and left out).
	Dir string
	// Home is the home directory (~ in paths, ~/.gitconfig).
	Home string
	// XDGConfigHome is $XDG_CONFIG_HOME ("" means Home/.config).
	XDGConfigHome string
	// System is the system-wide file; "" means /etc/gitconfig, "-" none.
	System string
	// Getenv, when set, is the environment git will run with: the files
	// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM name are read besides the
	// usual ones (git reads them instead; guard cannot know that the
	// user's next git runs with the same environment, so it takes both),
	// and so are the variables GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n> and
	// GIT_CONFIG_VALUE_<n> set.
	Getenv func(string) (string, bool)
}

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = 10

// maxFiles bounds the files read in all (includes fan out): past it, the
// rest is a problem the caller reports.
const maxFiles = 64

// maxFileSize bounds what is read of one file: configuration files are
// small, and a huge one is not worth stalling every command for.
const maxFileSize = 1 << 20

// Places returns the places the configuration of the repository holding
// o.Dir, the user's and the system's names, and the problems met on the
// way (a file that cannot be read or does not parse: what was read before
// the problem is used, and the caller should say the rest is unknown).
func Places(o Options) ([]Place, []error) {
	r := reader{o: o, seen: map[string]bool{}}
	if o.XDGConfigHome == "" && o.Home != "" {
		r.o.XDGConfigHome = filepath.Join(o.Home, ".config")
	}
	r.repo = findRepo(o.Dir)
	system := o.System
	if system == "" {
		system = "/etc/gitconfig"
	}
	if system != "-" {
		r.file(system, 0)
	}
	if r.o.XDGConfigHome != "" {
		r.file(filepath.Join(r.o.XDGConfigHome, "git", "config"), 0)
	}
	if o.Home != "" {
		r.file(filepath.Join(o.Home, ".gitconfig"), 0)
	}
	if o.Getenv != nil {
		r.environment(o.Getenv)
	}
	if r.repo.common != "" {
		r.file(filepath.Join(r.repo.common, "config"), 0)
		if r.repo.gitDir != r.repo.common {
			r.file(filepath.Join(r.repo.gitDir, "config.worktree"), 0)
		} else {
			r.file(filepath.Join(r.repo.common, "config.worktree"), 0)
		}
		// The default hooks directory: also on pathpolicy's list when it
		// is the workspace's own .git, but not for a linked worktree's.
		r.add(Place{Path: filepath.Join(r.repo.common, "hooks"), Dir: true, Hooks: true, Why: "git runs the hooks here"})
	}
	return r.places, r.errs
}

// environment reads the configuration git's environment variables give.
func (r *reader) environment(getenv func(string) (string, bool)) {
	for _, name := range []string{"GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"} {
		if v, ok := getenv(name); ok && v != "" {
			if p := r.pathname(v, ""); p != "" {
				r.add(Place{Path: p, Why: name + " in the environment: git reads this configuration file"})
				r.file(p, 0)
			}
		}
	}
	v, ok := getenv("GIT_CONFIG_COUNT")
	if !ok || v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 10000 {
		r.errs = append(r.errs, fmt.Errorf("GIT_CONFIG_COUNT=%q: not a count git reads", v))
		return
	}
	for i := 0; i < n; i++ {
		key, _ := getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		value, _ := getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
		first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
		if first <= 0 || last == len(key)-1 {
			continue // git refuses the key
		}
		// Section and key without case; the subsection as written.
		name := strings.ToLower(key[:first]) + key[first:last+1] + strings.ToLower(key[last+1:])
		r.entry("the environment (GIT_CONFIG_KEY_"+strconv.Itoa(i)+")", entry{name: name, value: value}, 0)
	}
}

// repo is where a repository keeps its configuration.
type repo struct {
	top    string // the working tree's top ("" when not found)
	gitDir string // its git directory (a linked worktree's own)
	common string // the common git directory (config, hooks)
}

// findRepo looks for .git in dir and its parents, as git does (without
// GIT_DIR and the ceiling directories: guard asks about the workspace,
// not about how the user's shell is set up).
func findRepo(dir string) repo {
	if dir == "" {
		return repo{}
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			switch {
			case fi.IsDir():
				return repo{top: d, gitDir: dotGit, common: commonDir(dotGit)}
			case fi.Mode().IsRegular():
				// "gitdir: PATH", relative to the file's directory: a linked
				// worktree or a submodule.
				if g := readGitFile(dotGit); g != "" {
					return repo{top: d, gitDir: g, common: commonDir(g)}
				}
			}
		}
		if d == filepath.Dir(d) {
			return repo{}
		}
	}
}

func readGitFile(p string) string {
	b, err := readSmall(p)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || g == "" {
		return ""
	}
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	return filepath.Clean(g)
}

// commonDir is a git directory's common directory: itself, or what its
// "commondir" file names (a linked worktree's).
func commonDir(gitDir string) string {
	b, err := readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return gitDir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

type reader struct {
	o      Options
	repo   repo
	seen   map[string]bool
	places []Place
	errs   []error
}

func (r *reader) add(p Place) {
	r.places = append(r.places, p)
}

// file reads one configuration file (and what it includes). A file that is
// not there is no problem: most of them are not.
func (r *reader) file(path string, depth int) {
	if r.seen[path] {
		return
	}
	if len(r.seen) >= maxFiles {
		r.errs = append(r.errs, fmt.Errorf("%s: not read: more than %d configuration files", path, maxFiles))
		return
	}
	r.seen[path] = true
	b, err := readSmall(path)
	if err != nil {
		if !os.IsNotExist(err) {
			r.errs = append(r.errs, err)
		}
		return
	}
	entries, err := parse(string(b))
	if err != nil {
		line := 1
		if len(entries) > 0 {
			line = entries[len(entries)-1].line
		}
		r.errs = append(r.errs, fmt.Errorf("%s: after line %d: %w", path, line, err))
	}
	for _, e := range entries {
		r.entry(path, e, depth)
	}
}

// entry takes in one variable of file (a line of 0: of the environment,
// where a relative include has no directory to be relative to).
func (r *reader) entry(file string, e entry, depth int) {
	at := fmt.Sprintf("%s in %s:%d", e.name, file, e.line)
	base := filepath.Dir(file)
	if e.line == 0 {
		at, base = fmt.Sprintf("%s in %s", e.name, file), ""
	}
	section, subsection, key := e.split()
	switch {
	case key == "path" && (section == "include" && subsection == "" || section == "includeif"):
		// Every includeIf counts, whatever its condition: the condition may
		// hold the next time git runs (another branch, another directory).
		p := r.pathname(e.value, base)
		if p == "" {
			return
		}
		r.add(Place{Path: p, Why: at + ": git reads this configuration file"})
		if depth+1 >= maxIncludeDepth {
			r.errs = append(r.errs, fmt.Errorf("%s: includes nested deeper than git's limit of %d", at, maxIncludeDepth))
			return
		}
		r.file(p, depth+1)
	case e.name == "core.hookspath":
		// Relative to where hooks run: the working tree's top.
		if p := r.pathname(e.value, r.repo.top); p != "" {
			r.add(Place{Path: p, Dir: true, Hooks: true, Why: at + ": git runs the hooks here"})
		}
	case e.name == "init.templatedir":
		if p := r.pathname(e.value, r.repo.top); p != "" {
			r.add(Place{Path: p, Dir: true, Why: at + ": git init and git clone copy its hooks into new repositories"})
		}
	default:
		why := programVariable(section, subsection, key, e.value)
		if why == "" {
			return
		}
		for _, p := range r.programs(e.value) {
			r.add(Place{Path: p, Why: at + ": " + why})
		}
	}
}

// pathname resolves a path-valued variable as git does
// (git_config_pathname): "~/" is the home directory, "~user/" another's
// (not followed: left out), a relative path is relative to base.
func (r *reader) pathname(v, base string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if r.o.Home == "" {
			return ""
		}
		v = filepath.Join(r.o.Home, v[1:])
	case strings.HasPrefix(v, "~"), strings.HasPrefix(v, "%(prefix)/"):
		return ""
	case !filepath.IsAbs(v):
		if base == "" {
			return ""
		}
		v = filepath.Join(base, v)
	}
	return filepath.Clean(v)
}

// programs returns the files a command-valued variable may run, when it
// names them by path ("./tools/clean", "/w/x", "~/bin/x"; a shell alias
// "!./run.sh"; "sh ./x.sh"; "FOO=./lib.so cmd"): every word of the command
// with a slash in it, or in what follows an "=" in it. That takes in some
// words that are not programs, which costs only their being kept
// read-only; reading the command as a shell would read it could miss one
// (git hands most of these to sh -c). A bare name is looked up on PATH,
// outside this package's concern. Relative paths are taken from the
// working tree's top, where git runs these commands.
func (r *reader) programs(v string) []string {
	var out []string
	for _, w := range shellWords(v) {
		if _, after, ok := strings.Cut(w, "="); ok {
			w = after
		}
		if !strings.Contains(w, "/") {
			continue
		}
		if p := r.pathname(w, r.repo.top); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// shellWords splits a command into words roughly as sh does: blanks and
// operators separate words; '...' is literal; "..." and a backslash quote
// what they hold. Expansions are left as they are written.
func shellWords(v string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case strings.IndexByte(" \t\n;&|<>()!`", c) >= 0:
			end()
		case c == '\'':
			inWord = true
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				j = len(v) - i - 1
			}
			w.WriteString(v[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				w.WriteByte(v[i])
			}
		case c == '\\' && i+1 < len(v):
			inWord = true
			i++
			w.WriteByte(v[i])
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	end()
	return words
}

// programVariable says what git does with the program a variable names,
// or "" for a variable that names none.
func programVariable(section, subsection, key, value string) string {
	v := strings.ToLower(strings.TrimSpace(value))
	isBool := v == "true" || v == "false" || v == "yes" || v == "no" || v == "on" || v == "off" || v == "1" || v == "0" || v == ""
	switch subsection {
	case "":
		switch section + "." + key {
		case "core.fsmonitor":
			if isBool {
				return ""
			}
			return "git runs it to learn what changed, on status and most commands"
		case "core.sshcommand":
			return "git runs it for every fetch and push over ssh"
		case "core.gitproxy":
			return "git runs it for every git:// connection"
		case "core.editor", "sequence.editor":
			return "git runs it to edit commit messages and rebase plans"
		case "core.pager":
			return "git runs it to page its output"
		case "core.askpass":
			return "git runs it to ask for passwords"
		case "diff.external":
			return "git diff runs it"
		case "gpg.program":
			return "git runs it to sign and verify commits and tags"
		case "credential.helper":
			return "git runs it to fetch credentials"
		case "interactive.difffilter":
			return "git add -p runs it"
		case "uploadpack.packobjectshook":
			return "git runs it to serve fetches"
		}
	default:
		switch section + ".*." + key {
		case "filter.*.clean", "filter.*.smudge", "filter.*.process":
			return "git runs this filter driver on add, checkout and status"
		case "diff.*.command", "diff.*.textconv":
			return "git runs this diff driver to show changes"
		case "merge.*.driver":
			return "git runs this merge driver"
		case "gpg.*.program":
			return "git runs it to sign and verify commits and tags"
		case "credential.*.helper":
			return "git runs it to fetch credentials"
		case "difftool.*.cmd", "mergetool.*.cmd":
			return "git difftool and mergetool run it"
		case "remote.*.uploadpack", "remote.*.receivepack":
			return "git runs it to fetch from or push to a local remote"
		case "submodule.*.update":
			if strings.HasPrefix(v, "!") {
				return "git submodule update runs it"
			}
			return ""
		}
	}
	if section == "pager" && subsection == "" && !isBool {
		return "git runs it to page a command's output"
	}
	if section == "alias" && subsection == "" && strings.HasPrefix(strings.TrimSpace(value), "!") {
		return "a git alias that runs it"
	}
	return ""
}

// readSmall reads a regular file of at most maxFileSize bytes. It opens
// without blocking and refuses anything else: a command could leave a
// named pipe where a configuration file is looked for, to hang the next
// guard that reads it.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v): not read", p, fi.Mode().Type())
	}
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if n > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes: not read", p, maxFileSize)
	}
	return b.Bytes(), nil
}
