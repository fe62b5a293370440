package pathpolicy

import (
	"fmt"
	"path"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// Ways a rule can match beyond rule.Set's own, reported in [rule.Hit.Match].
const (
	// MatchSameFile: the path is another name (a hard link, a bind mount,
	// a case-insensitive spelling) of a file or directory the rule names.
	MatchSameFile rule.MatchKind = "same-file"
	// MatchUnknown: the path leads somewhere guard cannot know before the
	// command runs (/dev/fd/5, /proc/123/root), so every deny and ask rule
	// of its kind may apply.
	MatchUnknown rule.MatchKind = "unknown-target"
	// MatchProtected: a write or delete of guard's own files.
	MatchProtected rule.MatchKind = "protected"
)

// Options are the places a [Policy] decides about.
type Options struct {
	// Home is the user's home directory ("~"), Workspace the workspace.
	// Both must be absolute.
	Home, Workspace string
	// WritableRoots are the directories, besides the workspace (always
	// one), where writes and deletes follow the mode: [sandbox] allow_write.
	WritableRoots []string
	// GuardPaths are guard's own files and directories: its config and
	// state directories, approvals, trust records, audit log and binary.
	// Reading them is allowed; writing or deleting them is refused.
	GuardPaths []string
	// Sensitive, when set, gives sensitive places besides the list's, as
	// absolute paths: those the user's own configuration names (git's
	// core.hooksPath, included files, drivers' programs). A write or delete
	// there asks as on the list's. It is called once, on the first write or
	// delete checked.
	Sensitive func() []Location
}

// Policy decides reads, writes and deletes of paths. It is immutable once
// made, and safe for concurrent use.
type Policy struct {
	home, workspace string // canonical
	writable        []string
	protected       []protectedPath

	// sets[0] has its path patterns expanded against the canonical home
	// and workspace; allow rules are matched there only. The set given to
	// New follows when its env differs (a home under a symlinked /home), so
	// that deny and ask rules also match as written.
	sets  []*rule.Set
	order map[*rule.Rule]int
	// first is, per kind and action, the first rule: what a path that may
	// lead anywhere matches.
	first map[rule.Kind]map[rule.Action]*rule.Rule
	// The identity index (identity.go): the deny and ask rules by the
	// identity of the directory or file their pattern names literally, and
	// guard's protected paths by their own identity, each made on first
	// use.
	idRules []idRule // the deny and ask rules to index, with their expanded pattern
	ids     identities

	guardDirRules map[rule.Kind]*rule.Rule // write(*/.guard) and delete(*/.guard)
	// naming are, per kind, the allow rules that name a sensitive path.
	naming map[rule.Kind][]namingRule
	// allowWrites are the allow rules of writes and deletes that name a
	// path, for naming the places of moreSens.
	allowWrites []*rule.Rule
	moreSens    *moreSensitive // Options.Sensitive; nil without it
	// known are the home, workspace and writable roots as resolved by New:
	// resolution starts from them rather than examine their components on
	// every check. A policy is made for one run, so this trusts them for
	// no longer than the run's own checks take.
	known []knownDir
}

// idRule is a deny or ask rule whose literal directory or file the identity
// index follows.
type idRule struct {
	rule     *rule.Rule
	expanded string
}

// idRef is a rule or a protected path reached through a file's identity.
type idRef struct {
	rule      *rule.Rule
	base      string    // the literal directory (or file) of the pattern
	glob      rule.Glob // the whole expanded pattern
	protected *protectedPath
}

// New makes a policy from the rules of set (their path patterns are
// expanded against set.Env(), or o's home and workspace where it has none)
// and the places in o.
func New(set *rule.Set, o Options) (*Policy, error) {
	if set == nil {
		set = rule.NewSet(nil, rule.Env{Home: o.Home, Workspace: o.Workspace})
	}
	// Home, the workspace and guard's files mostly lie below one another:
	// each is resolved from the directories resolved before it.
	var memo dirMemo
	canon := func(what, p string) (string, error) {
		if !path.IsAbs(p) {
			return "", fmt.Errorf("%s %q is not an absolute path", what, p)
		}
		rp, err := memo.resolve(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		if rp.Unknown != "" {
			return "", fmt.Errorf("%s %q: %s", what, p, rp.UnknownWhy)
		}
		return rp.Canonical, nil
	}
	p := &Policy{order: map[*rule.Rule]int{}, naming: map[rule.Kind][]namingRule{}}
	var err error
	if p.home, err = canon("home directory", o.Home); err != nil {
		return nil, err
	}
	if p.workspace, err = canon("workspace", o.Workspace); err != nil {
		return nil, err
	}
	p.writable = []string{p.workspace}
	for _, w := range o.WritableRoots {
		c, err := canon("writable root", w)
		if err != nil {
			return nil, err
		}
		p.writable = append(p.writable, c)
	}

	for _, d := range append([]string{p.home}, p.writable...) {
		if k, ok := memo.knownDir(d); ok {
			p.known = append(p.known, k)
		}
	}

	env := set.Env()
	if env.Home == "" {
		env.Home = o.Home
	}
	if env.Workspace == "" {
		env.Workspace = o.Workspace
	}
	cenv := env
	if cenv.Home, err = canon("the rules' home directory", env.Home); err != nil {
		return nil, err
	}
	if cenv.Workspace, err = canon("the rules' workspace", env.Workspace); err != nil {
		return nil, err
	}
	p.sets = []*rule.Set{set}
	if cenv != set.Env() {
		p.sets = []*rule.Set{rule.NewSet(set.Rules(), cenv), set}
	}
	for _, s := range p.sets {
		rs := s.Rules()
		for i := range rs {
			p.order[&rs[i]] = i
		}
	}
	p.first = map[rule.Kind]map[rule.Action]*rule.Rule{}
	rs := p.sets[0].Rules()
	for i := range rs {
		r := &rs[i]
		if !r.Kind.IsPath() {
			continue
		}
		if p.first[r.Kind] == nil {
			p.first[r.Kind] = map[rule.Action]*rule.Rule{}
		}
		if p.first[r.Kind][r.Action] == nil {
			p.first[r.Kind][r.Action] = r
		}
		switch {
		case r.Bare:
		case r.Action != rule.Allow:
			p.idRules = append(p.idRules, idRule{rule: r, expanded: cenv.ExpandPath(r.Pattern)})
		case r.Kind != rule.Read:
			p.allowWrites = append(p.allowWrites, r)
			if e := sensitiveEntry(cenv.Home, strings.ReplaceAll(cenv.ExpandPath(r.Pattern), "*", "\x00")); e != nil {
				x := cenv.ExpandPath(r.Pattern)
				p.naming[r.Kind] = append(p.naming[r.Kind], namingRule{rule: r, glob: rule.CompileGlob(x), match: classify(x), entry: e})
			}
		}
	}
	if o.Sensitive != nil {
		p.moreSens = &moreSensitive{get: o.Sensitive}
	}
	if err := p.setProtected(o.GuardPaths, canon); err != nil {
		return nil, err
	}
	return p, nil
}

// Home is the policy's home directory, canonical.
func (p *Policy) Home() string { return p.home }

// Workspace is the policy's workspace, canonical.
func (p *Policy) Workspace() string { return p.workspace }

// WritableRoots are the canonical writable roots, the workspace first.
func (p *Policy) WritableRoots() []string { return append([]string(nil), p.writable...) }

// Resolve resolves path for a command running in dir (the workspace when
// dir is empty), with "~" as the policy's home. See [Resolve].
func (p *Policy) Resolve(pth, dir string) (Path, error) {
	if dir == "" {
		dir = p.workspace
	}
	return resolve(pth, dir, p.home, p.known)
}

// MatchPath returns the rules of kind op (rule.Read, rule.Write or
// rule.Delete) that match path, for a command running in dir (the
// workspace when empty). path may be relative to dir; "~" and "~/" are the
// home directory.
//
// A deny or ask rule matches when it matches the path as given (made
// absolute, cleaned lexically), its canonical form, the link itself when
// the last component is a symlink, or another name of a file or directory
// the rule names literally (a hard link or bind mount of it). A path that
// leads where guard cannot know (a descriptor, another process's root)
// matches the first deny and ask rule of its kind. An allow rule must match
// the canonical form (and, for writes and deletes, the link itself too).
//
// Beyond the rules: a write or delete of guard's protected paths matches a
// built-in deny rule; an allow rule does not apply to a write or delete of
// a sensitive path (see [Sensitive]) unless the rule names that path.
//
// An error means the path cannot be judged (a loop, a NUL byte, a path too
// long): the caller must refuse.
func (p *Policy) MatchPath(op rule.Kind, pth, dir string) (rule.Matches, error) {
	if !op.IsPath() {
		return rule.Matches{}, fmt.Errorf("MatchPath: %q is not a path kind (read, write or delete)", op)
	}
	rp, err := p.Resolve(pth, dir)
	if err != nil {
		return rule.Matches{}, err
	}
	v := p.evaluate(op, rp)
	m := v.m
	if m.Deny == nil && v.protected != nil {
		m.Deny = v.protected
	}
	return m, nil
}

// verdict is what the rules and the protected and sensitive lists say of one
// path.
type verdict struct {
	m                      rule.Matches
	denyOn, askOn, allowOn string // which form of the path each hit matched

	protected    *rule.Hit // a write or delete of guard's own files
	protectedWhy string

	sensitive  *SensitiveEntry
	overridden *rule.Hit // an allow rule that does not apply to this sensitive path
}

// Forms of a path a rule can match, as reported in a Decision.
const (
	FormGiven     = "given"
	FormCanonical = "canonical"
	FormNoFollow  = "link"
	FormSameFile  = "same-file"
	FormUnknown   = "unknown"
)

func (p *Policy) evaluate(op rule.Kind, rp Path) verdict {
	var v verdict
	better := func(h *rule.Hit, cur *rule.Hit) bool {
		return cur == nil || p.order[h.Rule] < p.order[cur.Rule]
	}
	offer := func(h *rule.Hit, form string) {
		if h == nil {
			return
		}
		switch h.Rule.Action {
		case rule.Deny:
			if better(h, v.m.Deny) {
				v.m.Deny, v.denyOn = h, form
			}
		case rule.Ask:
			if better(h, v.m.Ask) {
				v.m.Ask, v.askOn = h, form
			}
		}
	}

	// Deny and ask: any form. The canonical form's allow is kept, from
	// the set expanded against the canonical home and workspace.
	type form struct{ name, p string }
	forms := [3]form{{FormCanonical, rp.Canonical}, {FormGiven, rp.Absolute}, {FormNoFollow, rp.NoFollow}}
	var canonAllow *rule.Hit
	for i, f := range forms {
		if rp.Unknown != "" && f.name != FormGiven || i == 1 && f.p == forms[0].p || i == 2 && (f.p == forms[0].p || f.p == forms[1].p) {
			continue
		}
		for j, s := range p.sets {
			mm := s.MatchString(op, f.p)
			offer(mm.Deny, f.name)
			offer(mm.Ask, f.name)
			if i == 0 && j == 0 {
				canonAllow = mm.Allow
			}
		}
	}
	if rp.Unknown != "" {
		for _, a := range []rule.Action{rule.Deny, rule.Ask} {
			if r := p.first[op][a]; r != nil {
				offer(&rule.Hit{Rule: r, Match: MatchUnknown}, FormUnknown)
			}
		}
	}
	p.ids.each(p, rp, false, func(c compID, ref idRef) {
		if ref.rule == nil || ref.rule.Kind != op {
			return
		}
		rebased := ref.base + rp.Canonical[c.end:]
		if matchAncestors(ref.glob, rebased, len(ref.base)) {
			offer(&rule.Hit{Rule: ref.rule, Match: MatchSameFile}, FormSameFile)
		}
	})

	// Allow: the canonical form, and for writes and deletes the link too.
	allow := canonAllow
	if rp.Unknown != "" {
		allow = p.sets[0].Match(op, rp.Text()).Allow
	}
	if allow != nil && op != rule.Read && rp.NoFollow != rp.Canonical {
		if p.sets[0].MatchString(op, rp.NoFollow).Allow == nil {
			allow = nil
		}
	}
	v.m.Allow, v.allowOn = allow, FormCanonical

	if op != rule.Read {
		v.protected, v.protectedWhy = p.protectedHit(op, rp)
		v.sensitive = p.sensitiveAt(rp.Absolute, rp.Canonical, rp.NoFollow)
		if v.sensitive != nil && v.m.Allow != nil && !p.names(v.m.Allow.Rule, v.sensitive) {
			v.overridden, v.m.Allow = v.m.Allow, p.namingAllow(op, rp, v.sensitive)
		}
	}
	return v
}

// namingAllow finds the first allow rule that names the sensitive entry
// and matches the path, for when an earlier, broader allow rule matched.
func (p *Policy) namingAllow(op rule.Kind, rp Path, e *SensitiveEntry) *rule.Hit {
	if rp.Unknown != "" {
		return nil
	}
	naming := p.naming[op]
	if m := p.more(); m != nil && len(m.naming[op]) > 0 {
		naming = append(append([]namingRule{}, naming...), m.naming[op]...)
	}
	for _, na := range naming {
		if na.entry != e || !matchAncestors(na.glob, rp.Canonical, 0) {
			continue
		}
		if rp.NoFollow != rp.Canonical && !matchAncestors(na.glob, rp.NoFollow, 0) {
			continue
		}
		return &rule.Hit{Rule: na.rule, Match: na.match}
	}
	return nil
}

// namingRule is an allow rule whose literal text names a sensitive entry.
type namingRule struct {
	rule  *rule.Rule
	glob  rule.Glob
	match rule.MatchKind
	entry *SensitiveEntry
}

// matchAncestors reports whether g matches p or one of its parents no
// shorter than min bytes.
func matchAncestors(g rule.Glob, p string, min int) bool {
	for {
		if g.MatchString(p) {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < min || i <= 0 {
			return false
		}
		p = p[:i]
	}
}

// classify is how rule.Set reports a path pattern's match.
func classify(pat string) rule.MatchKind {
	switch i := strings.IndexByte(pat, '*'); {
	case pat == "*":
		return rule.MatchAny
	case i < 0:
		return rule.MatchExact
	case i == len(pat)-1:
		return rule.MatchPrefix
	}
	return rule.MatchGlob
}

// within reports whether p is root or inside it.
func within(root, p string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || strings.HasPrefix(p, root) && p[len(root)] == '/'
}
