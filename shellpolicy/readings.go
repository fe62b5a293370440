package shellpolicy

import (
	"strings"

	"github.com/guard-sh/guard/rule"
)

// globalOptionTable lists the commands whose global options come before the
// subcommand. A rule like "git push *" also matches "git -C dir push" and
// "git --no-pager push": a deny or ask rule sees the command with these
// options skipped. Options not listed are skipped as flags, which only adds a
// reading.
var globalOptionTable = []struct {
	name string
	spec *optSpec
}{
	{"git", &gitGlobalOpts},
	{"npm", &optSpec{flags: "gsqdyDf", args: "wC",
		long:    []string{"global", "silent", "quiet", "yes", "no", "force", "workspaces", "include-workspace-root", "json", "parseable", "long", "dry-run", "offline", "prefer-offline", "prefer-online", "no-audit", "no-fund", "ignore-scripts", "legacy-peer-deps", "production"},
		longArg: []string{"prefix", "workspace", "registry", "userconfig", "globalconfig", "cache", "loglevel", "location", "omit", "include", "scope", "tag", "otp"}}},
	{"go", &optSpec{args: "C", exact: true}},
	{"cargo", &optSpec{flags: "vqVh", args: "CZ",
		long:    []string{"verbose", "quiet", "frozen", "locked", "offline", "list", "version", "help"},
		longArg: []string{"color", "config", "explain"}}},
	{"docker", &optSpec{flags: "Dvh", args: "cHl",
		long:    []string{"debug", "tls", "tlsverify", "version", "help"},
		longArg: []string{"config", "context", "host", "log-level", "tlscacert", "tlscert", "tlskey"}}},
	{"kubectl", &optSpec{args: "ns",
		long: []string{"insecure-skip-tls-verify", "match-server-version", "warnings-as-errors", "disable-compression"},
		longArg: []string{"namespace", "context", "kubeconfig", "cluster", "user", "server", "as", "as-group", "as-uid", "token",
			"request-timeout", "v", "vmodule", "cache-dir", "certificate-authority", "client-certificate", "client-key",
			"tls-server-name", "username", "password", "profile", "profile-output", "log-file", "log-dir"}}},
}

// finishSegment computes a segment's readings and its read-only standing.
// Its Text may be set already, from the source.
func (w *walker) finishSegment(s *Segment) {
	if s.Text == nil {
		s.Text = w.primaryText(s)
	}
	if s.kind == segCommand && len(s.Words) > 0 {
		s.Readings = otherReadings(s)
	}
	s.ro = readOnlyOf(s, w.opts)
}

// primaryText is the reading that will run: the assignments that matter and
// the words.
func (w *walker) primaryText(s *Segment) rule.Text {
	if t, ok := plainText(s); ok {
		return w.knownText(t)
	}
	var b textJoiner
	for _, a := range s.Assigns {
		if s.kind == segCommand && safeAssign(a) {
			continue
		}
		b.word(append(rule.Text{{Lit: a.Name + "="}}, a.Value.Text...))
	}
	for _, w := range s.Words {
		b.word(w.Text)
	}
	return b.text()
}

// plainText is the text of a segment whose words are all known and not
// empty and that has no assignments: the common case, built at once.
func plainText(s *Segment) (string, bool) {
	if len(s.Assigns) > 0 || len(s.Words) == 0 {
		return "", false
	}
	n := len(s.Words) - 1
	for _, w := range s.Words {
		if len(w.Text) != 1 || w.Text[0].Unknown || w.Text[0].Lit == "" {
			return "", false
		}
		n += len(w.Text[0].Lit)
	}
	var b strings.Builder
	b.Grow(n)
	for i, w := range s.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text[0].Lit)
	}
	return b.String(), true
}

