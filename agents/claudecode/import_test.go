package claudecode

import (
	"strings"
	"testing"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

func TestTranslateRule(t *testing.T) {
	tests := []struct {
		name   string
		action rule.Action
		claude string
		want   []string // nil: not carried over
		note   string   // the note or the reason it was dropped must say this
	}{
		// Bash
		{"a bare Bash", rule.Deny, "Bash", []string{"shell"}, ""},
		{"an exact command", rule.Allow, "Bash(npm run build)", []string{"shell(npm run build)"}, ""},
		{"the legacy prefix form", rule.Ask, "Bash(git push:*)", []string{"shell(git push *)"}, ""},
		{"a wildcard anywhere", rule.Allow, "Bash(git * main)", []string{"shell(git * main)"}, ""},
		{"a prefix without a word boundary", rule.Allow, "Bash(ls*)", []string{"shell(ls*)"}, ""},
		{":* not at the end", rule.Allow, "Bash(git:* push)", nil, "only at the end"},
		// Read and Edit: gitignore anchoring
		{"an absolute path", rule.Deny, "Read(//etc/shadow)", []string{"read(/etc/shadow)"}, ""},
		{"home, everything below", rule.Deny, "Read(~/.ssh/**)", []string{"read(~/.ssh/*)"}, ""},
		{"the project root", rule.Deny, "Edit(/.github/workflows/**)", []string{"write(./.github/workflows/*)"}, ""},
		{"a deny without a slash matches at any depth", rule.Deny, "Read(.env)", []string{"read(./.env)", "read(./*/.env)"}, ""},
		{"./ is the same", rule.Deny, "Read(./.env)", []string{"read(./.env)", "read(./*/.env)"}, ""},
		{"a leading star already crosses directories", rule.Deny, "Read(*.pem)", []string{"read(./*.pem)"}, ""},
		{"an allow without a slash covers the top only", rule.Allow, "Read(notes.md)", []string{"read(./notes.md)"}, "top of the workspace only"},
		{"**/ is nothing or any directories", rule.Deny, "Read(**/secrets/**)", []string{"read(./secrets/*)", "read(./*/secrets/*)"}, ""},
		{"**/ in the middle", rule.Allow, "Edit(src/**/test.go)", []string{"write(./src/test.go)", "write(./src/*/test.go)"}, ""},
		{"**/*.ts keeps its depth", rule.Allow, "Edit(/src/**/*.ts)", []string{"write(./src/*.ts)", "write(./src/*/*.ts)"}, ""},
		{"a single star in an allow gets wider", rule.Allow, "Edit(docs/*.md)", []string{"write(./docs/*.md)"}, "covers more"},
		{"a single star in a deny needs no note", rule.Deny, "Edit(docs/*.md)", []string{"write(./docs/*.md)"}, ""},
		{"a trailing slash, at any depth", rule.Deny, "Read(secrets/)", []string{"read(./secrets)", "read(./*/secrets)"}, ""},
		{"? in a deny widens", rule.Deny, "Read(key?.pem)", []string{"read(./key*.pem)", "read(./*/key*.pem)"}, "covers more"},
		{"[...] in a deny widens", rule.Deny, "Read(//etc/[sg]shadow)", []string{"read(/etc/*shadow)"}, "covers more"},
		{"? in an allow is dropped", rule.Allow, "Read(file?.txt)", nil, "may not be widened"},
		{"a negation", rule.Deny, "Read(!keep.txt)", nil, "negated"},
		{"~user", rule.Deny, "Read(~bob/.ssh)", nil, "~user"},
		{"the home directory itself", rule.Deny, "Read(~)", []string{"read(~)"}, ""},
		{"the root", rule.Deny, "Read(//)", []string{"read(/)"}, ""},
		{"the project itself", rule.Allow, "Edit(/)", []string{"write(.)"}, ""},
		{"too many **/", rule.Deny, "Read(a/**/b/**/c/**/d/**/e)", nil, "more than 3"},
		// Other file tools
		{"Write with a path", rule.Allow, "Write(build/**)", []string{"write(./build/*)"}, "Read and Edit only"},
		{"Grep with a path", rule.Deny, "Grep(//var/log/**)", []string{"read(/var/log/*)"}, "Read and Edit only"},
		{"a bare Read allow", rule.Allow, "Read", []string{"read"}, ""},
		{"a bare Edit deny", rule.Deny, "Edit", []string{"write"}, ""},
		{"a bare Grep allow is dropped", rule.Allow, "Grep", nil, "no per-tool rules"},
		{"a bare Glob deny covers every read", rule.Deny, "Glob", []string{"read"}, "every read"},
		// Web and MCP
		{"a domain", rule.Allow, "WebFetch(domain:docs.rs)", []string{"web(docs.rs)"}, ""},
		{"a bare WebFetch", rule.Deny, "WebFetch", []string{"web"}, ""},
		{"a WebFetch URL pattern", rule.Allow, "WebFetch(https://x.com/*)", nil, "domain:HOST"},
		{"WebSearch", rule.Allow, "WebSearch", []string{"web(anthropic-web-search)"}, ""},
		{"WebSearch with a pattern", rule.Allow, "WebSearch(golang)", nil, "no pattern"},
		{"an MCP tool", rule.Allow, "mcp__github__get_issue", []string{"mcp(github:get_issue)"}, ""},
		{"an MCP server", rule.Deny, "mcp__filesystem", []string{"mcp(filesystem:*)"}, ""},
		{"an MCP server's every tool", rule.Ask, "mcp__github__*", []string{"mcp(github:*)"}, ""},
		// Not carried over
		{"a subagent", rule.Deny, "Task(Explore)", nil, "subagents"},
		{"an Agent rule", rule.Allow, "Agent", nil, "subagents"},
		{"an unknown tool", rule.Allow, "Frobnicate(x)", nil, "unknown kind"},
		{"a control character", rule.Deny, "Read(a\x1bb)", nil, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := TranslateRule(tt.action, tt.claude)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("carried over as %q (note %q); want it dropped", got, note)
				}
				if !strings.Contains(err.Error(), tt.note) {
					t.Errorf("dropped because %q; want it to say %q", err, tt.note)
				}
				return
			}
			if err != nil {
				t.Fatalf("dropped: %v", err)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.note == "" && strings.Contains(note, "covers more") {
				t.Errorf("unexpected note %q", note)
			}
			if tt.note != "" && !strings.Contains(note, tt.note) {
				t.Errorf("note %q lacks %q", note, tt.note)
			}
			for _, g := range got {
				if _, err := rule.New(tt.action, g); err != nil {
					t.Errorf("%s is not a valid rule: %v", g, err)
				}
			}
		})
	}
}

