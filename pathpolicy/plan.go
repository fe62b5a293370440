package pathpolicy

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Limits of the plan. Glob patterns are expanded by walking the directories
// they can reach; these bound the work of one plan, which runs before every
// sandboxed command. Past a limit the rules concerned are reported as only
// partly enforced by the kernel, never silently dropped.
const (
	// MaxWalkEntries is the most directory entries one plan looks at:
	// about 200 ms of walking where a getdents of 50 entries costs 25 µs
	// (the development VM), and room for a home of 100,000 files.
	MaxWalkEntries = 200_000
	// MaxWalkDepth is the deepest directory the walk enters below a root.
	MaxWalkDepth = 64
	// MaxBlockedPaths is the most paths one plan blocks: each costs the
	// sandbox a Landlock rule or a mount, and a rule that matches more
	// files than this (read(*.go)) is not a list of secrets.
	MaxBlockedPaths = 4096
)

// Enforcement says how the sandbox enforces a read rule.
type Enforcement string

const (
	// EnforceKernel: every path the rule matches now is blocked.
	EnforceKernel Enforcement = "kernel"
	// EnforceKernelInRoots: the rule matches anywhere; every path it matches
	// under the searched roots (home and workspace) is blocked, and
	// elsewhere only the gate stops reads.
	EnforceKernelInRoots Enforcement = "kernel-in-roots"
	// EnforcePartial: some paths are blocked, others are left to the gate
	// (the walk reached a limit, or a path cannot be blocked).
	EnforcePartial Enforcement = "partial"
	// EnforceGate: nothing is blocked; only the gate stops reads.
	EnforceGate Enforcement = "gate-only"
)

// PlanOptions are the places a plan walks, and its limits.
type PlanOptions struct {
	// Home and Workspace expand the rules where the set has no env of its
	// own, and are the roots searched for patterns that match anywhere.
	Home, Workspace string
	// MaxWalkEntries and MaxBlockedPaths lower the package's limits when
	// set (tests); they cannot raise them.
	MaxWalkEntries, MaxBlockedPaths int
}

// Plan is the sandbox's share of the read rules: the concrete paths to
// block, and for each read deny or ask rule (no one can be asked inside the
// sandbox, so ask rules block too) how it is enforced.
type Plan struct {
	Blocked []BlockedPath `json:"blocked"`
	Rules   []RulePlan    `json:"rules"`
	// Visited is the number of directory entries the walk looked at.
	Visited int `json:"visited"`
}

// BlockedPath is a path the sandbox must keep the command from reading.
type BlockedPath struct {
	Path string `json:"path"`
	// Dir: a directory, to be blocked with everything inside it.
	Dir bool `json:"dir"`
	// Exists is false for a path a literal rule names that is not there
	// now; the sandbox may keep it from being made, or leave it to the
	// gate.
	Exists bool `json:"exists"`
	// Links is the number of hard links of a file that has more than one:
	// its other names are not blocked (Landlock follows paths, not files).
	Links int `json:"links,omitempty"`
	// Via is the symlink the rule matched, when Path is its target.
	Via   string   `json:"via,omitempty"`
	Rules []string `json:"rules"`
}

// RulePlan says how one read rule is enforced.
type RulePlan struct {
	Rule        string      `json:"rule"`
	Action      rule.Action `json:"action"`
	Source      rule.Source `json:"source"`
	Where       string      `json:"where"`
	Enforcement Enforcement `json:"enforcement"`
	// Paths are the paths blocked for it.
	Paths []string `json:"paths,omitempty"`
	// Searched are the directories walked for a glob pattern.
	Searched []string `json:"searched,omitempty"`
	// Skipped is the number of directories the walk did not enter for a
	// rule that matches anywhere (see [WalkSkips]): only the gate stops
	// reads there. SkippedDirs are the first [MaxReportedSkips] of them.
	Skipped     int      `json:"skipped,omitempty"`
	SkippedDirs []string `json:"skipped_dirs,omitempty"`
	Why         string   `json:"why"`
}

