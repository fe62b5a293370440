package rule

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustRules(t testing.TB, specs ...string) []Rule {
	t.Helper()
	var rules []Rule
	for _, s := range specs {
		action, text, _ := strings.Cut(s, " ")
		r, err := New(Action(action), text)
		if err != nil {
			t.Fatalf("rule %q: %v", s, err)
		}
		rules = append(rules, r)
	}
	return rules
}

func TestSetMatch(t *testing.T) {
	env := Env{Home: "/home/u", Workspace: "/w/proj"}
	set := NewSet(mustRules(t,
		"allow shell(git *)",
		"ask shell(git push *)",
		"deny shell(rm -rf *)",
		"allow shell(go test *)",
		"deny read(~/.ssh)",
		"ask read(*/.env*)",
		"allow write(src/*)",
		"deny web(*.evil.example)",
		"allow web(github.com)",
		"allow mcp(github:get_*)",
		"deny mcp(github:delete_repo)",
		"allow delete",
	), env)
	tests := []struct {
		name   string
		kind   Kind
		target Text
		action Action // "" for no match
		rule   string
		match  MatchKind
	}{
		{"allow prefix", Shell, Known("git status"), Allow, "shell(git *)", MatchPrefix},
		{"x * matches bare x", Shell, Known("git"), Allow, "shell(git *)", MatchPrefix},
		{"ask beats allow", Shell, Known("git push origin main"), Ask, "shell(git push *)", MatchPrefix},
		{"ask also bare", Shell, Known("git push"), Ask, "shell(git push *)", MatchPrefix},
		{"deny", Shell, Known("rm -rf /"), Deny, "shell(rm -rf *)", MatchPrefix},
		{"no match", Shell, Known("make"), "", "", ""},
		{"prefix needs the blank", Shell, Known("gitk"), "", "", ""},
		{"deny reaches an unknown argument", Shell, text(lit("rm -rf "), u("$D")), Deny, "shell(rm -rf *)", MatchPrefix},
		{"deny reaches unknown flags", Shell, text(lit("rm "), u("$F")), Deny, "shell(rm -rf *)", MatchPrefix},
		{"unknown subcommand asks through git push", Shell, text(lit("git "), u("$S")), Ask, "shell(git push *)", MatchPrefix},
		{"unknown command name meets every deny", Shell, text(u("$C"), lit(" x")), Deny, "shell(rm -rf *)", MatchPrefix},
		{"path deny on the directory", Read, Known("/home/u/.ssh"), Deny, "read(~/.ssh)", MatchExact},
		{"path deny covers what is inside", Read, Known("/home/u/.ssh/id_rsa"), Deny, "read(~/.ssh)", MatchExact},
		{"path deny is not a string prefix", Read, Known("/home/u/.sshx"), "", "", ""},
		{"anywhere pattern", Read, Known("/tmp/a/.env.local"), Ask, "read(*/.env*)", MatchGlob},
		{"relative pattern is in the workspace", Write, Known("/w/proj/src/a/b.go"), Allow, "write(./src/*)", MatchPrefix},
		{"relative pattern outside", Write, Known("/other/src/a.go"), "", "", ""},
		{"web glob", Web, Known("cdn.evil.example"), Deny, "web(*.evil.example)", MatchHost},
		{"web case", Web, Known("GitHub.com"), Allow, "web(github.com)", MatchHost},
		{"web glob needs the dot", Web, Known("evil.example"), "", "", ""},
		{"mcp deny over allow", MCP, Known("github:delete_repo"), Deny, "mcp(github:delete_repo)", MatchName},
		{"mcp allow", MCP, Known("github:get_issue"), Allow, "mcp(github:get_*)", MatchName},
		{"bare kind", Delete, Known("/anything"), Allow, "delete", MatchAny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := set.Match(tc.kind, tc.target)
			action, hit, ok := m.Strictest()
			if tc.action == "" {
				if ok {
					t.Fatalf("matched %s %s, want no match", action, hit.Rule)
				}
				return
			}
			if !ok || action != tc.action || hit.Rule.String() != tc.rule || hit.Match != tc.match {
				if !ok {
					t.Fatalf("no match, want %s %s", tc.action, tc.rule)
				}
				t.Fatalf("got %s %s (%s), want %s %s (%s)", action, hit.Rule, hit.Match, tc.action, tc.rule, tc.match)
			}
		})
	}
}

