package claudecode

import (
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guard-sh/guard/rule"
)

// FuzzParseInput: no input makes the parser or the mapping panic, and what
// parses maps onto a call with a target of its kind.
func FuzzParseInput(f *testing.F) {
	f.Add(input("Bash", `{"command":"git status"}`))
	f.Add(input("Read", `{"file_path":"/home/u/.ssh/id_rsa","File_Path":"/ok"}`))
	f.Add(input("Glob", `{"pattern":"../../*","path":"/p"}`))
	f.Add(input("MultiEdit", `{"file_path":"/p","edits":[{"old_string":"a","new_string":"b"}]}`))
	f.Add(input("mcp__a__b", `{}`))
	f.Add(input("WebFetch", `{"url":"https://a@b/"}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"\u0000"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			return
		}
		c, _, err := in.Call()
		if err != nil {
			return
		}
		switch c.Kind {
		case Shell:
			if strings.ContainsRune(c.Command, 0) {
				t.Errorf("a command with a NUL got through: %q", c.Command)
			}
		case Read, Write:
			if c.Path == "" || strings.ContainsRune(c.Path, 0) {
				t.Errorf("path %q", c.Path)
			}
		case Web, MCP:
			if c.Target == "" {
				t.Errorf("empty target")
			}
		}
	})
}

// FuzzSandboxCommand: the rewritten command line, read by a shell parser,
// is guard exec with exactly the original command as -c's argument.
func FuzzSandboxCommand(f *testing.F) {
	for _, c := range hostileCommands {
		f.Add(c, "s-1")
	}
	f.Fuzz(func(t *testing.T, command, session string) {
		if strings.ContainsRune(command+session, 0) || !utf8.ValidString(command) || !utf8.ValidString(session) {
			return // no shell argument holds a NUL; the hook refuses such input
		}
		line := SandboxCommand("guard", session, command)
		file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q does not parse: %v", line, err)
		}
		if len(file.Stmts) != 1 {
			t.Fatalf("%q is %d statements", line, len(file.Stmts))
		}
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(file.Stmts[0].Redirs) > 0 {
			t.Fatalf("%q is not one simple command", line)
		}
		var args []string
		for _, w := range call.Args {
			fields, err := expand.Fields(nil, w)
			if err != nil || len(fields) != 1 {
				t.Fatalf("%q: word %d is %q (%v), not one field", line, len(args), fields, err)
			}
			s := fields[0]
			for _, p := range w.Parts {
				if _, ok := p.(*syntax.SglQuoted); !ok {
					if _, ok := p.(*syntax.Lit); !ok {
						t.Fatalf("%q: word %q expands at run time", line, s)
					}
				}
			}
			args = append(args, s)
		}
		if args[len(args)-1] != command || args[len(args)-2] != "-c" {
			t.Fatalf("%q: args %q, want -c %q last", line, args, command)
		}
	})
}

// FuzzTranslateRule: every rule carried over is a valid guard rule, and a
// deny rule is never dropped silently.
func FuzzTranslateRule(f *testing.F) {
	for _, s := range []string{"Bash(git push:*)", "Read(~/.ssh/**)", "Edit(/src/**/*.ts)", "Read(.env)",
		"Read(**/a/**/b/**)", "Read(x?[ab]\\*)", "WebFetch(domain:x.com)", "mcp__a__b", "Read(//)", "Edit(~)"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, deny bool) {
		action := rule.Allow
		if deny {
			action = rule.Deny
		}
		rules, _, err := TranslateRule(action, text)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q dropped without a reason", text)
			}
			return
		}
		if len(rules) == 0 {
			t.Fatalf("%q: no rules and no reason", text)
		}
		for _, r := range rules {
			if _, err := rule.New(action, r); err != nil {
				t.Fatalf("%q became %q, which is not a rule: %v", text, r, err)
			}
		}
	})
}

func BenchmarkParseAndMap(b *testing.B) {
	data := input("Edit", `{"file_path":"/home/u/proj/src/main.go","old_string":"a","new_string":"b"}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		in, err := ParseInput(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := in.Call(); err != nil {
			b.Fatal(err)
		}
	}
}