// essential are paths every command needs to read: a rule that would block
// one of them, or a directory holding one, is left to the gate. Blocking a
// file inside them (/etc/shadow, /usr/bin/python3) is fine.
var essential = []struct{ path, why string }{
	{"/bin", "programs"},
	{"/sbin", "programs"},
	{"/usr/bin", "programs"},
	{"/usr/sbin", "programs"},
	{"/lib", "shared libraries"},
	{"/lib64", "shared libraries"},
	{"/usr/lib", "shared libraries"},
	{"/usr/lib64", "shared libraries"},
	{"/usr/libexec", "helper programs"},
	{"/etc/ld.so.cache", "where the dynamic linker finds libraries"},
	{"/etc/ld.so.preload", "libraries the dynamic linker loads"},
	{"/etc/passwd", "user names, which git, ssh and shells look up"},
	{"/etc/group", "group names"},
	{"/etc/nsswitch.conf", "how names are looked up"},
	{"/dev/null", "every program's sink"},
	{"/dev/urandom", "every runtime's randomness"},
	{"/proc/self", "what runtimes read about their own process"},
	{"/tmp", "temporary files"},
}

// NewPlan computes the blocked paths of set's read deny and ask rules.
// Literal paths are blocked directly; a glob pattern is expanded by a
// bounded walk of the directory before its first '*' (home and the
// workspace for a pattern that starts with '*'). A pattern that covers a
// whole directory (~/.ssh/*) blocks the directory. The walk does not follow
// symlinks; a symlink that matches has its target blocked. The output is
// sorted, so two plans of the same tree are the same.
func NewPlan(set *rule.Set, o PlanOptions) Plan {
	lim := func(v, max int) int {
		if v > 0 && v < max {
			return v
		}
		return max
	}
	// The walk takes each directory's entries in the order the kernel
	// lists them: sorting them costs a tenth of a large walk, and most plans
	// come out the same whatever that order. Where it could matter (a limit
	// was reached, so which entries were looked at depends on the order; a
	// path refused or reached through two links), the plan is made again
	// with the entries sorted by name, to be the same on every run.
	if pl := newPlan(set, o, lim, false); !pl.orderMatters {
		return pl.finish()
	}
	return newPlan(set, o, lim, true).finish()
}

// newPlan computes a plan, walking directories in sorted order or not.
func newPlan(set *rule.Set, o PlanOptions, lim func(v, max int) int, sorted bool) *planner {
	pl := &planner{maxEntries: lim(o.MaxWalkEntries, MaxWalkEntries), maxBlocked: lim(o.MaxBlockedPaths, MaxBlockedPaths), sorted: sorted}
	env := rule.Env{Home: o.Home, Workspace: o.Workspace}
	if set != nil {
		// The rules' own env decides what they mean; o fills its gaps.
		if e := set.Env(); e.Home != "" {
			env.Home = e.Home
		}
		if e := set.Env(); e.Workspace != "" {
			env.Workspace = e.Workspace
		}
	}
	pl.home, pl.workspace = pl.canonicalOrEmpty(env.Home), pl.canonicalOrEmpty(env.Workspace)
	cenv := rule.Env{Home: pl.home, Workspace: pl.workspace}
	for i, sk := range walkSkips {
		if sk.Home && pl.home != "" {
			if pl.homeSkips == nil {
				pl.homeSkips = map[string]*WalkSkip{}
			}
			pl.homeSkips[pl.home+"/"+sk.Path] = &walkSkips[i]
		}
	}

	var rules []*rule.Rule
	if set != nil {
		rs := set.Rules()
		for i := range rs {
			if rs[i].Kind == rule.Read && rs[i].Action != rule.Allow {
				rules = append(rules, &rs[i])
			}
		}
	}
	for _, r := range rules {
		pl.addRule(r, cenv)
	}
	pl.walkAll()
	return pl
}

type essentialPath struct{ path, why string }

// planner holds a plan being computed.
type planner struct {
	home, workspace        string
	maxEntries, maxBlocked int
	// essential is made on the first path blocked (see essentials).
	essential     []essentialPath
	essentialDone bool
	// memo resolves the plan's literal paths, from home and the workspace
	// once they are resolved.
	memo dirMemo
	// homeSkips are the home directory's entries of walkSkips, by path.
	homeSkips map[string]*WalkSkip
	// sorted: the walk reads each directory's entries in name order.
	// orderMatters: the plan may depend on that order (see NewPlan).
	sorted, orderMatters bool

	rules   []*plannedRule
	walks   []*walk
	visited int
	blocked map[string]*BlockedPath
	dirbuf  []byte
	bufs    []*dirBuf // one per depth of the walk
	scratch []byte
}

