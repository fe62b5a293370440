package pathpolicy

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Limits of path resolution. They are the kernel's own, so that guard
// refuses what the kernel would refuse to open, and they bound the work a
// hostile path can cause.
const (
	// MaxPathLen is PATH_MAX less its NUL: the kernel refuses a longer path
	// (and a longer symlink target) with ENAMETOOLONG.
	MaxPathLen = 4095
	// MaxNameLen is NAME_MAX, the longest name of one component.
	MaxNameLen = 255
	// MaxSymlinks is the kernel's MAXSYMLINKS: one lookup that meets more
	// links than this fails with ELOOP. Magic links of /proc count too.
	MaxSymlinks = 40
	// maxResolvedLen bounds the canonical path. Each of MaxSymlinks links
	// can add MaxPathLen bytes, so a hostile tree could otherwise make one
	// lookup build a path of 160 KiB.
	maxResolvedLen = 4 * (MaxPathLen + 1)
)

// Errors a path is refused with. A refused path is never allowed: the
// request it belongs to is refused.
var (
	ErrEmpty    = errors.New("empty path")
	ErrNUL      = errors.New("the path holds a NUL byte, which no file name can contain")
	ErrTooLong  = errors.New("path too long (ENAMETOOLONG)")
	ErrLoop     = errors.New("too many levels of symbolic links (ELOOP)")
	ErrUserHome = errors.New("~user is not expanded: write the home directory's path")
	ErrNoHome   = errors.New("~ needs the home directory, and none is known")
	ErrRelative = errors.New("a relative path needs an absolute directory to start from")
)

// PathError is a path that cannot be resolved. It names the path as given.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("path %q: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// Path is a path as guard judges it, in each of the forms a rule may see.
type Path struct {
	// Given is the path as the caller passed it.
	Given string
	// Absolute is Given with "~" expanded, made absolute against the
	// directory and cleaned lexically (".." simply removes the component
	// before it), as a person reads it.
	Absolute string
	// Canonical is the path the kernel would open: every symlink resolved,
	// ".." taken after the link it follows, and the part that does not
	// exist yet appended to its nearest existing ancestor. When Unknown is
	// set it begins with Unknown.
	Canonical string
	// NoFollow is what an operation that does not follow a final symlink
	// acts on (unlink, rename, O_NOFOLLOW): the link itself, in its
	// canonical directory. It equals Canonical unless the last component
	// is a symlink.
	NoFollow string
	// Exists reports whether Canonical exists now; Dir whether it is a
	// directory.
	Exists, Dir bool
	// Stream is set for the command's own standard input, output or error
	// (/dev/stdin, /dev/fd/1, /proc/self/fd/2): not a file guard can judge,
	// and nothing of the user's.
	Stream bool
	// Unknown, when set, is the beginning of Canonical whose target guard
	// cannot know before the command runs: a descriptor (/dev/fd/5), a
	// link into another process (/proc/123/root), a directory guard may not
	// look into. UnknownWhy says which. Such a path matches every deny and
	// ask rule of its kind, since it may lead anywhere.
	Unknown, UnknownWhy string

	// ids are the identities of the components of Canonical that exist,
	// with the length of Canonical up to each: they let a rule that names a
	// directory catch a second name of it (a bind mount, a hard link).
	ids []compID
	// linked is set when one of them is a regular file with more than one
	// hard link: a file that may have another name elsewhere.
	linked bool
}

// compID is an existing component of a canonical path.
type compID struct {
	end int // Canonical[:end] is the component's path
	id  fileID
}

// fileID identifies a file whatever its name: hard links and bind mounts
// share it.
type fileID struct{ dev, ino uint64 }

// Text is the path as a rule target: the canonical path, whose Unknown
// beginning is an unknown span.
func (p Path) Text() rule.Text {
	if p.Unknown == "" {
		return rule.Known(p.Canonical)
	}
	return rule.Text{{Lit: p.Unknown, Unknown: true}, {Lit: p.Canonical[len(p.Unknown):]}}
}

