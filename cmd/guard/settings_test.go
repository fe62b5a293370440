package main

import "testing"

func TestSafeText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "a.toml:3: unknown key é", "a.toml:3: unknown key é"},
		{"a newline cannot forge a line", "x\nguard: trusted", `x\x0aguard: trusted`},
		{"a terminal escape is shown", "\x1b[2Jboo", `\x1b[2Jboo`},
		{"an 8-bit CSI is shown", "a\u009b2Jb", `a\x9b2Jb`},
		{"a carriage return", "ok\rbad", `ok\x0dbad`},
		{"invalid UTF-8", "a\xffb", `a\ufffdb`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := safeText(tc.in); got != tc.want {
				t.Fatalf("safeText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