// plannedRule is one rule and what was found for it.
type plannedRule struct {
	r        *rule.Rule
	plan     RulePlan
	glob     rule.Glob
	endsStar bool
	// anchor is the longest literal run of the pattern that every name it
	// matches holds beyond what the walk's root already gives.
	anchor      string
	anchorB     []byte
	done        bool // decided without a walk
	anywhere    bool
	skipped     []string // directories the walk did not enter for it (walkSkips)
	incomplete  []string // why some paths were left to the gate
	blockedN    int
	refused     []string // blocked paths that could not be blocked
	walkedRoots []string
}

// walk is one directory tree walked for the rules that need it. Each rule
// sees the tree under its own base: a rule whose pattern names ~/x sees
// the canonical /data/home/x as ~/x.
type walk struct {
	root  string
	users []walkUser
}

type walkUser struct {
	pr    *plannedRule
	scope string // the canonical directory the rule looks in
	base  string // how the rule's pattern names scope
}

func (pl *planner) addRule(r *rule.Rule, env rule.Env) {
	pr := &plannedRule{r: r, plan: RulePlan{Rule: r.String(), Action: r.Action, Source: r.Source, Where: r.Where()}}
	pl.rules = append(pl.rules, pr)
	gate := func(why string) {
		pr.done, pr.plan.Enforcement, pr.plan.Why = true, EnforceGate, why
	}
	if r.Bare || strings.Trim(r.Pattern, "*") == "" {
		gate("it matches every path: a command that can read nothing cannot run, so only the gate enforces it")
		return
	}
	expanded := env.ExpandPath(r.Pattern)
	if (strings.HasPrefix(r.Pattern, "~") && env.Home == "") || (rule.IsRelativePath(r.Pattern) && env.Workspace == "") {
		gate("its home directory or workspace is not known")
		return
	}
	star := strings.IndexByte(expanded, '*')
	if star < 0 {
		pr.done = true
		rp, err := pl.resolve(expanded)
		switch {
		case err != nil:
			gate(fmt.Sprintf("its path cannot be resolved: %v", err))
		case rp.Unknown != "":
			gate(rp.UnknownWhy)
		default:
			pl.block(pr, rp.Canonical, rp.Dir, rp.Exists, "")
			pr.plan.Enforcement = EnforceKernel
			if !rp.Exists {
				pr.plan.Why = fmt.Sprintf("%s does not exist now; it is listed so that the sandbox can keep it from appearing", rp.Canonical)
			}
		}
		return
	}
	pr.glob = rule.CompileGlob(expanded)
	pr.endsStar = strings.HasSuffix(expanded, "*")
	parts := strings.Split(expanded, "*")
	for _, p := range parts[1:] {
		if len(p) > len(pr.anchor) {
			pr.anchor = p
		}
	}
	if pr.anchor == "" {
		pr.anchor = parts[0]
	}
	pr.anchorB = []byte(pr.anchor)
	if star == 0 {
		pr.anywhere = true
		roots := []string{pl.home, pl.workspace}
		for i, root := range roots {
			other := roots[1-i]
			switch {
			case root == "":
			case other != "" && within(other, root) && (other != root || i == 1):
				// Inside the other root: searched with it. (Both listed.)
				pr.walkedRoots = append(pr.walkedRoots, root)
			default:
				pl.attach(pr, root, root)
			}
		}
		sort.Strings(pr.walkedRoots)
		pr.walkedRoots = dedupe(pr.walkedRoots)
		if len(pr.walkedRoots) == 0 {
			gate("neither the home directory nor the workspace is known, so there is nowhere to search")
		}
		return
	}
	base := strings.TrimSuffix(expanded[:strings.LastIndexByte(expanded[:star], '/')+1], "/")
	if base == "" {
		base = "/"
	}
	rp, err := pl.resolve(base)
	switch {
	case err != nil:
		gate(fmt.Sprintf("its directory %s cannot be resolved: %v", base, err))
		return
	case rp.Unknown != "":
		gate(rp.UnknownWhy)
		return
	case !rp.Exists:
		pr.done = true
		pr.plan.Enforcement = EnforceKernel
		pr.plan.Why = fmt.Sprintf("nothing matches it now: %s does not exist", base)
		return
	case !rp.Dir:
		pr.done = true
		pr.plan.Enforcement = EnforceKernel
		pr.plan.Why = fmt.Sprintf("nothing matches it now: %s is not a directory", base)
		return
	}
	if pr.covers(base) {
		// ~/.ssh/* matches everything in ~/.ssh: block the directory.
		pr.done = true
		pl.block(pr, rp.Canonical, true, true, "")
		pr.plan.Enforcement = EnforceKernel
		return
	}
	pl.attach(pr, rp.Canonical, base)
}