// Resolve turns path into its canonical form as the kernel would resolve it
// for a command running in dir: "~" and "~/..." are home, a relative path is
// relative to dir. It needs no policy; [Policy.Resolve] supplies home and
// the default directory.
func Resolve(p, dir, home string) (Path, error) { return resolve(p, dir, home, nil) }

// knownDir is a directory resolved once, whose components later
// resolutions start from instead of examining them again.
type knownDir struct {
	path  string
	comps []comp
}

// dirMemo resolves the absolute paths a policy or plan is made of (home,
// the workspace, guard's own files, the rules' directories), remembering
// each directory it resolved so that the next path below it starts there
// instead of examining every component from the root again: guard's files
// all lie below two or three such directories. It lives as long as the
// making of one policy or plan, and trusts the tree for no longer.
type dirMemo struct {
	known []knownDir
	paths map[string]Path
	// stats are the lstat answers (and link targets) so far: resolving
	// /bin, /lib and /usr/lib examines /usr each time.
	stats statCache
}

// statCache remembers lstat and readlink answers for a dirMemo.
type statCache struct {
	lstats map[string]lstatResult
	links  map[string]string
}

type lstatResult struct {
	st  stat
	err error
}

func (c *statCache) lstat(p string) (stat, error) {
	if r, ok := c.lstats[p]; ok {
		return r.st, r.err
	}
	st, err := lstat(p)
	if c.lstats == nil {
		c.lstats = map[string]lstatResult{}
	}
	c.lstats[p] = lstatResult{st, err}
	return st, err
}

func (c *statCache) readlink(p string) (string, error) {
	if t, ok := c.links[p]; ok {
		return t, nil
	}
	t, err := readlink(p)
	if err == nil {
		if c.links == nil {
			c.links = map[string]string{}
		}
		c.links[p] = t
	}
	return t, err
}

// resolve resolves the absolute path p (see [Resolve]).
func (m *dirMemo) resolve(p string) (Path, error) {
	if rp, ok := m.paths[p]; ok {
		return rp, nil
	}
	rp, k, err := resolveDir(p, m.known, &m.stats)
	if err != nil {
		return Path{}, err
	}
	if k != nil {
		m.known = append(m.known, *k)
	}
	if m.paths == nil {
		m.paths = map[string]Path{}
	}
	m.paths[p] = rp
	return rp, nil
}

// knownDir returns the canonical directory c as a knownDir, from the memo
// when it resolved it already.
func (m *dirMemo) knownDir(c string) (knownDir, bool) {
	for _, k := range m.known {
		if k.path == c {
			return k, true
		}
	}
	return resolveKnown(c)
}

// resolveKnown resolves an absolute directory into a knownDir.
func resolveKnown(dir string) (knownDir, bool) {
	_, k, err := resolveDir(dir, nil, nil)
	if err != nil || k == nil {
		return knownDir{}, false
	}
	return *k, true
}

// resolveDir resolves the absolute path full, starting from the known
// directories, and also returns it as a knownDir when it is an existing
// directory that every component of was examined.
func resolveDir(full string, known []knownDir, stats *statCache) (Path, *knownDir, error) {
	var k knownDir
	rp, err := resolveInto(full, "/", "", known, stats, &k)
	if err != nil || k.path == "" {
		return rp, nil, err
	}
	return rp, &k, nil
}

func resolve(p, dir, home string, known []knownDir) (Path, error) {
	return resolveInto(p, dir, home, known, nil, nil)
}

