package shellpolicy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guard-sh/guard/rule"
)

var testOpts = Options{Dir: "/w", Home: "/home/u", Workspace: "/w"}

// segs renders a script's segments as "text [via]" lines.
func segs(s *Script) []string {
	var out []string
	for _, seg := range s.Segments {
		line := seg.Text.String()
		if seg.Via != "" {
			line += " [" + seg.Via + "]"
		}
		out = append(out, line)
	}
	return out
}

func TestSegments(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"list", `a; b && c || d`, []string{"a", "b", "c", "d"}},
		{"pipeline", `a | b |& c`, []string{"a", "b", "c"}},
		{"substitution first", `echo $(date)`, []string{"date [$(...)]", "echo $(date)"}},
		{"quote removal", `'r'm "-rf" r\m $'\x72'`, []string{"rm -rf rm r"}},
		{"empty word shows", `rm '' x`, []string{"rm '' x"}},
		{"unknown spans keep their source", `rm -rf $DIR/*`, []string{"rm -rf $DIR/*"}},
		{"wrapper then inner", `timeout 5 nice ls`, []string{"timeout 5 nice ls", "nice ls [timeout]", "ls [nice]"}},
		{"env assignments go with the inner command", `env A=1 make`, []string{"env A=1 make", "A=1 make [env]"}},
		{"safe assignment left out of the text", `LANG=C ls`, []string{"ls"}},
		{"unsafe assignment kept in the text", `FOO=1 make`, []string{"FOO=1 make"}},
		{"bash -c", `bash -c 'a; b'`, []string{"bash -c a; b", "a [bash -c]", "b [bash -c]"}},
		{"eval", `eval a b`, []string{"eval a b", "a b [eval]"}},
		{"xargs input", `xargs rm`, []string{"xargs rm", "rm <input> [xargs]"}},
		{"find -exec", `find . -exec grep -l x {} +`, []string{"find . -exec grep -l x {} +", "grep -l x {} [find -exec]"}},
		{"function body", `f() { a; }; f`, []string{"a [function f]", "f"}},
		{"test clause", `[[ -f x && $y == z ]]`, []string{"[[ -f x && $y == z ]]"}},
		{"arithmetic", `(( i = 1 + 2 ))`, []string{"(( i = 1 + 2 ))"}},
		{"declaration", `local a=1 b`, []string{"local a=1 b"}},
		{"bare assignment", `a=1 b=$(c)`, []string{"c [$(...)]", "a=1 b=$(c)"}},
		{"here-document substitution", "cat <<E\n$(a)\nE", []string{"a [$(...)]", "cat"}},
		{"git alias", `git -c alias.s=status s`, []string{"git -c alias.s=status s", "git status [git alias s]"}},
		{"pager variable", `PAGER='less -R' man ls`, []string{"PAGER=less -R man ls", "less -R [PAGER=]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Parse(tc.src, testOpts)
			if len(s.Problems) > 0 {
				t.Fatalf("problems: %v", s.Problems)
			}
			got := segs(s)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

func TestSegmentsFunction(t *testing.T) {
	texts, err := Segments(`git status && rm -rf "$dir"`)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || texts[0].String() != "git status" || texts[1].String() != "rm -rf $dir" || !texts[1].HasUnknown() {
		t.Errorf("got %q", texts)
	}
	_, err = Segments("echo 'x")
	if err == nil || !strings.HasPrefix(err.Error(), "1:6: ") {
		t.Errorf("parse error: %v, want one at 1:6", err)
	}
}

func TestPositions(t *testing.T) {
	src := "ls\n  git status && echo $(date)\nbash -c 'rm x'"
	s := Parse(src, testOpts)
	want := map[string]Position{
		"ls":           {1, 1},
		"git status":   {2, 3},
		"date":         {2, 24},
		"echo $(date)": {2, 17},
		"bash -c rm x": {3, 1},
		"rm x":         {3, 1}, // inside a string: where the string's command is
	}
	for _, seg := range s.Segments {
		w, ok := want[seg.Text.String()]
		if !ok {
			t.Errorf("unexpected segment %q", seg.Text)
			continue
		}
		if seg.Pos != w {
			t.Errorf("%q at %s, want %s", seg.Text, seg.Pos, w)
		}
	}
	p := Parse("ls\n echo 'x", testOpts).Problems
	if len(p) != 1 || p[0].Reason != ReasonParseError || p[0].Pos != (Position{2, 7}) {
		t.Errorf("problem %v, want a parse error at 2:7", p)
	}
	p = Parse("ls\n\tcat\rx", testOpts).Problems
	if len(p) != 1 || p[0].Reason != ReasonControlCharacter || p[0].Pos != (Position{2, 5}) {
		t.Errorf("problem %v, want a control character at 2:5", p)
	}
}

func TestDirectories(t *testing.T) {
	cases := []struct {
		src  string
		last string // the directories of the last segment
	}{
		{`ls`, "[/w]"},
		{`cd sub && ls`, "[/w/sub]"},
		{`cd sub; ls`, "[/w/sub /w]"},
		{`cd sub || exit; ls`, "[/w/sub /w]"},
		{`cd /etc && cd .. && ls`, "[/]"},
		{`cd && ls`, "[/home/u]"},
		{`cd ~/x && ls`, "[/home/u/x]"},
		{`cd - && ls`, "unknown"},
		{`cd "$D" && ls`, "unknown"},
		{`(cd sub) && ls`, "[/w]"},
		{`cd sub | cat; ls`, "[/w]"},
		{`cd sub & ls`, "[/w]"},
		{`pushd sub && ls`, "unknown"},
		{`f() { cd /tmp; }; f; ls`, "unknown"},
		{`for d in a b; do cd $d; ls; done`, "unknown"},
		{`if true; then cd a; else cd b; fi; ls`, "[/w/a /w/b /w]"},
		{`HOME=/x; cd && ls`, "unknown"},
		{`CDPATH=/x; cd sub && ls`, "unknown"},
		{`cd ./sub && ls`, "[/w/sub]"},
		{`eval 'cd sub' && ls`, "[/w/sub]"},
		{`bash -c 'cd sub' && ls`, "[/w]"},
		{`env -C /tmp ls`, "[/tmp]"},
		{`find . -execdir ls \;`, "unknown"},
		{`source x.sh; ls`, "unknown"},
		{`cd -P sub && ls`, "unknown"},
	}
	for _, tc := range cases {
		s := Parse(tc.src, testOpts)
		last := s.Segments[len(s.Segments)-1]
		got := "unknown"
		if !last.Dirs.Unknown {
			got = fmt.Sprint(last.Dirs.Known)
		}
		if got != tc.last {
			t.Errorf("%q: last segment %q runs in %s, want %s", tc.src, last.Text, got, tc.last)
		}
	}
}

func TestFileAccesses(t *testing.T) {
	cases := []struct {
		src  string
		want []string // "op path by"
	}{
		{`cat a b`, []string{"read a cat", "read b cat"}},
		{`cat -n -- -x`, []string{"read -x cat"}},
		{`grep -e pat f1 f2`, []string{"read f1 grep", "read f2 grep"}},
		{`grep pat f1`, []string{"read f1 grep"}},
		{`grep -f pats f1`, []string{"read pats grep", "read f1 grep"}},
		{`head -n 5 f`, []string{"read f head"}},
		{`cp a b dir`, []string{"read a cp", "read b cp", "write dir cp"}},
		{`cp -t dir a`, []string{"write dir cp", "read a cp"}},
		{`mv a b`, []string{"delete a mv", "read a mv", "write b mv"}},
		{`scp a host:b`, []string{"read a scp"}},
		{`tee -a log`, []string{"write log tee"}},
		{`rm -rf a b`, []string{"delete a rm", "delete b rm"}},
		{`dd if=a of=b`, []string{"read a dd", "write b dd"}},
		{`curl -o out -T up https://x`, []string{"write out curl", "read up curl"}},
		{`sort -o out in`, []string{"write out sort", "read in sort"}},
		{`echo > a 2>> b < c`, []string{"write a >", "write b >>", "read c <"}},
		{`echo >&2 2>/dev/null 3>&-`, nil},
		{`echo > /dev/fd/3 < /dev/stdin`, nil},
		{`cat <> f`, []string{"read f <>", "write f <>"}},
		{`exec 3> log`, []string{"write log >"}},
		{`source ./env.sh`, []string{"read ./env.sh source"}},
		{`bash script.sh`, []string{"read script.sh bash"}},
		{`cat - < f`, []string{"read f <"}},
	}
	for _, tc := range cases {
		s := Parse(tc.src, testOpts)
		var got []string
		for _, f := range s.Segments[0].Files {
			got = append(got, fmt.Sprintf("%s %s %s", f.Op, f.Path, f.By))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestReadings(t *testing.T) {
	cases := []struct {
		src  string
		want []string // the readings besides the text
	}{
		{`ls -la`, nil},
		{`/bin/rm -rf x`, []string{"rm -rf x"}},
		{`git -C dir --no-pager push`, []string{"git push"}},
		{`/usr/bin/git -c a=b push`, []string{"git -c a=b push", "/usr/bin/git push", "git push"}},
		{`FOO=1 rm x`, []string{"rm x"}},
		{`rm '' -rf /`, []string{"rm -rf /"}},
		{`$E rm -rf /`, []string{"rm -rf /"}},
		{`kubectl -n ns --context=c delete pod`, []string{"kubectl delete pod"}},
		{`cargo +nightly -q publish`, []string{"cargo publish"}},
		{`npm --prefix x run build`, []string{"npm run build"}},
		{`go -C sub test ./...`, []string{"go test ./..."}},
		{`docker -H h --tls ps`, []string{"docker ps"}},
	}
	for _, tc := range cases {
		s := Parse(tc.src, testOpts)
		var got []string
		for _, r := range s.Segments[0].Readings {
			got = append(got, r.String())
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestDialectSh(t *testing.T) {
	// dash reads $'...' as $ and a quoted string: guard parses sh strings as
	// POSIX, where this is an error, not a hidden command.
	src := `sh -c "echo \$'\\' ; zap ; \\''"`
	v := Evaluate(src, testPolicy(t, "deny shell(zap *)"))
	if v.Decision == rule.Allow {
		t.Errorf("%s", describe(v))
	}
	s := Parse(`echo $'a'`, Options{Dialect: "sh"})
	if got := s.Segments[0].Text.String(); got != "echo $a" {
		t.Errorf("in sh, $'a' reads %q, want $a", got)
	}
}

func TestTables(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range BuiltinRules() {
		if r.Source != rule.SourceBuiltin || r.Kind != rule.Shell || r.Why == "" || r.Pattern == "" {
			t.Errorf("built-in rule %+v lacks a source, kind, pattern or reason", r)
		}
		if _, _, _, err := rule.Parse(r.String()); err != nil {
			t.Errorf("built-in rule %s does not parse: %v", r, err)
		}
		seen[string(r.Action)+" "+r.String()] = true
	}
	for _, want := range []string{"allow shell(git status *)", "allow shell(ls *)", "ask shell(git * --output*)", "ask shell(rg * --pre*)", "ask shell(find * -exec*)", "ask shell(sort * -o *)"} {
		if !seen[want] {
			t.Errorf("built-in rules lack %s", want)
		}
	}
	for _, g := range Guards() {
		if g.ID == "" || g.Why == "" || g.Pattern == "" {
			t.Errorf("guard %+v lacks an id, pattern or reason", g)
		}
	}
	for _, wr := range Wrappers() {
		if wr.How == "" || wr.Why == "" {
			t.Errorf("wrapper %s lacks how or why", wr.Name)
		}
	}
	for _, e := range readOnlyTable {
		for _, id := range e.guards {
			if id >= guardCount {
				t.Errorf("%s names unknown guard %d", e.Pattern, id)
			}
		}
	}
	// The tables given out are copies: changing them changes nothing here.
	ws := Wrappers()
	ws[0].Name = "changed"
	if Wrappers()[0].Name == "changed" {
		t.Error("Wrappers returns the table itself")
	}
	if len(ShellEnvDeny()) == 0 {
		t.Error("no shell environment variables to deny")
	}
}

func TestEvaluateArgv(t *testing.T) {
	p := testPolicy(t, "deny shell(rm -rf *)", "allow shell(make *)")
	if v := EvaluateArgv([]string{"rm", "-rf", "/"}, p); v.Decision != rule.Deny {
		t.Errorf("%s", describe(v))
	}
	if v := EvaluateArgv([]string{"env", "rm", "-rf", "/"}, p); v.Decision != rule.Deny {
		t.Errorf("wrapper not followed: %s", describe(v))
	}
	// No shell parsing: the words are taken as they are.
	if v := EvaluateArgv([]string{"make", "a; rm -rf /"}, p); v.Decision != rule.Allow {
		t.Errorf("%s", describe(v))
	}
	if v := EvaluateArgv([]string{"ls", "-la"}, p); v.Decision != rule.Allow || v.Reason != ReasonReadOnly {
		t.Errorf("%s", describe(v))
	}
}

// TestConcurrentUse: a Policy is shared by concurrent evaluations, and the
// package has no state of its own to race on (go test -race).
func TestConcurrentUse(t *testing.T) {
	p := testPolicy(t, stdRules...)
	done := make(chan *Verdict)
	for i := 0; i < 8; i++ {
		go func() {
			var v *Verdict
			for j := 0; j < 50; j++ {
				v = Evaluate(`git status && echo "$(cat ~/.ssh/id_rsa)" | bash -c 'rm -rf /' > /etc/x`, p)
			}
			done <- v
		}()
	}
	for i := 0; i < 8; i++ {
		if v := <-done; v.Decision != rule.Deny {
			t.Errorf("%s", describe(v))
		}
	}
}
