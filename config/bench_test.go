package config

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzDecodeLayer feeds arbitrary text to the settings decoder: it must not
// panic, and must either decode or fail with a *FileError that has a place.
func FuzzDecodeLayer(f *testing.F) {
	f.Add(projectSettings)
	f.Add("[sandbox]\nnetwork = true\n")
	f.Add("[permissions]\ndeny = [\"shell(\", 3]\n")
	f.Add("[[hooks.pre_tool_use]]\ncommand = []\n")
	f.Add("[sandbox]\nallow_write = [{path = \"~\"}, \"$X\"]\n")
	f.Fuzz(func(t *testing.T, src string) {
		l, err := decodeLayer("project", "/p/settings.toml", []byte(src))
		if err != nil {
			fe := asFileError(t, err)
			if fe.File != "/p/settings.toml" || fe.Line < 0 || fe.Col < 0 {
				t.Fatalf("bad FileError %+v", fe)
			}
			return
		}
		for _, w := range l.warnings {
			if w.File != "/p/settings.toml" || w.Line < 0 {
				t.Fatalf("bad warning %+v", w)
			}
		}
		for _, r := range l.rules {
			if r.File != "/p/settings.toml" || r.Line < 1 {
				t.Fatalf("rule without a place: %+v", r)
			}
		}
	})
}

// settingsText is a large but plausible settings file: n rules of each
// action, one a line, with comments.
func settingsText(n int) string {
	var b strings.Builder
	b.WriteString("# generated\n[guard]\npermission_mode = \"default\"\n\n[permissions]\n")
	for _, a := range []string{"deny", "ask", "allow"} {
		fmt.Fprintf(&b, "%s = [\n", a)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  \"shell(tool%d --flag *)\", # rule %d\n", i, i)
		}
		b.WriteString("]\n")
	}
	b.WriteString("\n[sandbox]\nnetwork = \"off\"\nallow_write = [\"/tmp/scratch\"]\nenv_deny = [\"MY_*\"]\n")
	return b.String()
}

// BenchmarkLoad loads every source: every guard command pays this once.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10, 300} {
		b.Run(fmt.Sprintf("%d-rules-per-action", n), func(b *testing.B) {
			f := newFixture(&testing.T{})
			f.t = nil
			writeBench(b, f, "global", settingsText(n))
			writeBench(b, f, "managed", "[permissions]\ndeny = [\"shell(sudo *)\"]\n[guard]\ndisable_bypass = true\n")
			writeBench(b, f, "workspace", "[guard]\npermission_mode = \"plan\"\n")
			writeBench(b, f, "project", projectSettings)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Load(f.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func writeBench(b *testing.B, f *fixture, src, text string) {
	f.t = &testing.T{}
	f.write(src, text)
}

// BenchmarkAddRule is one `guard rules add` into a file of 300 rules an
// action: read, lock, edit, verify, write.
func BenchmarkAddRule(b *testing.B) {
	dir := b.TempDir()
	file := dir + "/settings.toml"
	text := settingsText(300)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := writeAtomic(file, []byte(text), 0o600, false); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := AddRule(file, "deny", "shell(curl *)"); err != nil {
			b.Fatal(err)
		}
	}
}