// otherReadings are the readings a deny or ask rule may match besides the
// primary one.
func otherReadings(s *Segment) []rule.Text {
	if !mayReadOtherwise(s) {
		return nil
	}
	lists := [][]Word{s.Words}
	add := func(l []Word) {
		if len(l) > 0 {
			lists = append(lists, l)
		}
	}
	// Empty words vanish from the reading: rm '' -rf / is rm -rf /.
	if dropped, changed := dropEmpty(s.Words); changed {
		add(dropped)
	}
	// Leading words that may expand to nothing: $EMPTY rm -rf / runs rm.
	for i, w := range s.Words {
		if !(w.Split && w.Text.HasUnknown()) {
			if i > 0 {
				add(s.Words[i:])
			}
			break
		}
	}
	n := len(lists)
	for _, l := range lists[:n] {
		if name, ok := l[0].Literal(); ok && strings.Contains(name, "/") {
			add(append([]Word{known(commandName(name))}, l[1:]...))
		}
	}
	n = len(lists)
	for _, l := range lists[:n] {
		if skipped, ok := skipGlobalOptions(l); ok {
			add(skipped)
		}
	}
	var out []rule.Text
outer:
	for _, l := range lists {
		var b textJoiner
		for _, w := range l {
			b.word(w.Text)
		}
		t := b.text()
		if sameText(t, s.Text) {
			continue
		}
		for _, o := range out {
			if sameText(t, o) {
				continue outer
			}
		}
		out = append(out, t)
	}
	return out
}

// mayReadOtherwise reports whether a segment has any reading besides the
// primary one: assignments to leave out, empty or vanishing words, a
// command given by path, or global options to skip.
func mayReadOtherwise(s *Segment) bool {
	if len(s.Assigns) > 0 {
		return true
	}
	for _, w := range s.Words {
		if w.Split && w.Text.HasUnknown() {
			return true
		}
		if l, ok := w.Literal(); ok && l == "" {
			return true
		}
	}
	name, ok := s.Words[0].Literal()
	if !ok {
		return false
	}
	if strings.Contains(name, "/") {
		return true
	}
	global := s.command(name).global != nil
	return global && len(s.Words) > 1 && strings.HasPrefix(s.Words[1].String(), "-") || global && name == "cargo"
}

func dropEmpty(words []Word) ([]Word, bool) {
	empty := false
	for _, w := range words {
		if s, ok := w.Literal(); ok && s == "" {
			empty = true
		}
	}
	if !empty {
		return nil, false
	}
	var out []Word
	changed := false
	for _, w := range words {
		if s, ok := w.Literal(); ok && s == "" {
			changed = true
			continue
		}
		out = append(out, w)
	}
	return out, changed
}

// skipGlobalOptions drops the global options of git, npm, go, cargo, docker
// and kubectl (and cargo's +toolchain).
func skipGlobalOptions(words []Word) ([]Word, bool) {
	name, ok := words[0].Literal()
	if !ok {
		return nil, false
	}
	spec := lookupCommand(name).global
	if spec == nil {
		return nil, false
	}
	rest := words[1:]
	skipped := 0
	if commandName(name) == "cargo" && len(rest) > 0 {
		if h, _ := literalHead(rest[0]); strings.HasPrefix(h, "+") {
			rest, skipped = rest[1:], 1
		}
	}
	r := spec.parse(rest, true, false)
	if r.end == 0 && skipped == 0 {
		return nil, false
	}
	return append([]Word{words[0]}, rest[r.end:]...), true
}

// textJoiner joins words with single blanks. An empty word shows as a pair
// of single quotes, as it was typed.
type textJoiner struct {
	t     rule.Text
	cur   strings.Builder // the literal run being built
	first bool
}

func (j *textJoiner) word(t rule.Text) {
	if j.first {
		j.cur.WriteByte(' ')
	}
	j.first = true
	if len(t) == 0 || (len(t) == 1 && !t[0].Unknown && t[0].Lit == "") {
		j.cur.WriteString("''")
		return
	}
	for _, sp := range t {
		if sp.Unknown {
			j.flush()
			j.t = append(j.t, sp)
		} else {
			j.cur.WriteString(sp.Lit)
		}
	}
}

func (j *textJoiner) flush() {
	if j.cur.Len() > 0 {
		j.t = append(j.t, rule.Span{Lit: j.cur.String()})
		j.cur.Reset()
	}
}

func (j *textJoiner) text() rule.Text {
	j.flush()
	if len(j.t) == 0 {
		return rule.Known("")
	}
	return j.t
}

// sameText reports whether two texts are the same, unknown spans included.
func sameText(a, b rule.Text) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
