package integration

import (
	"strings"
	"testing"
)

func TestUsageErrorsExit64(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"frobnicate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := w.guard(tc.args...).expect(t, 64)
			if !strings.Contains(r.stderr, "guard") || r.stdout != "" {
				t.Fatalf("usage errors belong on stderr: %s", r)
			}
		})
	}
}
