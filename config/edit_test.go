package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/guard-sh/guard/rule"
)

func editIn(t *testing.T, content string, create bool) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.toml")
	if create {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAddRule(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		action rule.Action
		rule   string
		out    string
		line   int
	}{
		{
			name: "new file", action: rule.Deny, rule: "shell(rm -rf *)",
			out: "[permissions]\ndeny = [\"shell(rm -rf *)\"]\n", line: 2,
		},
		{
			name: "empty file", in: "", action: rule.Deny, rule: "shell(rm -rf *)",
			out: "[permissions]\ndeny = [\"shell(rm -rf *)\"]\n", line: 2,
		},
		{
			name: "one-line array", in: "[permissions]\ndeny = [\"shell(a)\", 'shell(b)']  # keep\n", action: rule.Deny, rule: "shell(c)",
			out: "[permissions]\ndeny = [\"shell(a)\", 'shell(b)', \"shell(c)\"]  # keep\n", line: 2,
		},
		{
			name: "empty array", in: "[permissions]\ndeny = []\n", action: rule.Deny, rule: "shell(c)",
			out: "[permissions]\ndeny = [\"shell(c)\"]\n", line: 2,
		},
		{
			name: "multi-line array with a trailing comma and comments", action: rule.Allow, rule: "shell(go test *)",
			in:  "[permissions]\nallow = [\n    \"shell(git *)\", # git\n    # more below\n    \"shell(ls)\",  # ls\n]\n",
			out: "[permissions]\nallow = [\n    \"shell(git *)\", # git\n    # more below\n    \"shell(ls)\",  # ls\n    \"shell(go test *)\",\n]\n", line: 6,
		},
		{
			name: "multi-line array without a trailing comma", action: rule.Allow, rule: "shell(b)",
			in:  "[permissions]\nallow = [\n  \"shell(a)\" # a\n]\n",
			out: "[permissions]\nallow = [\n  \"shell(a)\", # a\n  \"shell(b)\"\n]\n", line: 4,
		},
		{
			name: "multi-line array closing on the last element's line", action: rule.Allow, rule: "shell(c)",
			in:  "[permissions]\nallow = [\n  \"shell(a)\",\n  \"shell(b)\"]\nask = []\n",
			out: "[permissions]\nallow = [\n  \"shell(a)\",\n  \"shell(b)\",\n  \"shell(c)\"]\nask = []\n", line: 5,
		},
		{
			name: "empty multi-line array with a comment", action: rule.Ask, rule: "web",
			in:  "[permissions]\nask = [\n  # nothing yet\n]\n",
			out: "[permissions]\nask = [\n  # nothing yet\n    \"web\",\n]\n", line: 4,
		},
		{
			name: "table without the key", action: rule.Ask, rule: "shell(git push *)",
			in:  "# mine\n[permissions]\n  deny = [\"shell(x)\"] # x\n\n# the sandbox\n[sandbox]\nnetwork = \"off\"\n",
			out: "# mine\n[permissions]\n  deny = [\"shell(x)\"] # x\n  ask = [\"shell(git push *)\"]\n\n# the sandbox\n[sandbox]\nnetwork = \"off\"\n", line: 4,
		},
		{
			name: "empty table", action: rule.Deny, rule: "web",
			in:  "[permissions]\n[sandbox]\n",
			out: "[permissions]\ndeny = [\"web\"]\n[sandbox]\n", line: 2,
		},
		{
			name: "no table", action: rule.Deny, rule: "web",
			in:  "[guard]\npermission_mode = \"plan\"",
			out: "[guard]\npermission_mode = \"plan\"\n\n[permissions]\ndeny = [\"web\"]\n", line: 5,
		},
		{
			name: "only a sub-table: the table goes before it", action: rule.Deny, rule: "web",
			in:  "[guard]\nx = 1\n\n# reviewer\n[permissions.auto]\ncommand = [\"r\"]\n",
			out: "[guard]\nx = 1\n\n[permissions]\ndeny = [\"web\"]\n\n# reviewer\n[permissions.auto]\ncommand = [\"r\"]\n", line: 5,
		},
		{
			name: "dotted keys at the top", action: rule.Allow, rule: "shell(ls)",
			in:  "permissions.deny = [\"web\"]\n[sandbox]\n",
			out: "permissions.deny = [\"web\"]\npermissions.allow = [\"shell(ls)\"]\n[sandbox]\n", line: 2,
		},
		{
			name: "inline table", action: rule.Allow, rule: "shell(ls)",
			in:  "permissions = { deny = [\"web\"] }\n",
			out: "permissions = { deny = [\"web\"], allow = [\"shell(ls)\"] }\n", line: 1,
		},
		{
			name: "CRLF file", action: rule.Deny, rule: "web",
			in:  "[permissions]\r\nask = [\r\n  \"shell\",\r\n]\r\n",
			out: "[permissions]\r\nask = [\r\n  \"shell\",\r\n]\r\ndeny = [\"web\"]\r\n", line: 5,
		},
		{
			name: "rule with double quotes", action: rule.Deny, rule: `shell(echo "x")`,
			in:  "",
			out: "[permissions]\ndeny = ['shell(echo \"x\")']\n", line: 2,
		},
		{
			name: "rule with both quotes and a backslash", action: rule.Deny, rule: `shell(echo "it's" \n)`,
			in:  "",
			out: "[permissions]\ndeny = [\"shell(echo \\\"it's\\\" \\\\n)\"]\n", line: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := editIn(t, tc.in, tc.name != "new file")
			ed, err := AddRule(file, tc.action, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, file); got != tc.out {
				t.Fatalf("file\n got %q\nwant %q", got, tc.out)
			}
			if !ed.Changed || ed.Line != tc.line || ed.File != file || ed.Created != (tc.name == "new file") {
				t.Fatalf("edit %+v; want changed at line %d", ed, tc.line)
			}
			s := loadFile(t, file)
			if !hasRule(s, tc.action, tc.rule) {
				t.Fatalf("the rule does not load back: %v", ruleStrings(s))
			}
		})
	}
}

