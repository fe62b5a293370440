package pathpolicy

import (
	"fmt"
	"path"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// guardDirName is a project's guard settings directory. Every directory of
// that name is protected, not only the workspace's: a nested project
// becomes a workspace when guard runs inside it, and its deny rules apply
// without trust, so quietly rewriting them loosens that project.
const guardDirName = ".guard"

// protectedPath is one of guard's own files or directories: reading it is
// allowed, changing it is refused, since only guard's own commands may.
type protectedPath struct {
	path  string // canonical
	why   string
	rules map[rule.Kind]*rule.Rule
}

// Location is a concrete path the sandbox protects or blocks.
type Location struct {
	Path   string `json:"path"`
	Dir    bool   `json:"dir"`
	Exists bool   `json:"exists"`
	Why    string `json:"why"`
}

func (p *Policy) setProtected(guardPaths []string, canon func(what, p string) (string, error)) error {
	add := func(c, why string) {
		for _, pp := range p.protected {
			if pp.path == c {
				return
			}
		}
		pp := &protectedPath{path: c, why: why, rules: map[rule.Kind]*rule.Rule{}}
		for _, k := range []rule.Kind{rule.Write, rule.Delete} {
			pp.rules[k] = &rule.Rule{Action: rule.Deny, Kind: k, Pattern: c, Written: fmt.Sprintf("%s(%s)", k, c),
				Source: rule.SourceBuiltin, Why: why}
		}
		p.protected = append(p.protected, *pp)
	}
	for _, g := range guardPaths {
		c, err := canon("guard's own path", g)
		if err != nil {
			return err
		}
		why := "guard's own file: only guard's own commands change it"
		add(c, why)
		// Where the path is reached through a symlink (settings kept in a
		// dotfiles repository), removing or replacing the link changes
		// guard's files too.
		if l := path.Clean(g); l != c {
			add(l, why)
		}
	}
	add(path.Join(p.workspace, guardDirName), "the project's guard settings: only guard's own commands change them")
	p.guardDirRules = map[rule.Kind]*rule.Rule{}
	for _, k := range []rule.Kind{rule.Write, rule.Delete} {
		p.guardDirRules[k] = &rule.Rule{Action: rule.Deny, Kind: k, Pattern: "*/" + guardDirName,
			Written: fmt.Sprintf("%s(*/%s)", k, guardDirName), Source: rule.SourceBuiltin,
			Why: "a project's guard settings: only guard's own commands change them"}
	}
	return nil
}

// protectedHit says whether a write or delete of rp would change guard's
// own files, and why.
func (p *Policy) protectedHit(op rule.Kind, rp Path) (*rule.Hit, string) {
	if rp.Unknown != "" {
		why := rp.UnknownWhy + "; it could be one of guard's own files, which only guard's commands change"
		r := &rule.Rule{Action: rule.Deny, Kind: op, Pattern: rp.Unknown, Source: rule.SourceBuiltin, Why: why}
		r.Written = r.String()
		return &rule.Hit{Rule: r, Match: MatchUnknown}, why
	}
	forms := []string{rp.Canonical, rp.Absolute, rp.NoFollow}
	switch {
	case rp.NoFollow == rp.Canonical && rp.Absolute == rp.Canonical:
		forms = forms[:1]
	case rp.NoFollow == rp.Canonical:
		forms = forms[:2]
	}
	for _, f := range forms {
		for i := range p.protected {
			pp := &p.protected[i]
			if within(pp.path, f) {
				return &rule.Hit{Rule: pp.rules[op], Match: MatchProtected}, pp.why
			}
		}
		if hasComponentFold(f, guardDirName) {
			return &rule.Hit{Rule: p.guardDirRules[op], Match: MatchProtected}, p.guardDirRules[op].Why
		}
	}
	var hit *rule.Hit
	var why string
	p.ids.each(p, rp, true, func(c compID, ref idRef) {
		if ref.protected != nil && hit == nil {
			hit = &rule.Hit{Rule: ref.protected.rules[op], Match: MatchSameFile}
			why = fmt.Sprintf("%s is another name of %s: %s", rp.Canonical[:c.end], ref.protected.path, ref.protected.why)
		}
	})
	if hit != nil {
		return hit, why
	}
	// Changing a directory that holds guard's files (removing it, renaming
	// over it) changes them too.
	for _, f := range forms {
		for i := range p.protected {
			pp := &p.protected[i]
			if within(f, pp.path) && exists(pp.path) {
				return &rule.Hit{Rule: pp.rules[op], Match: MatchProtected},
					fmt.Sprintf("%s holds %s: %s", f, pp.path, pp.why)
			}
		}
	}
	if rp.Dir {
		if g := path.Join(rp.Canonical, guardDirName); exists(g) {
			return &rule.Hit{Rule: p.guardDirRules[op], Match: MatchProtected},
				fmt.Sprintf("%s holds %s: %s", rp.Canonical, g, p.guardDirRules[op].Why)
		}
	}
	return nil, ""
}

// ProtectedPaths are guard's own files and directories and the
// workspace's .guard/, which no sandboxed command may change (the sandbox
// keeps them read-only).
func (p *Policy) ProtectedPaths() []Location {
	out := make([]Location, 0, len(p.protected))
	for _, pp := range p.protected {
		l := Location{Path: pp.path, Why: pp.why}
		if st, err := lstat(pp.path); err == nil {
			l.Exists, l.Dir = true, st.dir
		}
		out = append(out, l)
	}
	return out
}

func exists(p string) bool {
	_, err := lstat(p)
	return err == nil
}

// hasComponentFold reports whether one of p's components is name, without
// regard to case: on a case-insensitive file system (vfat, exfat, a
// casefolded ext4 directory) .GUARD is .guard.
func hasComponentFold(p, name string) bool {
	for len(p) > 0 {
		i := strings.IndexByte(p, '/')
		var c string
		if i < 0 {
			c, p = p, ""
		} else {
			c, p = p[:i], p[i+1:]
		}
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