func TestImportSettingsFile(t *testing.T) {
	data := []byte(`{
  // people write comments in settings.json
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm run test:*)", 42, "Task(Explore)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Read(.env)", "WebFetch(domain:evil.example)"], /* and these */
    "defaultMode": "acceptEdits",
    "additionalDirectories": ["~/shared-lib", "../sibling", "/opt/data/"],
    "disableBypassPermissionsMode": "disable"
  },
  "sandbox": {"enabled": true}
}`)
	im, err := Import(data)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, r := range im.Rules {
		rules = append(rules, string(r.Action)+" "+r.Text)
	}
	want := "deny read(./.env)|deny read(./*/.env)|deny web(evil.example)|ask shell(git push *)|allow shell(npm run test *)"
	if strings.Join(rules, "|") != want {
		t.Errorf("rules\n%s\nwant\n%s", strings.Join(rules, "|"), want)
	}
	if im.Mode != config.ModeAcceptEdits || im.ModeFrom != "acceptEdits" {
		t.Errorf("mode %q from %q", im.Mode, im.ModeFrom)
	}
	var dirs []string
	for _, d := range im.Dirs {
		dirs = append(dirs, d.Path)
	}
	if strings.Join(dirs, " ") != "~/shared-lib ./../sibling /opt/data" {
		t.Errorf("dirs %q", dirs)
	}
	var warns []string
	for _, w := range im.Warnings {
		warns = append(warns, w.String())
	}
	all := strings.Join(warns, "\n")
	for _, s := range []string{"permissions.allow[1]: not carried over: not a string", `permissions.allow[2] "Task(Explore)": not carried over`,
		"disable_bypass", "sandbox", "relative to the workspace"} {
		if !strings.Contains(all, s) {
			t.Errorf("warnings lack %q:\n%s", s, all)
		}
	}
}

func TestImportRefusesWhatIsNotSettings(t *testing.T) {
	for _, data := range []string{``, `[]`, `{"permissions": {"allow": "Bash"}}`, `{"permissions": {"defaultMode": 3}}`, `{"permissions": []}`, `{} {}`} {
		if _, err := Import([]byte(data)); err == nil {
			t.Errorf("%q: imported; want an error", data)
		}
	}
}