// loadFile decodes a settings file as the global one.
func loadFile(t *testing.T, file string) []rule.Rule {
	t.Helper()
	l, err := decodeLayer(rule.SourceGlobal, file, []byte(readFile(t, file)))
	if err != nil {
		t.Fatal(err)
	}
	return l.rules
}

func TestAddRuleNoOp(t *testing.T) {
	in := "[permissions]\ndeny = [\n  \"shell(git push *)\",\n]\n"
	for _, spelling := range []string{"shell(git push *)", "Bash(git push:*)", " shell(git push *) "} {
		t.Run(spelling, func(t *testing.T) {
			file := editIn(t, in, true)
			ed, err := AddRule(file, rule.Deny, spelling)
			if err != nil || ed.Changed || ed.Line != 3 {
				t.Fatalf("AddRule = %+v, %v; want unchanged, found at line 3", ed, err)
			}
			if got := readFile(t, file); got != in {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
	t.Run("same rule, other action, is added", func(t *testing.T) {
		file := editIn(t, in, true)
		if ed, err := AddRule(file, rule.Allow, "shell(git push *)"); err != nil || !ed.Changed {
			t.Fatalf("AddRule = %+v, %v", ed, err)
		}
	})
}

func TestAddRuleRefusals(t *testing.T) {
	tests := []struct {
		name, in, rule, want string
		fileErr              bool
	}{
		{name: "invalid rule", rule: "shell(", want: `invalid rule "shell(": "shell(": missing closing parenthesis`},
		{name: "unknown kind", rule: "Exec(x)", want: "unknown kind"},
		{name: "broken file", in: "[permissions\n", rule: "web", want: "fix the file before guard edits it", fileErr: true},
		{name: "deny is not an array", in: "[permissions]\ndeny = \"web\"\n", rule: "web", want: ":2: [permissions] deny is not an array"},
		{name: "deny holds a number", in: "[permissions]\ndeny = [\n1]\n", rule: "web", want: ":3: [permissions] deny holds an integer"},
		{name: "permissions is not a table", in: "permissions = 3\n", rule: "web", want: "permissions is not a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := editIn(t, tc.in, true)
			_, err := AddRule(file, rule.Deny, tc.rule)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("AddRule error %v; want %q", err, tc.want)
			}
			var fe *FileError
			if errors.As(err, &fe) != tc.fileErr {
				t.Fatalf("FileError = %v for %v", !tc.fileErr, err)
			}
			if got := readFile(t, file); got != tc.in {
				t.Fatalf("a refused edit changed the file: %q", got)
			}
		})
	}
}

func TestRemoveRule(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		action  rule.Action
		rule    string
		out     string
		line    int
		removed int
	}{
		{
			name: "its own line, with its comment", action: rule.Deny, rule: "shell(b)",
			in:  "[permissions]\ndeny = [\n  \"shell(a)\",\n  \"shell(b)\", # why b\n  \"shell(c)\",\n]\n",
			out: "[permissions]\ndeny = [\n  \"shell(a)\",\n  \"shell(c)\",\n]\n", line: 4, removed: 1,
		},
		{
			name: "the last line, no trailing comma", action: rule.Deny, rule: "shell(b)",
			in:  "[permissions]\ndeny = [\n  \"shell(a)\",\n  \"shell(b)\"\n]\n",
			out: "[permissions]\ndeny = [\n  \"shell(a)\",\n]\n", line: 4, removed: 1,
		},
		{
			name: "first of one line", action: rule.Deny, rule: "shell(a)",
			in:  "[permissions]\ndeny = [\"shell(a)\", \"shell(b)\"] # keep\n",
			out: "[permissions]\ndeny = [\"shell(b)\"] # keep\n", line: 2, removed: 1,
		},
		{
			name: "last of one line", action: rule.Deny, rule: "shell(b)",
			in:  "[permissions]\ndeny = [\"shell(a)\", 'shell(b)']\n",
			out: "[permissions]\ndeny = [\"shell(a)\"]\n", line: 2, removed: 1,
		},
		{
			name: "the only one", action: rule.Deny, rule: "shell(a)",
			in:  "[permissions]\ndeny = [ \"shell(a)\", ]\nask = []\n",
			out: "[permissions]\ndeny = [  ]\nask = []\n", line: 2, removed: 1,
		},
		{
			name: "another spelling, every copy", action: rule.Ask, rule: "Bash(git push:*)",
			in:  "[permissions]\nask = [\n  \"shell(git push *)\",\n  \"shell(x)\",\n  'Bash(git push:*)',\n]\n",
			out: "[permissions]\nask = [\n  \"shell(x)\",\n]\n", line: 3, removed: 2,
		},
		{
			name: "an invalid entry, by its text", action: rule.Deny, rule: "Shell(x)",
			in:  "[permissions]\ndeny = [\"Shell(x)\", \"web\"]\n",
			out: "[permissions]\ndeny = [\"web\"]\n", line: 2, removed: 1,
		},
		{
			name: "dotted key", action: rule.Deny, rule: "web",
			in:  "permissions.deny = [\"web\", \"mcp\"]\n",
			out: "permissions.deny = [\"mcp\"]\n", line: 1, removed: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := editIn(t, tc.in, true)
			ed, err := RemoveRule(file, tc.action, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, file); got != tc.out {
				t.Fatalf("file\n got %q\nwant %q", got, tc.out)
			}
			if !ed.Changed || ed.Line != tc.line || ed.Removed != tc.removed {
				t.Fatalf("edit %+v; want line %d, %d removed", ed, tc.line, tc.removed)
			}
		})
	}
}