// resolveInto is resolve that, when asDir is not nil, also sets *asDir to the
// path as a knownDir if it is an existing directory every component of which
// was examined (else leaves it alone).
func resolveInto(p, dir, home string, known []knownDir, stats *statCache, asDir *knownDir) (Path, error) {
	out := Path{Given: p}
	fail := func(err error) (Path, error) { return Path{}, &PathError{Path: p, Err: err} }
	switch {
	case p == "":
		return fail(ErrEmpty)
	case strings.IndexByte(p, 0) >= 0 || strings.IndexByte(dir, 0) >= 0:
		return fail(ErrNUL)
	case len(p) > MaxPathLen:
		return fail(ErrTooLong)
	}
	full := p
	if strings.HasPrefix(p, "~") {
		name, rest, _ := strings.Cut(p[1:], "/")
		switch {
		case name != "":
			return fail(ErrUserHome)
		case home == "" || !path.IsAbs(home):
			return fail(ErrNoHome)
		}
		full = home + "/" + rest
	}
	if !path.IsAbs(full) {
		if !path.IsAbs(dir) {
			return fail(ErrRelative)
		}
		full = dir + "/" + full
	}
	if len(full) > maxResolvedLen {
		return fail(ErrTooLong)
	}
	out.Absolute = path.Clean(full)
	r := resolver{dir: dir, stats: stats}
	var stack [32]string
	var comps [32]comp
	r.stack, r.comps, r.buf = stack[:0], comps[:0], make([]byte, 0, len(full)+16)
	if err := r.run(full, known); err != nil {
		return fail(err)
	}
	r.finish(&out)
	if asDir != nil && r.mode == modeReal && (r.lastDir || len(r.comps) == 0) {
		*asDir = knownDir{path: r.current(), comps: append([]comp(nil), r.comps...)}
	}
	return out, nil
}

// A resolver walks a path component by component, like the kernel's
// lookup: each existing component is examined with lstat, a symlink's
// target is pushed in front of what remains, and ".." drops the last
// component of what has been resolved so far (so it goes up from a link's
// target, not from the link).
type resolver struct {
	dir   string     // the command's directory: what /proc/self/cwd leads to
	stats *statCache // answers to reuse, when not nil

	buf   []byte // the resolved path; "" is the root
	comps []comp
	mode  mode
	// missing counts the trailing components, in modeMissing, that do not
	// exist and were appended as written.
	missing int
	// selfAt is the index in comps of /proc's "self", in modeSelf.
	selfAt int

	stack    []string // what remains, last component first
	origLeft int      // how many of stack's bottom entries come from the path itself
	links    int

	noFollow   string
	unknown    string
	unknownWhy string
	rest       []string // components after the unknown part
	stream     bool
	lastDir    bool
}

type comp struct {
	name   string
	end    int // len(buf) with this component
	id     fileID
	real   bool // examined, and id is valid
	linked bool // a regular file with more than one hard link
}

type mode uint8

const (
	modeReal    mode = iota // everything so far exists and was examined
	modeMissing             // the last components do not exist; appended as written
	modeSelf                // inside the command's own /proc/self, which is not guard's
	modeUnknown             // past a component whose target guard cannot know
)

func (r *resolver) run(full string, known []knownDir) error {
	// Start from the longest directory already resolved that full begins
	// with, written as it was resolved.
	var start *knownDir
	for i := range known {
		k := &known[i]
		if (full == k.path || strings.HasPrefix(full, k.path) && full[len(k.path)] == '/') && (start == nil || len(k.path) > len(start.path)) {
			start = k
		}
	}
	if start != nil && start.path != "/" {
		r.comps = append(r.comps[:0], start.comps...)
		r.buf = append(r.buf[:0], start.path...)
		r.lastDir = true
		full = full[len(start.path):]
	}
	r.pushPath(full)
	r.origLeft = len(r.stack)
	// With a trailing "/" (or "/."), the kernel follows a final symlink
	// even for unlink or rename: there is no link-itself form.
	last := full[strings.LastIndexByte(full, '/')+1:]
	followFinal := last == "" || last == "."
	for len(r.stack) > 0 {
		name := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		final := false // the path's own last component
		if len(r.stack) < r.origLeft {
			r.origLeft--
			final = r.origLeft == 0 && !followFinal
		}
		if len(name) > MaxNameLen {
			return ErrTooLong
		}
		if r.mode == modeUnknown {
			r.rest = append(r.rest, name)
			continue
		}
		if name == ".." {
			r.up()
			continue
		}
		var err error
		switch r.mode {
		case modeMissing:
			r.push(name, fileID{}, false)
			r.missing++
		case modeSelf:
			err = r.self(name, len(r.stack) == 0)
		default:
			err = r.real(name, final)
		}
		if err != nil {
			return err
		}
		if len(r.buf) > maxResolvedLen {
			return ErrTooLong
		}
	}
	return nil
}

