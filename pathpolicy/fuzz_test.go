package pathpolicy

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/rule"
)

// refGlob is the reference matcher: '*' matches any run of bytes, '/'
// included; every other byte is itself; the whole string must match. A
// plain dynamic program, too slow for guard but obviously right.
func refGlob(pat, s string) bool {
	// m[j] reports whether pat[:i] matches s[:j], row by row.
	m := make([]bool, len(s)+1)
	m[0] = true
	for i := 0; i < len(pat); i++ {
		next := make([]bool, len(s)+1)
		if pat[i] == '*' {
			seen := false
			for j := 0; j <= len(s); j++ {
				seen = seen || m[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(s); j++ {
				next[j] = m[j-1] && s[j-1] == pat[i]
			}
		}
		m = next
	}
	return m[len(s)]
}

// refExpand is the reference reading of a path pattern: "~" is home, "./"
// is the workspace, "/" is absolute, and a leading '*' matches anywhere.
func refExpand(pat, home, ws string) string {
	switch {
	case pat == "~":
		return home
	case strings.HasPrefix(pat, "~/"):
		return home + pat[1:]
	case pat == ".":
		return ws
	case strings.HasPrefix(pat, "./"):
		return ws + pat[1:]
	}
	return pat
}

// refMatch: a path rule covers the path and everything below it.
func refMatch(pat, p string) bool {
	for {
		if refGlob(pat, p) {
			return true
		}
		if p == "/" {
			return false
		}
		p = path.Dir(p)
	}
}

// fromAlphabet maps bytes onto a small alphabet, so that the fuzzer meets
// matches often.
func fromAlphabet(b []byte, alphabet string) string {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}

// maxFuzzLen bounds FuzzPathPattern's inputs.
const maxFuzzLen = 40

// FuzzPathPattern checks guard's path-pattern semantics (home, workspace-
// relative and anywhere patterns, parent-directory coverage) for deny and
// allow rules against the reference, on paths with no symlink in them.
func FuzzPathPattern(f *testing.F) {
	for _, s := range []struct{ pat, p string }{
		{"~/a*", "/h/ab"}, {"./b", "/w/b/a"}, {"*/a", "/x/a/b"}, {"*a*", "/ba"}, {"/*", "/"}, {"~", "/h"},
		{"./*/b", "/w/a/a/b"}, {"*b/", "/bb"}, {"~/**", "/h/a"},
	} {
		f.Add([]byte(s.pat), []byte(s.p))
	}
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	home, ws := root+"/h", root+"/w"
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	env := rule.Env{Home: home, Workspace: ws}
	f.Fuzz(func(t *testing.T, patb, pb []byte) {
		// Short inputs say all there is to say about these semantics, and
		// keep the quadratic reference quick.
		patb, pb = patb[:min(len(patb), maxFuzzLen)], pb[:min(len(pb), maxFuzzLen)]
		// Patterns in the alphabet of paths, with the tree's prefix.
		pat := fromAlphabet(patb, "ab/*.~hw")
		pat = strings.NewReplacer("h", "~", "w", "./").Replace(pat)
		if strings.HasPrefix(pat, "/") {
			pat = root + pat
		}
		p := root + "/" + fromAlphabet(pb, "ab/.hw")
		p = strings.NewReplacer("h", "/h/", "w", "/w/").Replace(p)
		for _, action := range []rule.Action{rule.Deny, rule.Allow} {
			r, err := rule.New(action, "read("+pat+")")
			if err != nil {
				return // not a pattern guard accepts
			}
			pol, err := New(rule.NewSet([]rule.Rule{r}, env), Options{Home: home, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			m, err := pol.MatchPath(rule.Read, p, ws)
			if err != nil {
				if len(p) > MaxPathLen {
					return
				}
				t.Fatalf("MatchPath(%q): %v", p, err)
			}
			canonical := path.Clean(p)
			want := refMatch(refExpand(r.Pattern, home, ws), canonical)
			got := m.Deny != nil
			if action == rule.Allow {
				got = m.Allow != nil
			}
			if got != want {
				t.Fatalf("%s read(%s) (pattern %q) on %q: matched %v, reference %v", action, pat, r.Pattern, canonical, got, want)
			}
		}
	})
}

// FuzzResolve resolves paths through a tree of hostile symlinks and holds
// the result to the kernel: where the kernel opens the path, the canonical
// path is the same file and holds no symlink; where the kernel meets a
// loop, so does guard; nothing panics, and a canonical path is always
// absolute and clean.
func FuzzResolve(f *testing.F) {
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	build(f, root,
		"d/f", "d/e/g", "d/e/h/",
		"l1 -> d", "l2 -> l1/e", "up -> d/e/h", "abs -> "+root+"/d/e", "dd -> ../"+filepath.Base(root)+"/d",
		"loop -> loop", "la -> lb", "lb -> la", "d/e/back -> ../..", "d/e/h/self -> .", "dangle -> d/none/x",
	)
	names := []string{"d", "f", "e", "g", "h", "l1", "l2", "up", "abs", "dd", "loop", "la", "back", "self", "dangle", "..", ".", "", "none"}
	for _, s := range []string{"\x05\x00", "\x06\x02\x10\x01", "\x07\x10\x10\x00\x01", "\x0c\x0c\x0c", "\x08\x0d\x0d\x10"} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("/proc/self/root/etc/passwd"), true)
	f.Add([]byte("/dev/fd/0/x"), true)
	f.Add([]byte("~/.git/hooks/../../.guard/x"), true)
	rs := []rule.Rule{}
	for _, spec := range []string{"deny read(*/e/*)", "ask write(~/d/*)", "allow write(./*)", "allow delete", "deny delete(./.git/*)"} {
		action, text, _ := strings.Cut(spec, " ")
		r, err := rule.New(rule.Action(action), text)
		if err != nil {
			f.Fatal(err)
		}
		rs = append(rs, r)
	}
	pol, err := New(rule.NewSet(rs, rule.Env{Home: root, Workspace: root + "/d"}), Options{Home: root, Workspace: root + "/d", GuardPaths: []string{root + "/d/e"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, raw bool) {
		var p string
		if raw {
			p = string(b) // anything at all: it must not panic
		} else {
			parts := make([]string, len(b))
			for i, c := range b {
				parts[i] = names[int(c)%len(names)]
			}
			p = strings.Join(parts, "/")
			if p == "" {
				return // the kernel opens root/ here; guard refuses an empty path
			}
		}
		got, err := Resolve(p, root, root)
		for _, op := range []rule.Kind{rule.Read, rule.Write, rule.Delete} {
			d := pol.Check(op, p, root)
			if (err != nil) != (d.Reason == ReasonBadPath) || d.Decision == "" || d.Why == "" {
				t.Fatalf("Check(%s, %q) = %+v, resolution error %v", op, p, d, err)
			}
		}
		if raw {
			if err == nil && (!path.IsAbs(got.Canonical) || got.Unknown == "" && path.Clean(got.Canonical) != got.Canonical) {
				t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, got.Canonical)
			}
			return
		}
		full := p
		if !path.IsAbs(p) {
			full = root + "/" + p
		}
		var st unix.Stat_t
		kerr := unix.Stat(full, &st)
		switch {
		case kerr == nil:
			if err != nil {
				t.Fatalf("kernel opens %q, guard: %v", p, err)
			}
			if !got.Exists {
				t.Fatalf("kernel opens %q, guard says %q does not exist", p, got.Canonical)
			}
			var cst unix.Stat_t
			if err := unix.Stat(got.Canonical, &cst); err != nil || cst.Ino != st.Ino || cst.Dev != st.Dev {
				t.Fatalf("%q: canonical %q is another file (%v)", p, got.Canonical, err)
			}
			for q := got.Canonical; q != "/"; q = path.Dir(q) {
				if s, err := lstat(q); err == nil && s.link {
					t.Fatalf("%q: canonical %q holds the link %q", p, got.Canonical, q)
				}
			}
		case errors.Is(kerr, unix.ELOOP):
			if !errors.Is(err, ErrLoop) {
				t.Fatalf("kernel loops on %q, guard: %v, %q", p, err, got.Canonical)
			}
		}
		if err == nil && (!path.IsAbs(got.Canonical) || path.Clean(got.Canonical) != got.Canonical) {
			t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, got.Canonical)
		}
	})
}