func TestRemoveRuleNotFound(t *testing.T) {
	in := "[permissions]\ndeny = [\"shell(git push *)\", \"shell(rm -rf *)\"]\nallow = [\"shell(git psuh *)\"]\n"
	tests := []struct {
		name, rule string
		action     rule.Action
		close      []string
	}{
		{"a typo", "shell(git psh *)", rule.Deny, []string{"deny shell(git push *)", "allow shell(git psuh *)"}},
		{"the other action", "shell(rm -rf *)", rule.Allow, []string{"deny shell(rm -rf *)"}},
		{"nothing like it", "mcp(github:*)", rule.Deny, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := editIn(t, in, true)
			_, err := RemoveRule(file, tc.action, tc.rule)
			var nf *RuleNotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v; want *RuleNotFoundError", err)
			}
			if !reflect.DeepEqual(nf.Close, tc.close) {
				t.Fatalf("close %q; want %q", nf.Close, tc.close)
			}
			if readFile(t, file) != in {
				t.Fatal("file changed")
			}
		})
	}
	t.Run("a missing file", func(t *testing.T) {
		file := editIn(t, "", false)
		var nf *RuleNotFoundError
		if _, err := RemoveRule(file, rule.Deny, "web"); !errors.As(err, &nf) {
			t.Fatalf("error %v", err)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatal("removing from a missing file created it")
		}
	})
}