// real examines one component below an existing directory.
func (r *resolver) real(name string, final bool) error {
	cand := r.join(name)
	var st stat
	var err error
	if r.stats != nil {
		st, err = r.stats.lstat(cand)
	} else {
		st, err = lstat(cand)
	}
	switch {
	case err == nil:
	case errors.Is(err, errNotExist) || errors.Is(err, errNotDir):
		// The kernel would fail here; what remains is what the path will
		// mean once the missing directories are made.
		r.push(name, fileID{}, false)
		r.mode, r.missing = modeMissing, 1
		return nil
	case errors.Is(err, errAccess):
		// guard may not look here, so the component could be a link to
		// anywhere. (A command run as another user, through sudo say,
		// could look.)
		r.toUnknown(cand, fmt.Sprintf("guard may not look into %s (permission denied), so it cannot tell where the path leads", r.current()))
		return nil
	case errors.Is(err, errNameTooLong):
		return ErrTooLong
	default:
		return fmt.Errorf("examining %s: %w", cand, err)
	}
	if !st.link {
		r.push(name, st.id, true)
		r.comps[len(r.comps)-1].linked = st.reg && st.nlink > 1
		r.lastDir = st.dir
		return nil
	}
	if final && r.noFollow == "" {
		r.noFollow = cand
	}
	r.links++
	if r.links > MaxSymlinks {
		return ErrLoop
	}
	if len(r.comps) > 0 && isProcfs(r.current()) {
		parentRoot := r.comps[len(r.comps)-1].id.ino == procRootIno
		switch {
		case parentRoot && (name == "self" || name == "thread-self"):
			// guard's own /proc/self is not the command's: what lies
			// below it is judged by name, for the command's process.
			r.push(name, fileID{}, false)
			r.mode, r.selfAt = modeSelf, len(r.comps)-1
			return nil
		case !parentRoot:
			// A magic link of another process (its root, cwd, exe, a
			// descriptor): its readlink text is not what the kernel
			// follows, and it may change before the command runs.
			r.toUnknown(cand, fmt.Sprintf("%s is a link into a process's files, which guard cannot know before the command runs", cand))
			return nil
		}
		// /proc's own links (mounts -> self/mounts) are ordinary.
	}
	var target string
	if r.stats != nil {
		target, err = r.stats.readlink(cand)
	} else {
		target, err = readlink(cand)
	}
	if err != nil {
		return fmt.Errorf("reading the link %s: %w", cand, err)
	}
	return r.pushLink(target)
}

// self judges one component below the command's /proc/self, by name: the
// entries that are magic links lead to the command's root, its directory,
// or places guard cannot know. last is set for the lookup's last component.
func (r *resolver) self(name string, last bool) error {
	k := len(r.comps) - r.selfAt // the new component's depth below self
	parent := func(d int) string { return r.comps[r.selfAt+d].name }
	magicDir := func(s string) bool { return s == "fd" || s == "map_files" || s == "ns" }
	switch {
	case k == 1 && name == "root":
		if r.links++; r.links > MaxSymlinks {
			return ErrLoop
		}
		r.reset()
		return nil
	case k == 1 && name == "cwd":
		if r.links++; r.links > MaxSymlinks {
			return ErrLoop
		}
		if !strings.HasPrefix(r.dir, "/") {
			r.toUnknown(r.join(name), "the command's working directory is not known")
			return nil
		}
		return r.pushLink(r.dir)
	case k == 1 && name == "exe":
		r.toUnknown(r.join(name), "/proc/self/exe is the command's own program, which guard cannot know")
		return nil
	case k == 2 && parent(1) == "fd" && last && (name == "0" || name == "1" || name == "2"):
		r.push(name, fileID{}, false)
		r.stream = true
		return nil
	case k == 2 && magicDir(parent(1)):
		r.toUnknown(r.join(name), fmt.Sprintf("%s is one of the command's descriptors, which guard cannot know", r.join(name)))
		return nil
	case k == 3 && parent(1) == "task" && (name == "root" || name == "cwd" || name == "exe"),
		k == 4 && parent(1) == "task" && magicDir(parent(3)):
		r.toUnknown(r.join(name), fmt.Sprintf("%s is a link of one of the command's threads, which guard cannot know", r.join(name)))
		return nil
	}
	r.push(name, fileID{}, false)
	return nil
}