// covers reports whether the rule matches the directory named d and so,
// since a path rule covers what is inside what it matches, all of d.
func (pr *plannedRule) covers(d string) bool {
	return pr.glob.MatchString(d) || pr.endsStar && pr.glob.MatchString(strings.TrimSuffix(d, "/")+"/")
}

// attach adds the rule to the walk of the tree holding scope, merging trees
// that hold one another so that each directory is read once.
func (pl *planner) attach(pr *plannedRule, scope, base string) {
	pr.walkedRoots = append(pr.walkedRoots, scope)
	u := walkUser{pr: pr, scope: scope, base: base}
	for _, w := range pl.walks {
		if within(w.root, scope) {
			w.users = append(w.users, u)
			return
		}
	}
	w := &walk{root: scope, users: []walkUser{u}}
	// A new root that holds earlier ones takes their users.
	kept := pl.walks[:0]
	for _, o := range pl.walks {
		if within(scope, o.root) {
			w.users = append(w.users, o.users...)
		} else {
			kept = append(kept, o)
		}
	}
	pl.walks = append(kept, w)
}

func (pl *planner) walkAll() {
	if len(pl.walks) == 0 {
		return
	}
	sort.Slice(pl.walks, func(i, j int) bool { return pl.walks[i].root < pl.walks[j].root })
	pl.dirbuf = make([]byte, walkBufSize)
	for _, w := range pl.walks {
		h, err := openRoot(w.root)
		if err != nil {
			for _, u := range w.users {
				u.pr.incomplete = append(u.pr.incomplete, fmt.Sprintf("%s cannot be searched: %v", w.root, err))
			}
			continue
		}
		var active []walkUser
		for _, u := range w.users {
			if u.scope == w.root && u.pr.covers(u.base) {
				pl.block(u.pr, w.root, true, true, "")
				continue
			}
			active = append(active, u)
		}
		pl.walkDir(h, w.root, active, 0)
		h.close()
	}
}

// dirUser is a rule's view of the directory being walked.
type dirUser struct {
	walkUser
	prefix   string // how the rule's pattern names the directory
	anchorIn bool   // the rule's anchor is in prefix already
	tail     string // the end of prefix in which a match of the anchor could begin
}

// walkDir looks at each entry of the directory dir for the rules in users,
// and descends into the directories some rule still needs.
func (pl *planner) walkDir(h dirHandle, dir string, users []walkUser, depth int) {
	for len(pl.bufs) <= depth {
		pl.bufs = append(pl.bufs, &dirBuf{})
	}
	ents, err := h.read(pl.dirbuf, pl.bufs[depth], pl.sorted)
	if err != nil {
		// guard cannot read it; nor can a command that runs as the same
		// user. (Run as root, guard reads everything.)
		return
	}
	// Rules whose scope holds dir look at its entries; the others are on
	// their way down to their scope.
	d := pl.bufs[depth]
	in, pending := d.in[:0], d.pending[:0]
	defer func() { d.in, d.pending = in[:0], pending[:0] }()
	for _, u := range users {
		if !within(u.scope, dir) {
			pending = append(pending, u)
			continue
		}
		du := dirUser{walkUser: u, prefix: joinPath(u.base, dir[len(u.scope):])}
		a := u.pr.anchor
		du.anchorIn = strings.Contains(du.prefix, a)
		if !du.anchorIn {
			du.tail = du.prefix[max(0, len(du.prefix)-len(a)+1):]
		}
		in = append(in, du)
	}
	for _, e := range ents {
		if pl.visited >= pl.maxEntries {
			pl.orderMatters = true
			for _, u := range users {
				u.pr.noteIncomplete(fmt.Sprintf("the walk stopped after %d entries (MaxWalkEntries), in %s", pl.maxEntries, dir))
			}
			return
		}
		pl.visited++
		t := e.typ
		if t == typeUnknown {
			st, err := h.lstat(string(e.name))
			if err != nil {
				continue
			}
			switch {
			case st.dir:
				t = typeDir
			case st.link:
				t = typeLink
			default:
				t = typeFile
			}
		}
		full := ""
		fullPath := func() string {
			if full == "" {
				full = joinPath(dir, string(e.name))
			}
			return full
		}
		// A directory of walkSkips is not entered for the rules that match
		// anywhere (each notes it); a rule on its way down still passes.
		skip := t == typeDir && pl.skipDir(dir, e.name, fullPath)
		var below []walkUser
		descend := func(u *dirUser) {
			if skip && u.pr.anywhere {
				u.pr.skipped = append(u.pr.skipped, fullPath())
				return
			}
			below = append(below, u.walkUser)
		}
		for i := range in {
			u := &in[i]
			if !u.anchorIn && !pl.mayHold(u, e.name) {
				// Nothing here can match; what is below still may.
				if t == typeDir {
					descend(u)
				}
				continue
			}
			name := joinPath(u.prefix, string(e.name))
			switch t {
			case typeDir:
				if u.pr.covers(name) {
					pl.block(u.pr, fullPath(), true, true, "")
				} else {
					descend(u)
				}
			case typeLink:
				if u.pr.covers(name) {
					pl.blockLink(u.pr, fullPath())
				}
			default:
				if u.pr.glob.MatchString(name) {
					links := 0
					if st, err := h.lstat(string(e.name)); err == nil && st.nlink > 1 {
						links = int(st.nlink)
					}
					pl.blockFile(u.pr, fullPath(), links)
				}
			}
		}
		if t != typeDir {
			continue
		}
		for _, u := range pending {
			if within(fullPath(), u.scope) {
				below = append(below, u) // on the way down to its scope
			}
		}
		if len(below) == 0 {
			continue
		}
		if depth+1 >= MaxWalkDepth {
			pl.orderMatters = true
			for _, u := range below {
				u.pr.noteIncomplete(fmt.Sprintf("%s is deeper than MaxWalkDepth (%d)", fullPath(), MaxWalkDepth))
			}
			continue
		}
		ch, err := h.open(string(e.name))
		if err != nil {
			continue // replaced by a link or removed since: not followed
		}
		pl.walkDir(ch, fullPath(), below, depth+1)
		ch.close()
	}
}

