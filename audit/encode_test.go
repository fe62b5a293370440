package audit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMarshalIsJSON: a record is written as json.Marshal writes it, byte
// for byte, whatever its text holds.
func TestMarshalIsJSON(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 123456789, time.FixedZone("x", 5*3600+1800))
	tests := []struct {
		name string
		rec  Record
	}{
		{"empty", Record{}},
		{"every field", Record{Time: at, Workspace: "/ws", Session: "s", Mode: "default", Tool: "exec", Kind: "run_command",
			Detail: "git status", Targets: []string{"git status", "rm -rf /"}, Decision: "allow", Reason: "rule-allow",
			Rule: "shell(git *)", Source: "global", Where: "/h/.config/guard/settings.toml:4", WaitedMS: 3200,
			Message: "allowed", Comment: "ok", PID: 4242, Truncated: true}},
		{"no targets but an empty list", Record{Time: at, Targets: []string{}}},
		{"an empty target", Record{Time: at, Targets: []string{""}}},
		{"negative wait", Record{Time: at, WaitedMS: -5, PID: -1}},
		{"escapes", Record{Time: at, Detail: "a\"b\\c\b\f\n\r\t\x00\x01\x1f\x7f <x> & y"}},
		{"unicode", Record{Time: at, Detail: "café ☕ \u2028 \u2029 \u202e 😀"}},
		{"invalid UTF-8", Record{Time: at, Detail: "a\xffb\xc3", Message: "\xed\xa0\x80"}},
		{"a NUL in a key", Record{Time: at, Detail: "cmd:/w\x00make"}},
		{"UTC time", Record{Time: time.Unix(0, 0).UTC()}},
		{"local time", Record{Time: time.Unix(1700000000, 5)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := marshal(&tc.rec)
			want, werr := json.Marshal(tc.rec)
			if err != nil || werr != nil || string(got) != string(want) {
				t.Errorf("marshal:\n%s (%v)\njson.Marshal:\n%s (%v)", got, err, want, werr)
			}
		})
	}
	t.Run("a time json refuses: the same error", func(t *testing.T) {
		rec := Record{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
		_, err := marshal(&rec)
		_, werr := json.Marshal(rec)
		if err == nil || werr == nil || err.Error() != werr.Error() {
			t.Errorf("marshal: %v; json.Marshal: %v", err, werr)
		}
	})
}

func FuzzMarshalIsJSON(f *testing.F) {
	f.Add("git status", "rm -rf /", "a\"<b>&\x00\u2028", int64(5), 7, true)
	f.Add("", "", "\xff", int64(0), 0, false)
	f.Fuzz(func(t *testing.T, detail, target, message string, waited int64, pid int, truncated bool) {
		rec := Record{Time: time.Unix(waited%1e10, 0).UTC(), Detail: detail, Targets: []string{target, detail},
			Message: message, Comment: strings.ToUpper(message), WaitedMS: waited, PID: pid, Truncated: truncated}
		if target == "" {
			rec.Targets = nil
		}
		got, err := marshal(&rec)
		want, werr := json.Marshal(rec)
		if (err == nil) != (werr == nil) || string(got) != string(want) {
			t.Fatalf("marshal:\n%q (%v)\njson.Marshal:\n%q (%v)", got, err, want, werr)
		}
	})
}
