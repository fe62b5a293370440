package pathpolicy

import (
	"path"
	"strings"
	"sync"

	"github.com/guard-sh/guard/rule"
)

// identities is the identity index of a policy: it lets a rule that names a
// directory or file literally, and guard's protected paths, catch a second
// name of it (a bind mount, a hard link, another spelling on a
// case-insensitive file system).
//
// Each of its four parts costs a stat of each path it follows, and those
// of linked files a listing of each directory too, so each is made the first
// time a check needs it, and only then: the rules' part for any path, the
// protected part for writes and deletes only, and the parts of files with
// other hard links only for a path that is such a file (only a regular file
// can have another name that is not a mount). A run that judges no path,
// like `guard check shell 'git status'`, makes none. Each part is made once
// (sync.Once) and never changed after, so a policy stays safe for concurrent
// use.
type identities struct {
	rules, rulesLinked, protected, protectedLinked idIndex
	// ruleDirs and protectedDirs are the directories the rules and the
	// protected paths name, as found when their parts were made: the
	// linked parts list them.
	ruleDirs      []idDir
	protectedDirs []idDir
}

// idIndex is one part of the index.
type idIndex struct {
	once sync.Once
	ids  map[fileID][]idRef
}

// idDir is a directory a rule or protected path names.
type idDir struct {
	path string
	ref  idRef // what a linked file in it leads to (base and glob set per file for rules)
}

func (x *idIndex) get(build func(add func(fileID, idRef))) map[fileID][]idRef {
	x.once.Do(func() {
		x.ids = map[fileID][]idRef{}
		build(func(id fileID, ref idRef) { x.ids[id] = append(x.ids[id], ref) })
	})
	return x.ids
}

// each calls fn for every entry of the index that a component of rp's
// canonical path is: the rules' entries, and the protected paths' when
// protected is set.
func (x *identities) each(p *Policy, rp Path, protected bool, fn func(compID, idRef)) {
	if len(rp.ids) == 0 {
		return
	}
	parts := make([]map[fileID][]idRef, 0, 2)
	if protected {
		parts = append(parts, x.protected.get(p.indexProtected))
		if rp.linked {
			parts = append(parts, x.protectedLinked.get(p.indexProtectedLinked))
		}
	} else {
		parts = append(parts, x.rules.get(p.indexRules))
		if rp.linked {
			parts = append(parts, x.rulesLinked.get(p.indexRulesLinked))
		}
	}
	for _, c := range rp.ids {
		for _, ids := range parts {
			for _, ref := range ids[c.id] {
				fn(c, ref)
			}
		}
	}
}

// indexRules files each deny or ask rule under the identity of the
// directory its pattern names before its first '*' (or of the file it
// names), so that a second name of that directory is caught.
func (p *Policy) indexRules(add func(fileID, idRef)) {
	for _, ir := range p.idRules {
		r, expanded := ir.rule, ir.expanded
		base := expanded
		if i := strings.IndexByte(expanded, '*'); i >= 0 {
			base = expanded[:strings.LastIndexByte(expanded[:i], '/')+1]
			base = strings.TrimSuffix(base, "/")
		}
		if base == "" || base == "/" || !path.IsAbs(base) {
			continue // a pattern that matches anywhere has no directory to follow
		}
		st, err := statFollow(base)
		if err != nil {
			continue // nothing there now: nothing to be a second name of
		}
		g := rule.CompileGlob(expanded)
		add(st.id, idRef{rule: r, base: base, glob: g})
		if st.dir {
			p.ids.ruleDirs = append(p.ids.ruleDirs, idDir{path: base, ref: idRef{rule: r, glob: g}})
		}
	}
}

// indexRulesLinked files, for each directory a rule names, the files in it
// that have more than one hard link: their other names are outside the
// directory, where no pattern sees them.
func (p *Policy) indexRulesLinked(add func(fileID, idRef)) {
	p.ids.rules.get(p.indexRules) // ruleDirs
	for _, d := range p.ids.ruleDirs {
		linkedFiles(d.path, func(f string, id fileID) {
			if matchAncestors(d.ref.glob, f, len(d.path)) {
				add(id, idRef{rule: d.ref.rule, base: f, glob: d.ref.glob})
			}
		})
	}
}

// indexProtected files the protected paths under their identity.
func (p *Policy) indexProtected(add func(fileID, idRef)) {
	for i := range p.protected {
		pp := &p.protected[i]
		st, err := statFollow(pp.path)
		if err != nil {
			continue
		}
		add(st.id, idRef{protected: pp})
		if st.dir {
			p.ids.protectedDirs = append(p.ids.protectedDirs, idDir{path: pp.path, ref: idRef{protected: pp}})
		}
	}
}

// indexProtectedLinked files the files with other hard links in the
// protected directories.
func (p *Policy) indexProtectedLinked(add func(fileID, idRef)) {
	p.ids.protected.get(p.indexProtected) // protectedDirs
	for _, d := range p.ids.protectedDirs {
		linkedFiles(d.path, func(_ string, id fileID) { add(id, d.ref) })
	}
}

// linkedFiles calls fn for each regular file directly in dir that has more
// than one hard link: its other names are outside the directory, where no
// pattern sees them, so it is filed under its own identity too.
func linkedFiles(dir string, fn func(path string, id fileID)) {
	h, err := openRoot(dir)
	if err != nil {
		return
	}
	defer h.close()
	// Sorted: which maxIdentityScan entries are looked at must not depend
	// on the order the kernel lists them in.
	ents, err := h.read(make([]byte, 8<<10), &dirBuf{}, true)
	if err != nil {
		return
	}
	for i, e := range ents {
		if i >= maxIdentityScan {
			break
		}
		if e.typ != typeFile && e.typ != typeUnknown {
			continue
		}
		if st, err := h.lstat(string(e.name)); err == nil && st.reg && st.nlink > 1 {
			fn(dir+"/"+string(e.name), st.id)
		}
	}
}

// maxIdentityScan bounds the entries of a denied directory whose hard-link
// counts New looks at: directories of secrets are small, and a rule over a
// large tree is left to the sandbox for its hard links.
const maxIdentityScan = 256