func TestSetMode(t *testing.T) {
	tests := []struct {
		name, in string
		mode     Mode
		out      string
		line     int
		changed  bool
	}{
		{name: "replace, keeping the comment", in: "[guard]\npermission_mode = 'default' # was\n", mode: ModePlan,
			out: "[guard]\npermission_mode = \"plan\" # was\n", line: 2, changed: true},
		{name: "Claude's spelling is written in guard's", in: "", mode: "acceptEdits",
			out: "[guard]\npermission_mode = \"accept-edits\"\n", line: 2, changed: true},
		{name: "same mode in another spelling: no change", in: "[guard]\npermission_mode = \"dontAsk\"\n", mode: ModeDontAsk,
			out: "[guard]\npermission_mode = \"dontAsk\"\n", line: 2},
		{name: "into an existing table", in: "[guard]\nauto_approve = false\n\n[permissions]\n", mode: ModePlan,
			out: "[guard]\nauto_approve = false\npermission_mode = \"plan\"\n\n[permissions]\n", line: 3, changed: true},
		{name: "a new table before the first, above its comments", in: "# my settings\n\n# rules\n[permissions]\ndeny = []\n", mode: ModePlan,
			out: "# my settings\n\n[guard]\npermission_mode = \"plan\"\n\n# rules\n[permissions]\ndeny = []\n", line: 4, changed: true},
		{name: "top-level keys stay top-level", in: "x = 1\n", mode: ModePlan,
			out: "x = 1\n\n[guard]\npermission_mode = \"plan\"\n", line: 4, changed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := editIn(t, tc.in, true)
			ed, err := SetMode(file, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, file); got != tc.out {
				t.Fatalf("file\n got %q\nwant %q", got, tc.out)
			}
			if ed.Changed != tc.changed || ed.Line != tc.line {
				t.Fatalf("edit %+v", ed)
			}
		})
	}
	if _, err := SetMode(editIn(t, "", true), "yolo"); err == nil {
		t.Fatal("SetMode accepted an unknown mode")
	}
}

