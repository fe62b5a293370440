package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/config"
)

// decodedHas is Has as it was before scanApprovals: decode the whole file,
// then look. Every test here holds scanApprovals to it.
func decodedHas(t testing.TB, data []byte, key string) (bool, error) {
	t.Helper()
	rules, err := (&ApprovalFile{Path: "approvals.json"}).decode(data)
	if err != nil {
		return false, err
	}
	for _, r := range rules {
		if r.Key == key {
			return true, nil
		}
	}
	return false, nil
}

// TestScanApprovals: each document scanApprovals reads is one decode
// accepts with the same keys; each it declines is left to decode (ok
// false), corrupt or not.
func TestScanApprovals(t *testing.T) {
	written := func(indent bool, keys ...string) string {
		doc := approvalsDoc{Version: 1, Rules: []Approval{}}
		for _, k := range keys {
			doc.Rules = append(doc.Rules, Approval{Key: k, Label: "this exact command in this workspace", Added: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
		}
		var b []byte
		if indent {
			b, _ = json.MarshalIndent(doc, "", "  ")
		} else {
			b, _ = json.Marshal(doc)
		}
		return string(b) + "\n"
	}
	nul := "cmd:/w\x00make deploy"
	tests := []struct {
		name    string
		doc     string
		key     string
		scanned bool // scanApprovals reads it itself
	}{
		{"as guard writes it, indented", written(true, "web:a", nul, "web:c"), nul, true},
		{"as guard writes it, compact", written(false, "web:a", nul), "web:a", true},
		{"a key that is not there", written(true, "web:a", "web:b"), "web:c", true},
		{"a key that is a prefix of one that is there", written(true, "web:ab"), "web:a", true},
		{"no rules", written(true), "web:a", true},
		{"HTML escapes as encoding/json writes them", `{"version":1,"rules":[{"key":"cmd:/w\u0000a \u003c b \u0026\u0026 c","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "cmd:/w\x00a < b && c", true},
		{"every short escape", `{"version":1,"rules":[{"key":"x\"\\\/\b\f\n\r\t","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "x\"\\/\b\f\n\r\t", true},
		{"UTF-8 text", `{"version":1,"rules":[{"key":"cmd:/w` + "\x00" + `café ☕","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "cmd:/w\x00café ☕", false}, // a raw NUL is a control character
		{"UTF-8 text, NUL escaped", `{"version":1,"rules":[{"key":"cmd:/w\u0000café ☕","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "cmd:/w\x00café ☕", true},
		{"a time with a zone", `{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05.5+02:00"}]}`, "web:a", true},
		// Declined: decode decides.
		{"keys in another order", `{"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05Z"}],"version":1}`, "web:a", false},
		{"fields in another order", `{"version":1,"rules":[{"label":"l","key":"web:a","added":"2026-01-02T03:04:05Z"}]}`, "web:a", false},
		{"a field missing", `{"version":1,"rules":[{"key":"web:a","label":"l"}]}`, "web:a", false},
		{"an unknown field", `{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05Z","x":1}]}`, "web:a", false},
		{"a field spelled in another case", `{"version":1,"rules":[{"Key":"web:a","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "web:a", false},
		{"version 1.0", `{"version":1.0,"rules":[]}`, "web:a", false},
		{"version 10", `{"version":10,"rules":[]}`, "web:a", false},
		{"version 2", `{"version":2,"rules":[]}`, "web:a", false},
		{"rules null", `{"version":1,"rules":null}`, "web:a", false},
		{"an empty key", `{"version":1,"rules":[{"key":"","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "", false},
		{"a bad time", `{"version":1,"rules":[{"key":"web:a","label":"l","added":"yesterday"}]}`, "web:a", false},
		{"a time with an escape", `{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05\u005a"}]}`, "web:a", false},
		{"a raw control character", "{\"version\":1,\"rules\":[{\"key\":\"web:\ta\",\"label\":\"l\",\"added\":\"2026-01-02T03:04:05Z\"}]}", "web:\ta", false},
		{"invalid UTF-8, which decode replaces", "{\"version\":1,\"rules\":[{\"key\":\"web:\xffa\",\"label\":\"l\",\"added\":\"2026-01-02T03:04:05Z\"}]}", "web:\xffa", false},
		{"an escaped surrogate", `{"version":1,"rules":[{"key":"web:\ud83d\ude00","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "web:😀", false},
		{"a bad escape", `{"version":1,"rules":[{"key":"web:\x","label":"l","added":"2026-01-02T03:04:05Z"}]}`, "web:x", false},
		{"text after the document", written(false, "web:a") + "{}", "web:a", false},
		{"a trailing comma", `{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05Z"},]}`, "web:a", false},
		{"cut short", written(false, "web:a")[:40], "web:a", false},
		{"not JSON", "{nope", "web:a", false},
		{"empty", "", "web:a", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found, ok := scanApprovals([]byte(tc.doc), tc.key)
			if ok != tc.scanned {
				t.Fatalf("scanApprovals ok = %v, want %v", ok, tc.scanned)
			}
			want, err := decodedHas(t, []byte(tc.doc), tc.key)
			if ok && (err != nil || found != want) {
				t.Fatalf("scanApprovals = %v, but decode says %v, %v", found, want, err)
			}
			if ok && !want && strings.Contains(tc.name, "as guard writes") && tc.key != "web:c" {
				t.Fatal("the key written is not found")
			}
		})
	}
}

// TestHasManyApprovals: with a thousand approvals, each of them is found
// and nothing else is, through the file.
func TestHasManyApprovals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.json")
	doc := approvalsDoc{Version: 1}
	for i := range 1000 {
		k, l := CommandKey("/w", fmt.Sprintf("make target-%04d <&> 'x'", i))
		doc.Rules = append(doc.Rules, Approval{Key: k, Label: l, Added: time.Now().UTC().Truncate(time.Second)})
	}
	data, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := &ApprovalFile{Path: path}
	for _, r := range doc.Rules {
		if ok, err := s.Has(r.Key); !ok || err != nil {
			t.Fatalf("Has(%q) = %v, %v", r.Key, ok, err)
		}
	}
	for _, k := range []string{"cmd:/w\x00make target-1000 <&> 'x'", "cmd:/w\x00make", "cmd:/w", doc.Rules[0].Key + " "} {
		if ok, err := s.Has(k); ok || err != nil {
			t.Fatalf("Has(%q) = %v, %v", k, ok, err)
		}
	}
}

// FuzzScanApprovals: whatever the file, Has answers as decoding it would:
// the same key found or not, and an error (a *config.FileError) exactly
// when decoding fails.
func FuzzScanApprovals(f *testing.F) {
	f.Add([]byte(`{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05Z"}]}`), "web:a")
	f.Add([]byte("{\n  \"version\": 1,\n  \"rules\": [\n    {\n      \"key\": \"cmd:/w\\u0000ls\",\n      \"label\": \"l\",\n      \"added\": \"2026-01-02T03:04:05Z\"\n    }\n  ]\n}\n"), "cmd:/w\x00ls")
	f.Add([]byte(`{"version":1,"rules":[]}`), "web:a")
	f.Add([]byte(`{"version":1,"rules":[{"key":"a\u00e9\n","label":"\\","added":"2026-01-02T03:04:05+01:00"}]}`), "aé\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		if key == "" {
			return
		}
		path := filepath.Join(dir, "approvals.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := (&ApprovalFile{Path: path}).Has(key)
		want, werr := decodedHas(t, data, key)
		if (err != nil) != (werr != nil) || got != want {
			t.Fatalf("Has = %v, %v; decoding says %v, %v", got, err, want, werr)
		}
		var fe *config.FileError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error %v is not a FileError", err)
		}
	})
}
