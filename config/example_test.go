package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

// AddRule edits [permissions] in place: the comments and the layout of the
// rest of the file stay as they were.
func ExampleAddRule() {
	dir, _ := os.MkdirTemp("", "guard-example-")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "settings.toml")
	os.WriteFile(file, []byte(`# my settings
[permissions]
deny = [
    "shell(rm -rf *)", # never
]
`), 0o600)

	ed, err := config.AddRule(file, rule.Deny, "Bash(curl:*)")
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(file)
	fmt.Printf("line %d:\n%s", ed.Line, data)
	// Output:
	// line 5:
	// # my settings
	// [permissions]
	// deny = [
	//     "shell(rm -rf *)", # never
	//     "Bash(curl:*)",
	// ]
}

// Load merges every source; each rule keeps where it was written.
func ExampleLoad() {
	root, _ := os.MkdirTemp("", "guard-example-")
	defer os.RemoveAll(root)
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(ws, ".guard"), 0o755)
	os.MkdirAll(filepath.Join(home, ".config", "guard"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "guard", "settings.toml"), []byte("[permissions]\nallow = [\"shell(git *)\"]\n"), 0o600)
	os.WriteFile(filepath.Join(ws, ".guard", "settings.toml"), []byte("[permissions]\ndeny = [\"shell(git push *)\"]\nallow = [\"shell(make *)\"]\n"), 0o644)

	s, err := config.Load(config.LoadOptions{Home: home, Workspace: ws, SystemManagedFile: filepath.Join(root, "none.toml")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Rules {
		fmt.Println(r.Action, r, r.Source, filepath.Base(r.File), r.Line)
	}
	fmt.Println("project:", s.Project.Trust, "ignored:", s.Project.Loosening[0].What)
	// Output:
	// allow shell(git *) global settings.toml 2
	// deny shell(git push *) project settings.toml 2
	// project: untrusted ignored: allow shell(make *)
}
