package main

import (
	"strings"
	"testing"
)

// BenchmarkHook is one hook call as Claude Code makes it, in this process:
// parse, load the settings, judge, audit, answer. Every tool call of the
// agent pays it (plus starting the process).
func BenchmarkHook(b *testing.B) {
	for _, fixture := range []string{"bash_git_status.json", "read_workspace.json", "grep_workspace.json", "webfetch.json"} {
		b.Run(strings.TrimSuffix(fixture, ".json"), func(b *testing.B) {
			e := newAgentEnv(b, hookSettings)
			input := e.fixture(b, fixture)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if code, _, stderr := e.run(input, "hook", "claude-code"); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr)
				}
			}
		})
	}
}