func TestEditFiles(t *testing.T) {
	t.Run("a new file is 0600 in a new 0700 directory, with its header", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "workspaces", "w.toml")
		ed, err := SetMode(file, ModePlan, WithHeader("for the workspace \"/x\ny\"\nsecond line"))
		if err != nil || !ed.Created {
			t.Fatalf("SetMode = %+v, %v", ed, err)
		}
		fi, _ := os.Stat(file)
		di, _ := os.Stat(filepath.Dir(file))
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Fatalf("modes %v %v", fi.Mode(), di.Mode())
		}
		want := "# for the workspace \"/x\n# y\"\n# second line\n\n[guard]\npermission_mode = \"plan\"\n"
		if got := readFile(t, file); got != want {
			t.Fatalf("file %q, want %q", got, want)
		}
	})
	t.Run("a header cannot break out of its comment", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "w.toml")
		if _, err := SetMode(file, ModePlan, WithHeader("x\r[permissions]\u2028allow = [\"shell\"]")); err != nil {
			t.Fatal(err)
		}
		if rs := loadFile(t, file); len(rs) != 0 {
			t.Fatalf("a header became settings: %v", rs)
		}
	})
	t.Run("an existing file keeps its mode", func(t *testing.T) {
		file := editIn(t, "", true)
		os.Chmod(file, 0o640)
		if _, err := AddRule(file, rule.Deny, "web"); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
			t.Fatalf("mode %v; want 0640", fi.Mode())
		}
	})
	t.Run("a symlinked file is written through", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "dotfiles", "guard.toml")
		os.MkdirAll(filepath.Dir(real), 0o755)
		os.WriteFile(real, []byte("# mine\n"), 0o644)
		link := filepath.Join(dir, "settings.toml")
		os.Symlink(real, link)
		if _, err := AddRule(link, rule.Deny, "web"); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
			t.Fatal("the symlink was replaced by a file")
		}
		if got := readFile(t, real); got != "# mine\n\n[permissions]\ndeny = [\"web\"]\n" {
			t.Fatalf("target %q", got)
		}
	})
	t.Run("no temporary files left", func(t *testing.T) {
		file := editIn(t, "", true)
		AddRule(file, rule.Deny, "web")
		AddRule(file, rule.Deny, "shell(")
		entries, _ := os.ReadDir(filepath.Dir(file))
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Fatalf("left %s", e.Name())
			}
		}
	})
}

// TestEditConcurrent: guard processes editing one file at once must not
// lose each other's rules. flock locks belong to an open file description,
// so goroutines that each open the lock file exclude each other as
// processes do.
func TestEditConcurrent(t *testing.T) {
	file := editIn(t, "[permissions]\ndeny = [\n]\n", true)
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := AddRule(file, rule.Deny, fmt.Sprintf("shell(cmd%d *)", i)); err != nil {
				errs <- err
			}
			if i%3 == 0 {
				if _, err := SetMode(file, Modes[i%len(Modes)]); err != nil {
					errs <- err
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rs := loadFile(t, file)
	if len(rs) != n {
		t.Fatalf("%d rules after %d concurrent adds:\n%s", len(rs), n, readFile(t, file))
	}
}

// FuzzEdit adds and removes a rule in arbitrary TOML: the editor must
// not panic, and whatever it writes must say exactly the old settings with
// the one change.
func FuzzEdit(f *testing.F) {
	for _, s := range []string{
		"[permissions]\ndeny = [\n  \"a\", # x\n]\n",
		"permissions = { allow = ['x'] }\n",
		"[permissions.auto]\ncommand = ['r']\n[guard]\n",
		"permissions.ask = [\"web\"]\n[sandbox]\n",
		"[permissions]\r\ndeny = [\"web\",\r\n\"mcp\"]\r\n",
		"# c\n[[hooks.pre_tool_use]]\ncommand = 'x'\n",
	} {
		f.Add(s, "shell(x *)", uint8(0))
	}
	f.Fuzz(func(t *testing.T, src, text string, op uint8) {
		var before map[string]any
		if _, err := toml.Decode(src, &before); err != nil {
			return
		}
		file := filepath.Join(t.TempDir(), "s.toml")
		if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		action := rule.Actions[int(op)%len(rule.Actions)]
		var ed Edit
		var err error
		switch op % 2 {
		case 0:
			ed, err = AddRule(file, action, text)
		default:
			ed, err = RemoveRule(file, action, text)
		}
		got := readFile(t, file)
		if err != nil || !ed.Changed {
			if got != src {
				t.Fatalf("a failed or empty edit changed the file: %v", err)
			}
			return
		}
		var after map[string]any
		if _, err := toml.Decode(got, &after); err != nil {
			t.Fatalf("the edit wrote invalid TOML: %v\n%s", err, got)
		}
		delete(before, "permissions")
		delete(after, "permissions")
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the edit changed other settings:\n%s\n->\n%s", src, got)
		}
	})
}
