package rule

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		kind     Kind
		pattern  string
		bare     bool
		err      string // substring of the error; empty for success
	}{
		{"guard shell rule", "shell(git *)", Shell, "git *", false, ""},
		{"guard bare kind", "shell", Shell, "", true, ""},
		{"bare read", "read", Read, "", true, ""},
		{"bare web", "web", Web, "", true, ""},
		{"shell keeps inner parentheses", "shell(echo (hi))", Shell, "echo (hi)", false, ""},
		{"shell trims blanks around pattern", "shell( ls -la )", Shell, "ls -la", false, ""},
		{"read home pattern", "read(~/.ssh/*)", Read, "~/.ssh/*", false, ""},
		{"read home alone", "read(~)", Read, "~", false, ""},
		{"read trailing slash dropped", "read(~/.ssh/)", Read, "~/.ssh", false, ""},
		{"read absolute", "read(/etc/shadow)", Read, "/etc/shadow", false, ""},
		{"read doubled slashes cleaned", "read(/etc//ssh/./x)", Read, "/etc/ssh/x", false, ""},
		{"read anywhere", "read(*/.env*)", Read, "*/.env*", false, ""},
		{"write relative", "write(src/*)", Write, "./src/*", false, ""},
		{"write dot relative", "write(./src/*)", Write, "./src/*", false, ""},
		{"delete workspace", "delete(.)", Delete, ".", false, ""},
		{"web host lower-cased", "web(*.GitHub.com)", Web, "*.github.com", false, ""},
		{"web trailing dot", "web(example.com.)", Web, "example.com", false, ""},
		{"mcp server and tool", "mcp(github:get_issue)", MCP, "github:get_issue", false, ""},
		{"mcp server only", "mcp(github)", MCP, "github:*", false, ""},
		// Claude Code's spellings.
		{"Bash prefix", "Bash(git push:*)", Shell, "git push *", false, ""},
		{"Bash star", "Bash(npm run *)", Shell, "npm run *", false, ""},
		{"Bash exact", "Bash(npm test)", Shell, "npm test", false, ""},
		{"Bash colon star alone", "Bash(:*)", Shell, "*", false, ""},
		{"Bash bare", "Bash", Shell, "", true, ""},
		{"Read double star", "Read(~/.ssh/**)", Read, "~/.ssh/*", false, ""},
		{"Read absolute double slash", "Read(//etc/shadow)", Read, "/etc/shadow", false, ""},
		{"Read project-root slash", "Read(/secrets/*)", Read, "./secrets/*", false, ""},
		{"Read relative", "Read(.env)", Read, "./.env", false, ""},
		{"Read dot relative", "Read(./config/*.json)", Read, "./config/*.json", false, ""},
		{"Edit is write", "Edit(src/**/*.ts)", Write, "./src/*/*.ts", false, ""},
		{"Write is write", "Write(docs/*)", Write, "./docs/*", false, ""},
		{"MultiEdit is write", "MultiEdit(a.txt)", Write, "./a.txt", false, ""},
		{"NotebookEdit is write", "NotebookEdit(*.ipynb)", Write, "./*.ipynb", false, ""},
		{"Glob is read", "Glob", Read, "", true, ""},
		{"Grep is read", "Grep(~/notes/*)", Read, "~/notes/*", false, ""},
		{"WebFetch domain", "WebFetch(domain:Example.com)", Web, "example.com", false, ""},
		{"WebFetch bare", "WebFetch", Web, "", true, ""},
		{"mcp server tool", "mcp__github__get_issue", MCP, "github:get_issue", false, ""},
		{"mcp server", "mcp__github", MCP, "github:*", false, ""},
		{"mcp server star", "mcp__github__*", MCP, "github:*", false, ""},
		// Refusals, each with a reason.
		{"empty", "", "", "", false, "empty rule"},
		{"empty pattern", "shell()", "", "", false, "empty pattern"},
		{"blank pattern", "read(  )", "", "", false, "empty pattern"},
		{"missing paren", "shell(git *", "", "", false, "missing closing parenthesis"},
		{"unknown kind", "exec(ls)", "", "", false, "unknown kind"},
		{"capital kind", "Shell(ls)", "", "", false, "kinds are lower case"},
		{"control char", "shell(rm\x00 -rf)", "", "", false, "control character"},
		{"newline", "shell(ls\nrm)", "", "", false, "control character"},
		{"web url", "web(https://x.com/a)", "", "", false, "not a URL"},
		{"web path", "web(x.com/a)", "", "", false, "not a URL"},
		{"web bad char", "web(x_y.com)", "", "", false, "cannot appear in a host"},
		{"WebFetch url", "WebFetch(https://x.com)", "", "", false, "domain:HOST"},
		{"web dots only", "WebFetch(domain:..)", "", "", false, "empty parts"},
		{"web leading dot", "web(.example.com)", "", "", false, "empty parts"},
		{"web empty label", "web(a..example.com)", "", "", false, "empty parts"},
		{"dotdot", "read(/etc/../root)", "", "", false, `".."`},
		{"tilde user", "read(~bob/x)", "", "", false, "~user"},
		{"mcp empty tool", "mcp(github:)", "", "", false, "server:tool"},
		{"mcp with parens", "mcp__x__y(z)", "", "", false, "no parentheses"},
		{"mcp bad", "mcp__", "", "", false, "mcp__server"},
		{"junk after bare", "shell x", "", "", false, "want kind(pattern)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, pat, bare, err := Parse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if k != tc.kind || pat != tc.pattern || bare != tc.bare {
				t.Fatalf("Parse(%q) = %q %q %v, want %q %q %v", tc.in, k, pat, bare, tc.kind, tc.pattern, tc.bare)
			}
			// The normalized form parses to itself.
			r := Rule{Kind: k, Pattern: pat, Bare: bare}
			k2, pat2, bare2, err := Parse(r.String())
			if err != nil || k2 != k || pat2 != pat || bare2 != bare {
				t.Fatalf("round trip of %q: %q %q %v %v", r.String(), k2, pat2, bare2, err)
			}
		})
	}
}