func (r *resolver) pushLink(target string) error {
	switch {
	case target == "":
		return errors.New("an empty symlink target")
	case len(target) > MaxPathLen:
		return ErrTooLong
	case strings.IndexByte(target, 0) >= 0:
		return ErrNUL
	}
	if target[0] == '/' {
		r.reset()
	}
	r.pushPath(target)
	return nil
}

// pushPath puts p's components in front of what remains.
func (r *resolver) pushPath(p string) {
	start := len(r.stack)
	for len(p) > 0 {
		i := strings.IndexByte(p, '/')
		c := p
		if i >= 0 {
			c, p = p[:i], p[i+1:]
		} else {
			p = ""
		}
		if c != "" && c != "." {
			r.stack = append(r.stack, c)
		}
	}
	for i, j := start, len(r.stack)-1; i < j; i, j = i+1, j-1 {
		r.stack[i], r.stack[j] = r.stack[j], r.stack[i]
	}
}

func (r *resolver) up() {
	if len(r.comps) == 0 {
		return // ".." of the root is the root
	}
	r.comps = r.comps[:len(r.comps)-1]
	r.buf = r.buf[:r.end()]
	switch r.mode {
	case modeMissing:
		if r.missing--; r.missing == 0 {
			r.mode = modeReal
		}
	case modeSelf:
		if len(r.comps) == r.selfAt {
			r.mode = modeReal
		}
	}
	r.lastDir = true
}

func (r *resolver) reset() {
	r.comps, r.buf, r.mode, r.missing = r.comps[:0], r.buf[:0], modeReal, 0
	r.lastDir = true
}

func (r *resolver) push(name string, id fileID, real bool) {
	r.buf = append(append(r.buf, '/'), name...)
	r.comps = append(r.comps, comp{name: name, end: len(r.buf), id: id, real: real})
}

func (r *resolver) toUnknown(prefix, why string) {
	r.mode, r.unknown, r.unknownWhy = modeUnknown, prefix, why
}

func (r *resolver) end() int {
	if len(r.comps) == 0 {
		return 0
	}
	return r.comps[len(r.comps)-1].end
}

// current is the path resolved so far.
func (r *resolver) current() string {
	if len(r.buf) == 0 {
		return "/"
	}
	return string(r.buf)
}

func (r *resolver) join(name string) string {
	return string(r.buf) + "/" + name
}

func (r *resolver) finish(out *Path) {
	if r.mode == modeUnknown {
		out.Unknown, out.UnknownWhy = r.unknown, r.unknownWhy
		out.Canonical = r.unknown
		if len(r.rest) > 0 {
			out.Canonical += "/" + strings.Join(r.rest, "/")
		}
		out.NoFollow = out.Canonical
		return
	}
	out.Canonical = r.current()
	out.NoFollow = out.Canonical
	if r.noFollow != "" {
		out.NoFollow = r.noFollow
	}
	out.Stream = r.stream
	out.Exists = r.mode == modeReal
	out.Dir = out.Exists && (len(r.comps) == 0 || r.lastDir)
	n := 0
	for n < len(r.comps) && r.comps[n].real {
		n++
	}
	if n > 0 {
		out.ids = make([]compID, n)
		for i, c := range r.comps[:n] {
			out.ids[i] = compID{end: c.end, id: c.id}
			out.linked = out.linked || c.linked
		}
	}
}