func TestSetFirstRuleWins(t *testing.T) {
	rules := mustRules(t, "deny shell(rm *)", "deny shell(rm -rf *)")
	rules[0].Source, rules[1].Source = SourceManaged, SourceGlobal
	m := NewSet(rules, Env{}).MatchString(Shell, "rm -rf x")
	if m.Deny == nil || m.Deny.Rule.Source != SourceManaged {
		t.Fatalf("want the managed rule first, got %+v", m.Deny)
	}
	// Same the other way round: order, not specificity, decides.
	m = NewSet([]Rule{rules[1], rules[0]}, Env{}).MatchString(Shell, "rm -rf x")
	if m.Deny == nil || m.Deny.Rule.Source != SourceGlobal {
		t.Fatalf("want the first listed rule, got %+v", m.Deny)
	}
}

// naive matches every rule one by one: what the index must agree with.
func naive(rules []Rule, env Env, k Kind, t Text) Matches {
	var m Matches
	for i := range rules {
		r := &rules[i]
		if r.Kind != k {
			continue
		}
		for _, c := range compileRule(i, r, env) {
			var ok bool
			if r.Action == Allow {
				ok = c.glob.MatchAll(t)
			} else {
				ok = c.glob.MatchSome(t)
			}
			if !ok {
				continue
			}
			h := &Hit{Rule: r, Match: c.match, order: i}
			switch r.Action {
			case Deny:
				if m.Deny == nil {
					m.Deny = h
				}
			case Ask:
				if m.Ask == nil {
					m.Ask = h
				}
			case Allow:
				if m.Allow == nil {
					m.Allow = h
				}
			}
		}
	}
	return m
}

func sameHit(a, b *Hit) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.order == b.order
}

func FuzzSetAgreesWithScan(f *testing.F) {
	f.Add("git *|git push *|rm -rf *|*.sh|git", "git push origin", uint8(0))
	f.Add("a*|ab*|abc|*c", "ab?c", uint8(3))
	f.Fuzz(func(t *testing.T, patterns, target string, actions uint8) {
		if len(patterns) > 200 || len(target) > 100 {
			return
		}
		var rules []Rule
		for i, p := range strings.Split(patterns, "|") {
			if p == "" || strings.IndexFunc(p, isControl) >= 0 {
				continue
			}
			rules = append(rules, Rule{Action: Actions[(int(actions)+i)%3], Kind: Shell, Pattern: p})
		}
		tx := textFrom(target)
		got := NewSet(rules, Env{}).Match(Shell, tx)
		want := naive(rules, Env{}, Shell, tx)
		if !sameHit(got.Deny, want.Deny) || !sameHit(got.Ask, want.Ask) || !sameHit(got.Allow, want.Allow) {
			t.Fatalf("index and scan disagree on %v over %q: index %+v %+v %+v, scan %+v %+v %+v",
				tx, patterns, got.Deny, got.Ask, got.Allow, want.Deny, want.Ask, want.Allow)
		}
	})
}