func TestNewRejectsUnknownAction(t *testing.T) {
	if _, err := New("permit", "shell(ls)"); err == nil {
		t.Fatal("New accepted action permit")
	}
	r, err := New(Deny, "Bash(rm -rf:*)")
	if err != nil || r.String() != "shell(rm -rf *)" || r.Written != "Bash(rm -rf:*)" {
		t.Fatalf("New = %+v, %v", r, err)
	}
}

func TestLint(t *testing.T) {
	tests := []struct {
		name   string
		action Action
		text   string
		want   string // substring of a note; empty: no note
	}{
		{"relative path", Deny, "read(secrets/*)", "relative"},
		{"match-all ask", Ask, "shell(*)", "outranks every allow"},
		{"bare ask", Ask, "shell", "outranks every allow"},
		{"allow everything", Allow, "web", "allows every web request"},
		{"plain rule", Allow, "shell(git status)", ""},
		{"absolute path", Deny, "read(/etc/shadow)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(tc.action, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			notes := Lint(r)
			if tc.want == "" {
				if len(notes) != 0 {
					t.Fatalf("Lint(%s) = %q, want none", r, notes)
				}
				return
			}
			if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), tc.want) {
				t.Fatalf("Lint(%s) = %q, want a note containing %q", r, notes, tc.want)
			}
		})
	}
}

// FuzzRoundTrip: a rule that parses is written (String) as a rule that
// parses to the same rule, so that what guard writes into a settings file
// (guard rules add, guard import) is what it read.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"shell(git *)", "Bash(git push:*)", "Read(~/.ssh/**)", "WebFetch(domain:x.com.)", "web(*.x.com)", "mcp__a__b", "read(./a/../b)", "Edit(//etc/x)", "write"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := New(Allow, text)
		if err != nil {
			return
		}
		again, err := New(Allow, r.String())
		if err != nil {
			t.Fatalf("%q reads as %q, which does not parse: %v", text, r.String(), err)
		}
		if again.String() != r.String() || again.Kind != r.Kind || again.Pattern != r.Pattern || again.Bare != r.Bare {
			t.Fatalf("%q reads as %q, which reads as %q", text, r.String(), again.String())
		}
	})
}