// mayHold reports whether the rule's anchor, which every name it matches
// contains, could be in the entry's name as the rule sees it. It spares
// building the name of each of the many entries that cannot match.
func (pl *planner) mayHold(u *dirUser, name []byte) bool {
	b := append(append(append(append(pl.scratch[:0], u.tail...), '/'), name...), '/')
	pl.scratch = b
	return bytes.Contains(b, u.pr.anchorB)
}

func joinPath(dir, name string) string {
	switch {
	case name == "":
		return dir
	case dir == "/":
		return "/" + strings.TrimPrefix(name, "/")
	case strings.HasPrefix(name, "/"):
		return dir + name
	}
	return dir + "/" + name
}

func (pr *plannedRule) noteIncomplete(why string) {
	for _, w := range pr.incomplete {
		if w == why {
			return
		}
	}
	if len(pr.incomplete) < 3 {
		pr.incomplete = append(pr.incomplete, why)
	}
}

// essentials are the essential paths as they resolve here, and the
// workspace: made when the first path is blocked, since a plan that blocks
// nothing need not resolve them.
func (pl *planner) essentials() []essentialPath {
	if pl.essentialDone {
		return pl.essential
	}
	pl.essentialDone = true
	for _, e := range essential {
		rp, err := pl.resolve(e.path)
		if err != nil || rp.Unknown != "" {
			continue
		}
		// rp.Exists is false for what lies below /proc/self, which is
		// judged by name: ask the file system.
		if rp.Exists || exists(rp.Canonical) {
			pl.essential = append(pl.essential, essentialPath{rp.Canonical, e.why})
		}
	}
	if pl.workspace != "" {
		pl.essential = append(pl.essential, essentialPath{pl.workspace, "the command's own workspace"})
	}
	return pl.essential
}

// resolve resolves an absolute path of the plan, from the directories it
// resolved before.
func (pl *planner) resolve(p string) (Path, error) { return pl.memo.resolve(p) }

// blockLink blocks what a matching symlink leads to: blocking the link
// itself would not stop a read through it.
func (pl *planner) blockLink(pr *plannedRule, link string) {
	rp, err := resolve(link, "/", "", pl.memo.known)
	if err != nil || rp.Unknown != "" || !rp.Exists {
		return // a dangling or looping link reads nothing
	}
	pl.block(pr, rp.Canonical, rp.Dir, true, link)
}

func (pl *planner) blockFile(pr *plannedRule, p string, links int) {
	pl.block(pr, p, false, true, "")
	if links > 0 {
		pl.blocked[p].Links = links
	}
}

