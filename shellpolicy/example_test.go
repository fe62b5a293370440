package shellpolicy_test

import (
	"fmt"

	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/shellpolicy"
)

func ExampleEvaluate() {
	allow, _ := rule.New(rule.Allow, "shell(go test *)")
	deny, _ := rule.New(rule.Deny, "Bash(rm -rf:*)")
	p := shellpolicy.Policy{
		Rules:            rule.NewSet([]rule.Rule{allow, deny}, rule.Env{Home: "/home/u", Workspace: "/w"}),
		ReadOnlyDefaults: true,
		Dir:              "/w", Workspace: "/w", Home: "/home/u",
	}
	for _, cmd := range []string{
		`git status && go test ./... 2>&1 | tail`,
		`cd build && timeout 60 bash -c 'r\m -rf "$HOME"'`,
		`eval "$CMD"`,
	} {
		v := shellpolicy.Evaluate(cmd, p)
		fmt.Println(v.Decision, v.Reason, v.MustAsk)
		for _, s := range v.Segments {
			fmt.Printf("  %s %-22q %s %s\n", s.Pos, s.Command, s.Decision, s.Reason)
		}
	}
	// Output:
	// allow rule-allow false
	//   1:1 "git status"           allow read-only
	//   1:15 "go test ./..."        allow rule-allow
	//   1:36 "tail"                 allow read-only
	// deny rule-deny false
	//   1:1 "cd build"             allow read-only
	//   1:13 "timeout 60 bash -c r\\m -rf \"$HOME\"" allow read-only
	//   1:13 "bash -c r\\m -rf \"$HOME\"" ask no-rule
	//   1:13 "rm -rf $HOME"         deny rule-deny
	// ask unverifiable true
	//   1:1 "eval $CMD"            ask unverifiable
}

func ExampleParse() {
	s := shellpolicy.Parse(`cd src && cat main.go > /tmp/copy`, shellpolicy.Options{Dir: "/w"})
	for _, seg := range s.Segments {
		fmt.Println(seg.Pos, seg.Text, seg.Dirs.Known)
		for _, f := range seg.Files {
			fmt.Println("  ", f.Op, f.Path, "by", f.By)
		}
	}
	// Output:
	// 1:1 cd src [/w]
	// 1:11 cat main.go [/w/src]
	//    write /tmp/copy by >
	//    read main.go by cat
}
