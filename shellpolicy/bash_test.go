package shellpolicy

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/rule"
)

// hideAttempts are ways to hide the command zap inside a shell command. Each
// is run under the real bash with a stub zap that records being run, so the
// test proves the attempt works; guard must then deny it, or ask with
// MustAsk (the user is asked even in bypass).
var hideAttempts = []string{
	`zap`,
	`'z'ap`,
	`"zap"`,
	`z\ap`,
	`$'\x7aap'`,
	`$'\172ap'`,
	`z''ap`,
	"z\\\nap",
	`true && zap`,
	`false || zap`,
	`true; zap`,
	`true | zap`,
	`zap & wait`,
	`(zap)`,
	`{ zap; }`,
	`! zap`,
	`echo $(zap)`,
	"echo `zap`",
	`x=$(zap)`,
	`export X=$(zap)`,
	`declare x=$(zap)`,
	`echo ${x:-$(zap)}`,
	`echo "$(zap)"`,
	`cat <(zap)`,
	`echo x > >(zap); wait`,
	`cat <<EOF
$(zap)
EOF`,
	`cat <<< $(zap)`,
	`a=(x $(zap))`,
	`if zap; then :; fi`,
	`while zap; do break; done`,
	`for f in $(zap); do :; done`,
	`case $(zap) in *) ;; esac`,
	`[[ -n $(zap) ]]`,
	`(( $(zap) + 1 ))`,
	`time zap`,
	`coproc zap; wait`,
	`f() { zap; }; f`,
	`ls() { zap; }; ls`,
	`env zap`,
	`env -i PATH="$PATH" ZAPLOG="$ZAPLOG" zap`,
	`env -S 'zap x'`,
	`env -- zap`,
	`/usr/bin/env zap`,
	`command zap`,
	`exec zap`,
	`nice zap`,
	`nice -n 5 zap`,
	`timeout 5 zap`,
	`timeout -s KILL 5 zap`,
	`stdbuf -oL zap`,
	`setsid -w zap`,
	`echo a | xargs zap`,
	`echo a | xargs -I{} zap {}`,
	`echo a | xargs sh -c 'zap'`,
	`find . -maxdepth 0 -exec zap {} \;`,
	`find . -maxdepth 0 -exec sh -c 'zap' \;`,
	`find . -maxdepth 0 -execdir zap {} +`,
	`bash -c zap`,
	`bash -c 'z''ap'`,
	`sh -c zap`,
	`dash -c 'zap'`,
	`bash <<< zap`,
	`bash <<'EOF'
zap
EOF`,
	`eval zap`,
	`eval -- zap`,
	`builtin -- eval zap`,
	`command -- zap`,
	`source -- /dev/stdin <<< zap`,
	`trap -- zap EXIT`,
	`nice -- zap`,
	`eval 'z''ap'`,
	`eval "z""ap"`,
	`source /dev/stdin <<< zap`,
	`. /dev/stdin <<< zap`,
	`trap zap EXIT`,
	`flock lockfile zap`,
	`flock lockfile -c zap`,
	`git -c alias.x='!zap' x`,
	`$EMPTY zap`,
	`x=zap; $x`,
	`a=(zap); "${a[@]}"`,
	`"$(echo zap)"`,
	`$(echo zap)`,
	`{zap,x}`,
	`x='a[$(zap)]'; echo $((x))`,
	`y='a[$(zap)]'; [[ $y -eq 0 ]]`,
	`v='$(zap)'; echo ${v@P}`,
	`i='a[$(zap)]'; echo ${b[$i]}`,
	`x='a[$(zap)]'; echo ${!x}`,
	`declare -a a; unset 'a[$(zap)]'`,
	`declare 'a[$(zap)]=1'`,
	`declare -i n; n='a[$(zap)]'`,
	`[ -v 'a[$(zap)]' ]`,
	`x='a[$(zap)]'; y=abc; echo ${y:x}`,
	`x='a[$(zap)]'; arr[x]=1`,
	`x='a[$(zap)]'; for ((i=0; i<x; i++)); do :; done`,
	`x='a[$(zap)]'; let y=x`,
	`printf -v 'a[$(zap)]' x`,
	`read 'a[$(zap)]' <<< x`,
	`declare -n r='a[$(zap)]'; echo $r`,
	`mapfile -C zap -c 1 arr <<< x`,
	`PS4='$(zap)'; set -x; true`,
	`printf 'zap\n' | bash`,
	`bash -c "$(echo zap)"`,
	`eval "$(printf 'z%sp' a)"`,
	`source <(echo zap)`,
	`. <(echo zap)`,
	`bash <(echo zap)`,
	`bash < <(echo zap)`,
	`sh < <(echo zap)`,
	`source /dev/stdin < <(echo zap)`,
	`sh <(echo zap)`,
	`bash /dev/stdin <<< zap`,
	`bash - <<< zap`,
	"bash <<EOF\n\\$(zap)\nEOF",
	"bash <<EOF\n\\`zap\\`\nEOF",
	"cat <<EOF | bash\nzap\nEOF",
	`cd / && zap`,
	`sed '1e zap' <<< x`,
	`sed 's/.*/zap/e' <<< x`,
	`env -C / zap`,
	`xargs -a /dev/null zap`,
}

func TestHideAttemptsUnderRealBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the attempts under")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{bin, work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub := "#!/bin/sh\necho \"zap $*\" >> \"$ZAPLOG\"\n"
	if err := os.WriteFile(filepath.Join(bin, "zap"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	sysPath := "/usr/local/bin:/usr/bin:/bin"
	p := testPolicy(t, "deny shell(zap *)")
	p.Dir, p.Workspace, p.Home = work, work, home
	for i, attempt := range hideAttempts {
		t.Run(strings.ReplaceAll(attempt, "/", "∕"), func(t *testing.T) {
			log := filepath.Join(dir, "log"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "-c", attempt)
			cmd.Dir = work
			cmd.Env = []string{"PATH=" + bin + ":" + sysPath, "HOME=" + home, "ZAPLOG=" + log, "LC_ALL=C"}
			cmd.Stdin = bytes.NewReader(nil)
			out, _ := cmd.CombinedOutput()
			ran, _ := os.ReadFile(log)
			if len(ran) == 0 {
				t.Fatalf("the attempt did not run zap under bash, so it proves nothing; output:\n%s", out)
			}
			v := Evaluate(attempt, p)
			if !(v.Decision == rule.Deny || v.Decision == rule.Ask && v.MustAsk) {
				t.Errorf("bash ran zap, but guard says %s", describe(v))
			}
		})
	}
}

// TestWordsMatchBash checks that the words guard reads are the words bash
// passes: each line is run as `set -- LINE` and bash prints its arguments.
func TestWordsMatchBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	lines := []string{
		`a b c`,
		`'a b' "c d" e\ f`,
		`r\m -rf "/"`,
		`$'\x72m' $'\162m' $'a\tb' $'\'' $'\\'`,
		`$'\e[1m' $'\a\b\f\n\r\v' $'\0101' $'\x41B' $'\x4'`,
		`"a\"b" "a\\b" "a\$b" "a\b" "a\` + "`" + `b"`,
		`'a\b' 'a"b'`,
		`a''b a""b ''a`,
		`\* \? \[ \~ \{a,b\}`,
		`a=b --x=y -- -`,
		`"" '' x`,
		`@{u} HEAD~1 a:b a=b:c`,
		`{} \; + ';'`,
		`"$'x'" '$"x"'`,
		`a\` + "\n" + `b`,
		`"a` + "\n" + `b"`,
		`é ü 日本`,
		`$'\xc3\xa9'`,
		`"\\\\"`,
		`\\\\ \'`,
	}
	for _, line := range lines {
		cmd := exec.Command(bash, "-c", "set -- "+line+"\nprintf '%s\\0' \"$@\"")
		cmd.Env = []string{"LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%q: bash: %v", line, err)
			continue
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if string(out) == "" {
			want = nil
		}
		s := Parse("set -- "+line, Options{})
		if len(s.Problems) > 0 || len(s.Segments) != 1 {
			t.Errorf("%q: %d segments, problems %v", line, len(s.Segments), s.Problems)
			continue
		}
		got := s.Segments[0].Words[2:]
		if len(got) != len(want) {
			t.Errorf("%q: guard reads %d words %q, bash %d %q", line, len(got), got, len(want), want)
			continue
		}
		for i, w := range got {
			lit, ok := w.Literal()
			if !ok {
				t.Errorf("%q: word %d %q is unknown to guard; bash reads %q", line, i, w, want[i])
				continue
			}
			if lit != want[i] {
				t.Errorf("%q: word %d: guard reads %q, bash %q", line, i, lit, want[i])
			}
		}
	}
}

// TestParserDifferentials runs inputs on which guard's parser and bash may
// disagree. Where bash would refuse the command but the parser reads it, or
// bash reads it differently, guard must not allow it.
func TestParserDifferentials(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	inputs := []string{
		"ls\r",
		"ls\r; zap",
		"echo a\rb",
		"ls #\rzap",
		"cat <<EOF\r\nx\r\nEOF\r\nzap",
		"echo @(a|b)",
		"echo !(a)",
		"echo +(a)",
		"ls ?(x)",
		"[[ a =~ (b) ]]",
		"[[ -v a[1] ]]",
		"echo {a,b}",
		"{zap,x}",
		"echo $'\\u0041'",
		"echo $'\\cA'",
		"echo $\"x\"",
		"cat <<- EOF\n\tx\n\tEOF",
		"cat <<'E'OF\nx\nEOF",
		"cat <<$X\nx\n$X",
		"echo <(ls)",
		"coproc { ls; }",
		"a=( [1]=x )",
		"echo ${x@Q}",
		"echo ${x,,}",
		"function f() { ls; }",
		"f() ( ls )",
		"select x in a; do break; done",
		"time -p ls",
		"! ! ls",
		"ls |& cat",
		"ls &> /dev/null",
		"echo $[1+2]",
		"echo ${#a[@]}",
		"case x in (a) ;; esac",
		"for ((;;)); do break; done",
		"declare -A h=([a]=1)",
		"echo \\\n\\\n",
		"`echo ls`",
	}
	p := testPolicy(t, "deny shell(zap *)")
	for _, in := range inputs {
		bashErr := exec.Command(bash, "-n", "-c", in).Run()
		v := Evaluate(in, p)
		if bashErr != nil && v.Decision == rule.Allow {
			t.Errorf("%q: bash refuses it (%v) but guard allows it:\n%s", in, bashErr, describe(v))
		}
		if strings.ContainsAny(in, "\r") && v.Decision == rule.Allow {
			t.Errorf("%q: an unquoted carriage return must ask:\n%s", in, describe(v))
		}
	}
}