func (pl *planner) block(pr *plannedRule, p string, dir, exists bool, via string) {
	for _, e := range pl.essentials() {
		if within(p, e.path) {
			pl.orderMatters = true
			pr.refused = append(pr.refused, fmt.Sprintf("%s holds %s (%s), which every command needs", p, e.path, e.why))
			return
		}
	}
	if pl.blocked == nil {
		pl.blocked = map[string]*BlockedPath{}
	}
	b := pl.blocked[p]
	if b == nil {
		if len(pl.blocked) >= pl.maxBlocked {
			pl.orderMatters = true
			pr.noteIncomplete(fmt.Sprintf("the plan reached MaxBlockedPaths (%d)", pl.maxBlocked))
			return
		}
		b = &BlockedPath{Path: p, Dir: dir, Exists: exists, Via: via}
		pl.blocked[p] = b
	} else if b.Via != via {
		pl.orderMatters = true // the first to block it names the link
	}
	if n := len(b.Rules); n == 0 || b.Rules[n-1] != pr.plan.Rule {
		b.Rules = append(b.Rules, pr.plan.Rule)
	}
	pr.plan.Paths = append(pr.plan.Paths, p)
	pr.blockedN++
}

func (pl *planner) finish() Plan {
	out := Plan{Visited: pl.visited}
	var paths []string
	for p := range pl.blocked {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// A path inside a blocked directory is blocked with it.
	var kept []*BlockedPath
	for _, p := range paths {
		b := pl.blocked[p]
		if parent := pl.blockedAncestor(p); parent != nil {
			for _, r := range b.Rules {
				if !contains(parent.Rules, r) {
					parent.Rules = append(parent.Rules, r)
				}
			}
			continue
		}
		kept = append(kept, b)
	}
	for _, b := range kept {
		sort.Strings(b.Rules)
		b.Rules = dedupe(b.Rules)
		out.Blocked = append(out.Blocked, *b)
	}
	for _, pr := range pl.rules {
		sort.Strings(pr.plan.Paths)
		pr.plan.Paths = dedupe(pr.plan.Paths)
		if !pr.done || pr.plan.Enforcement == EnforceKernel {
			pr.decide()
		}
		out.Rules = append(out.Rules, pr.plan)
	}
	return out
}

// blockedAncestor is the outermost blocked directory that holds p, or nil.
func (pl *planner) blockedAncestor(p string) *BlockedPath {
	var found *BlockedPath
	for q := path.Dir(p); ; q = path.Dir(q) {
		if b := pl.blocked[q]; b != nil && b.Dir {
			found = b
		}
		if q == "/" {
			return found
		}
	}
}

// decide sets a rule's enforcement from what the walk found.
func (pr *plannedRule) decide() {
	pr.plan.Searched = pr.walkedRoots
	if len(pr.skipped) > 0 {
		sort.Strings(pr.skipped)
		pr.skipped = dedupe(pr.skipped)
		pr.plan.Skipped = len(pr.skipped)
		pr.plan.SkippedDirs = pr.skipped[:min(len(pr.skipped), MaxReportedSkips)]
	}
	var gaps []string
	gaps = append(gaps, pr.incomplete...)
	gaps = append(gaps, pr.refused...)
	switch {
	case len(gaps) == 0 && pr.anywhere:
		pr.plan.Enforcement = EnforceKernelInRoots
		pr.plan.Why = fmt.Sprintf("it matches anywhere: blocked where it matches under %s%s; elsewhere only the gate stops reads", strings.Join(pr.walkedRoots, " and "), pr.skippedNote())
	case len(gaps) == 0:
		pr.plan.Enforcement = EnforceKernel
		switch {
		case pr.plan.Why != "":
		case pr.blockedN == 0:
			pr.plan.Why = "nothing matches it now"
		case len(pr.plan.Paths) > 5:
			pr.plan.Why = fmt.Sprintf("every path it matches is blocked (%d paths)", len(pr.plan.Paths))
		default:
			pr.plan.Why = "every path it matches is blocked: " + strings.Join(pr.plan.Paths, ", ")
		}
	case pr.blockedN > 0:
		pr.plan.Enforcement = EnforcePartial
		pr.plan.Why = "some paths are blocked; the gate alone stops reads of the rest: " + strings.Join(gaps, "; ") + pr.skippedNote()
	default:
		pr.plan.Enforcement = EnforceGate
		pr.plan.Why = "only the gate stops reads: " + strings.Join(gaps, "; ")
	}
}

func (pl *planner) canonicalOrEmpty(p string) string {
	if p == "" || !path.IsAbs(p) {
		return ""
	}
	rp, err := pl.resolve(p)
	if err != nil || rp.Unknown != "" {
		return ""
	}
	return rp.Canonical
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func dedupe(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
