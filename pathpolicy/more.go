package pathpolicy

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/guard-sh/guard/rule"
)

// moreSensitive are the sensitive places that are not on the list but
// named by the user's own files (Options.Sensitive: what git's
// configuration names, such as a core.hooksPath). They are asked for on
// the first write or delete a policy checks, since most runs check none.
type moreSensitive struct {
	once   sync.Once
	get    func() []Location
	places []extraPlace
	// naming are, per kind, the allow rules that name one of the places
	// (as Policy.naming for the list's entries).
	naming map[rule.Kind][]namingRule
}

// extraPlace is one such place: its entry (Path absolute) and its path in
// lower case, compared as the list's entries are.
type extraPlace struct {
	lower string
	entry SensitiveEntry
}

// more returns the extra places, made on first use; nil without any.
func (p *Policy) more() *moreSensitive {
	m := p.moreSens
	if m == nil {
		return nil
	}
	m.once.Do(func() {
		for _, l := range m.get() {
			if !filepath.IsAbs(l.Path) {
				continue
			}
			c := filepath.Clean(l.Path)
			m.places = append(m.places, extraPlace{lower: strings.ToLower(c), entry: SensitiveEntry{Path: c, Dir: l.Dir, Why: l.Why}})
		}
		m.naming = map[rule.Kind][]namingRule{}
		env := p.sets[0].Env()
		for _, r := range p.allowWrites {
			x := env.ExpandPath(r.Pattern)
			if e := m.at(strings.ReplaceAll(x, "*", "\x00")); e != nil {
				m.naming[r.Kind] = append(m.naming[r.Kind], namingRule{rule: r, glob: rule.CompileGlob(x), match: classify(x), entry: e})
			}
		}
	})
	return m
}

// at returns the place one of the forms falls under, or nil.
func (m *moreSensitive) at(forms ...string) *SensitiveEntry {
	if len(m.places) == 0 {
		return nil
	}
	lower := make([]string, len(forms))
	for i, f := range forms {
		lower[i] = strings.ToLower(f)
	}
	for i := range m.places {
		x := &m.places[i]
		for _, lf := range lower {
			if lf == x.lower || x.entry.Dir && within(x.lower, lf) {
				return &x.entry
			}
		}
	}
	return nil
}

// sensitiveAt returns the sensitive entry or place one of the forms falls
// under, or nil.
func (p *Policy) sensitiveAt(forms ...string) *SensitiveEntry {
	if e := sensitiveEntry(p.home, forms...); e != nil {
		return e
	}
	if m := p.more(); m != nil {
		return m.at(forms...)
	}
	return nil
}