// TestSetAgreesWithScanAtEverySize: a set finds its candidates by looking
// for each anchor in turn up to maxLinearAnchors rules, and by an automaton
// past it. Both must give what a scan of every rule gives, for known
// targets and targets with unknown spans, at sizes on each side.
func TestSetAgreesWithScanAtEverySize(t *testing.T) {
	targets := []Text{
		Known("git sub5 --flag=7"), Known("git sub5"), Known("npm run target12x"), Known("make * --opt3 x"),
		Known("/usr/bin/tool4 -v"), Known("cargo sub10 --flag=3 --opt13 y"), Known(""),
		text(lit("git "), u("$SUB"), lit(" --opt3 z")), text(u("$CMD"), lit(" sub0 x")), text(lit("rm sub"), u("$N")),
	}
	for _, n := range []int{1, 5, maxLinearAnchors - 1, maxLinearAnchors, maxLinearAnchors + 1, 100, 400} {
		rules := benchRules(n)
		set := NewSet(rules, Env{})
		hits := 0
		for _, tx := range targets {
			got := set.Match(Shell, tx)
			want := naive(rules, Env{}, Shell, tx)
			if !sameHit(got.Deny, want.Deny) || !sameHit(got.Ask, want.Ask) || !sameHit(got.Allow, want.Allow) {
				t.Errorf("%d rules, %v: index %+v %+v %+v, scan %+v %+v %+v", n, tx, got.Deny, got.Ask, got.Allow, want.Deny, want.Ask, want.Allow)
			}
			for _, h := range []*Hit{got.Deny, got.Ask, got.Allow} {
				if h != nil {
					hits++
				}
			}
		}
		if n >= maxLinearAnchors && hits < 5 {
			t.Errorf("%d rules: only %d hits over the targets: the test compares little", n, hits)
		}
	}
}

// benchRules makes n shell rules in the shapes people write: tools with
// subcommands, prefixes, exact commands, a few leading or inner wildcards.
func benchRules(n int) []Rule {
	r := rand.New(rand.NewPCG(1, 2))
	tools := []string{"git", "npm", "go", "cargo", "docker", "kubectl", "make", "python3", "rm", "curl"}
	rules := make([]Rule, 0, n)
	for i := 0; i < n; i++ {
		tool := tools[r.IntN(len(tools))]
		var p string
		switch i % 5 {
		case 0:
			p = fmt.Sprintf("%s sub%d *", tool, i)
		case 1:
			p = fmt.Sprintf("%s sub%d --flag=%d", tool, i, r.IntN(100))
		case 2:
			p = fmt.Sprintf("%s run target%d*", tool, i)
		case 3:
			p = fmt.Sprintf("%s * --opt%d *", tool, i)
		case 4:
			p = fmt.Sprintf("*/bin/tool%d *", i)
		}
		rules = append(rules, Rule{Action: Actions[i%3], Kind: Shell, Pattern: p})
	}
	return rules
}

func BenchmarkSet10000ShellRules(b *testing.B) {
	set := NewSet(benchRules(10000), Env{})
	cmd := "git sub5 --message=" + strings.Repeat("x", 60) + " --opt3 origin/main"[:0] + strings.Repeat("y", 100-len("git sub5 --message="+strings.Repeat("x", 60)))
	if len(cmd) != 100 {
		b.Fatalf("command is %d characters", len(cmd))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.MatchString(Shell, cmd)
	}
}

func BenchmarkSet10000ShellRulesUnknownSpan(b *testing.B) {
	set := NewSet(benchRules(10000), Env{})
	t := text(lit("git "), u("$SUB"), lit(" --opt3 "+strings.Repeat("z", 80)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.Match(Shell, t)
	}
}

// BenchmarkNewSetSettingsFile compiles the rules of a typical settings file
// (a few tens, like guard init's): every run of guard pays it once, so it
// must cost far less than a process start.
func BenchmarkNewSetSettingsFile(b *testing.B) {
	var specs []string
	for _, p := range []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.netrc", "~/.kube/config", "*/.env", "*/.env.*"} {
		specs = append(specs, "deny read("+p+")")
	}
	for _, c := range []string{"rm -rf /", "sudo *", "git push --force *", "mkfs *", "dd * of=/dev/sd*"} {
		specs = append(specs, "deny shell("+c+")")
	}
	for _, c := range []string{"git *", "go test *", "go build *", "make *", "npm run *", "cargo test *"} {
		specs = append(specs, "allow shell("+c+")")
	}
	specs = append(specs, "ask shell(git push *)", "ask shell(git reset --hard *)")
	rules := mustRules(b, specs...)
	env := Env{Home: "/home/u", Workspace: "/home/u/proj"}
	b.ReportAllocs()
	for b.Loop() {
		NewSet(rules, env)
	}
}
