package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/config"
)

// TestMain lets the test binary act as a guard process that saves one
// approval (the concurrency test starts twenty of them).
func TestMain(m *testing.M) {
	if path := os.Getenv("GATE_HELPER_APPROVALS"); path != "" {
		s := &ApprovalFile{Path: path}
		// Environment variables cannot hold the NUL of a command key.
		key := strings.ReplaceAll(os.Getenv("GATE_HELPER_KEY"), "<NUL>", "\x00")
		// Start together: wait for the go signal file.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, err := os.Stat(os.Getenv("GATE_HELPER_GO")); err == nil {
				break
			}
		}
		if err := s.Add(Approval{Key: key, Label: "helper"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestApprovalsConcurrentWriters: twenty processes answer "always" at once;
// the lock makes every approval land in the file.
func TestApprovalsConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "guard", "approvals.json")
	goFile := filepath.Join(dir, "go")
	const n = 20
	var cmds []*exec.Cmd
	var want []string
	for i := range n {
		key := fmt.Sprintf("cmd:/ws\x00make target-%02d", i)
		want = append(want, key)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GATE_HELPER_APPROVALS="+path, "GATE_HELPER_KEY="+strings.ReplaceAll(key, "\x00", "<NUL>"), "GATE_HELPER_GO="+goFile)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("a writer failed: %v", err)
		}
	}
	list, err := (&ApprovalFile{Path: path}).List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range list {
		got = append(got, a.Key)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("approvals.json holds %d keys, want all %d:\n%q", len(got), n, got)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "guard", ".approvals.json.tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %q", leftovers)
	}
}

func TestApprovalFile(t *testing.T) {
	t.Run("a missing file is empty", func(t *testing.T) {
		s := &ApprovalFile{Path: filepath.Join(t.TempDir(), "approvals.json")}
		list, err := s.List()
		if err != nil || len(list) != 0 {
			t.Fatalf("List = %v, %v", list, err)
		}
		if ok, err := s.Has("cmd:/x\x00y"); ok || err != nil {
			t.Fatalf("Has = %v, %v", ok, err)
		}
	})
	t.Run("written sorted by key, in the documented shape, 0600 in a 0700 directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "guard")
		s := &ApprovalFile{Path: filepath.Join(dir, "approvals.json"), Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
		for _, k := range []string{"web:b.example", "cmd:/ws\x00ls", "mcp:gh:issue", "web:b.example"} {
			if err := s.Add(Approval{Key: k, Label: "l"}); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version int               `json:"version"`
			Rules   []json.RawMessage `json:"rules"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 1 || len(doc.Rules) != 3 {
			t.Fatalf("file %s: %v", data, err)
		}
		var first map[string]any
		json.Unmarshal(doc.Rules[0], &first)
		if first["key"] != "cmd:/ws\x00ls" || first["label"] != "l" || first["added"] != "2026-01-02T03:04:05Z" || len(first) != 3 {
			t.Errorf("first rule %s, want {key, label, added}", doc.Rules[0])
		}
		if !strings.Contains(string(data), `"cmd:/ws\u0000ls"`) {
			t.Errorf("the NUL of a command key is not escaped: %s", data)
		}
		list, _ := s.List()
		if list[0].Key != "cmd:/ws\x00ls" || list[1].Key != "mcp:gh:issue" || list[2].Key != "web:b.example" {
			t.Errorf("not sorted by key: %+v", list)
		}
		if st, _ := os.Stat(s.Path); st.Mode().Perm() != 0o600 {
			t.Errorf("file mode %v, want 0600", st.Mode().Perm())
		}
		if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %v, want 0700", st.Mode().Perm())
		}
	})
	t.Run("revoke and clear", func(t *testing.T) {
		s := &ApprovalFile{Path: filepath.Join(t.TempDir(), "approvals.json")}
		s.Add(Approval{Key: "web:a"})
		s.Add(Approval{Key: "web:b"})
		if ok, err := s.Revoke("web:a"); !ok || err != nil {
			t.Fatalf("Revoke = %v, %v", ok, err)
		}
		if ok, _ := s.Revoke("web:a"); ok {
			t.Fatal("revoked twice")
		}
		if ok, _ := s.Has("web:a"); ok {
			t.Fatal("still there")
		}
		if n, err := s.Clear(); n != 1 || err != nil {
			t.Fatalf("Clear = %d, %v", n, err)
		}
		if list, err := s.List(); len(list) != 0 || err != nil {
			t.Fatalf("after clear: %v, %v", list, err)
		}
	})
	corrupt := []struct{ name, content string }{
		{"not JSON", "{nope"},
		{"empty file", ""},
		{"another version", `{"version":2,"rules":[]}`},
		{"no version", `{"rules":[]}`},
		{"a rule without a key", `{"version":1,"rules":[{"label":"x"}]}`},
		{"text after the document", `{"version":1,"rules":[]} {}`},
		{"a bad time", `{"version":1,"rules":[{"key":"web:a","added":"yesterday"}]}`},
		{"rules of the wrong type", `{"version":1,"rules":{"key":"web:a"}}`},
	}
	for _, c := range corrupt {
		t.Run("corrupt: "+c.name+": a FileError naming the file, never reset", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "approvals.json")
			os.WriteFile(path, []byte(c.content), 0o600)
			s := &ApprovalFile{Path: path}
			_, err := s.Has("web:a")
			var fe *config.FileError
			if !errors.As(err, &fe) || fe.File != path {
				t.Fatalf("Has: %v, want a FileError naming %s", err, path)
			}
			if err := s.Add(Approval{Key: "web:b"}); !errors.As(err, &fe) {
				t.Fatalf("Add on a corrupt file: %v", err)
			}
			if _, err := s.Clear(); !errors.As(err, &fe) {
				t.Fatalf("Clear on a corrupt file: %v", err)
			}
			if data, _ := os.ReadFile(path); string(data) != c.content {
				t.Fatalf("the corrupt file was changed to %q", data)
			}
		})
	}
	t.Run("a file others may write is refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "approvals.json")
		os.WriteFile(path, []byte(`{"version":1,"rules":[{"key":"web:evil"}]}`), 0o600)
		os.Chmod(path, 0o666)
		_, err := (&ApprovalFile{Path: path}).Has("web:evil")
		var fe *config.FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "writable by other users") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a directory others may write is refused", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "open")
		os.Mkdir(dir, 0o777)
		os.Chmod(dir, 0o777)
		err := (&ApprovalFile{Path: filepath.Join(dir, "approvals.json")}).Add(Approval{Key: "web:a"})
		if err == nil || !strings.Contains(err.Error(), "writable by other users") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the empty key is never saved", func(t *testing.T) {
		s := &ApprovalFile{Path: filepath.Join(t.TempDir(), "approvals.json")}
		if err := s.Add(Approval{}); err == nil {
			t.Fatal("saved an approval without a key")
		}
	})
}

func TestSessions(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	t.Run("no session: s lasts for this invocation, and says so", func(t *testing.T) {
		s, _ := NewSessionStore(t.TempDir(), "")
		s.Add(Approval{Key: "web:a"})
		if ok, _ := s.Has("web:a"); !ok {
			t.Fatal("not remembered in the invocation")
		}
		s2, _ := NewSessionStore(t.TempDir(), "")
		if ok, _ := s2.Has("web:a"); ok {
			t.Fatal("remembered by another invocation")
		}
		if !strings.Contains(s.Scope(), "this invocation only") {
			t.Errorf("scope %q", s.Scope())
		}
	})
	t.Run("a named session lasts across processes, in a 0600 file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "sessions")
		a := &SessionFile{Dir: dir, ID: "agent/1", Now: clock}
		if err := a.Add(Approval{Key: "web:a"}); err != nil {
			t.Fatal(err)
		}
		b := &SessionFile{Dir: dir, ID: "agent/1", Now: clock}
		if ok, err := b.Has("web:a"); !ok || err != nil {
			t.Fatalf("Has = %v, %v", ok, err)
		}
		if st, _ := os.Stat(a.Path()); st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", st.Mode().Perm())
		}
		if filepath.Dir(a.Path()) != dir {
			t.Errorf("an id with a slash escaped the directory: %s", a.Path())
		}
	})
	t.Run("a day without use forgets it", func(t *testing.T) {
		dir := t.TempDir()
		a := &SessionFile{Dir: dir, ID: "x", Now: clock}
		a.Add(Approval{Key: "web:a"})
		later := &SessionFile{Dir: dir, ID: "x", Now: func() time.Time { return now.Add(SessionTTL + time.Second) }}
		if ok, _ := later.Has("web:a"); ok {
			t.Fatal("remembered after a day without use")
		}
		if _, err := os.Stat(a.Path()); !errors.Is(err, os.ErrNotExist) {
			t.Error("the expired file was not removed")
		}
	})
	t.Run("use keeps it alive", func(t *testing.T) {
		dir := t.TempDir()
		at := now
		s := &SessionFile{Dir: dir, ID: "x", Now: func() time.Time { return at }}
		s.Add(Approval{Key: "web:a"})
		for range 3 {
			at = at.Add(20 * time.Hour)
			if ok, _ := s.Has("web:a"); !ok {
				t.Fatalf("forgotten at %v though used every 20 hours", at)
			}
		}
	})
	t.Run("end forgets it", func(t *testing.T) {
		dir := t.TempDir()
		s := &SessionFile{Dir: dir, ID: "x", Now: clock}
		s.Add(Approval{Key: "web:a"})
		s.Add(Approval{Key: "web:b"})
		if n, err := s.End(); n != 2 || err != nil {
			t.Fatalf("End = %d, %v", n, err)
		}
		if ok, _ := s.Has("web:a"); ok {
			t.Fatal("remembered after end")
		}
	})
	t.Run("a corrupt session file is an error naming it, and end removes it", func(t *testing.T) {
		dir := t.TempDir()
		s := &SessionFile{Dir: dir, ID: "x", Now: clock}
		os.WriteFile(s.Path(), []byte("garbage"), 0o600)
		var fe *config.FileError
		if _, err := s.Has("web:a"); !errors.As(err, &fe) || !strings.Contains(err.Error(), "guard session end x") {
			t.Fatalf("err = %v", err)
		}
		if _, err := s.End(); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Has("web:a"); ok || err != nil {
			t.Fatalf("after end: %v, %v", ok, err)
		}
	})
	t.Run("a session id with a control character is refused", func(t *testing.T) {
		if _, err := NewSessionStore(t.TempDir(), "a\x1b[2Jb"); err == nil {
			t.Fatal("accepted")
		}
	})
	t.Run("a file holding another session's id is not this session's", func(t *testing.T) {
		dir := t.TempDir()
		s := &SessionFile{Dir: dir, ID: "x", Now: clock}
		os.WriteFile(s.Path(), []byte(`{"version":1,"session":"y","last_used":"2026-03-01T12:00:00Z","rules":[{"key":"web:a"}]}`), 0o600)
		if ok, err := s.Has("web:a"); ok || err == nil {
			t.Fatalf("Has = %v, %v", ok, err)
		}
	})
}

func TestValidate(t *testing.T) {
	ok := Request{Kind: RunCommand, Detail: "ls", Key: "cmd:/w\x00ls"}
	tests := []struct {
		name string
		edit func(r *Request)
		bad  bool
	}{
		{"a good request", func(r *Request) {}, false},
		{"no key is fine", func(r *Request) { r.Key = "" }, false},
		{"unknown kind", func(r *Request) { r.Kind = "run" }, true},
		{"no detail", func(r *Request) { r.Detail = "" }, true},
		{"a write key on a command", func(r *Request) { r.Key = "write:/w" }, true},
		{"a command key on a write", func(r *Request) { r.Kind = WriteFile }, true},
		{"a read-only write", func(r *Request) { r.Kind, r.Key, r.ReadOnly = WriteFile, "", true }, true},
		{"texts not matching targets", func(r *Request) { r.Targets = []string{"a", "b"}; r.Texts = nil; r.Texts = append(r.Texts, nil) }, true},
		{"an unknown rule action", func(r *Request) { r.Rules.Action = "maybe" }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			err := r.Validate()
			if (err != nil) != tc.bad {
				t.Fatalf("Validate = %v, want bad=%v", err, tc.bad)
			}
			if tc.bad {
				// And the engine refuses it.
				d, derr := (&Engine{Mode: config.ModeBypass, SandboxEnforced: true}).Decide(t.Context(), &r)
				if derr == nil || d.Allowed() {
					t.Fatalf("the engine decided an invalid request: %+v", d)
				}
			}
		})
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		name, key, label, wantKey, wantLabel string
	}{
		{"command", mk(CommandKey("/ws", "git push")), "", "cmd:/ws\x00git push", "this exact command in this workspace"},
		{"write", mk(WriteKey("/ws")), "", "write:/ws", "file edits in the workspace"},
		{"delete", mk(DeleteKey("/ws")), "", "delete:/ws", "file deletions in the workspace"},
		{"web, case-folded", mk(WebKey("API.Example.com")), "", "web:api.example.com", "network access to api.example.com"},
		{"mcp", mk(MCPKey("github", "create_issue")), "", "mcp:github:create_issue", "the MCP tool github:create_issue"},
		{"read", mk(ReadKey("/etc/hosts")), "", "read:/etc/hosts", "reading /etc/hosts"},
		{"write inside the roots", mk(FileKey(WriteFile, "/ws", true, false)), "", "write:/ws", "file edits in the workspace"},
		{"write outside the roots: once only", mk(FileKey(WriteFile, "/ws", false, false)), "", "", ""},
		{"sensitive write: once only", mk(FileKey(WriteFile, "/ws", true, true)), "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, label, _ := strings.Cut(tc.key, "|")
			if key != tc.wantKey || label != tc.wantLabel {
				t.Fatalf("key %q label %q, want %q %q", key, label, tc.wantKey, tc.wantLabel)
			}
		})
	}
}

func mk(key, label string) string { return key + "|" + label }

func TestSavePlan(t *testing.T) {
	t.Run("numbered from 1, session made file-safe", func(t *testing.T) {
		ws := t.TempDir()
		for i, want := range []string{"agent_1-1.md", "agent_1-2.md"} {
			p, err := SavePlan(ws, "agent/1", fmt.Sprintf("plan %d", i))
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(p) != want {
				t.Errorf("saved as %s, want %s", filepath.Base(p), want)
			}
			if data, _ := os.ReadFile(p); string(data) != fmt.Sprintf("plan %d\n", i) {
				t.Errorf("content %q", data)
			}
		}
	})
	t.Run("no session", func(t *testing.T) {
		p, err := SavePlan(t.TempDir(), "", "x")
		if err != nil || filepath.Base(p) != "no-session-1.md" {
			t.Fatalf("%s, %v", p, err)
		}
	})
	t.Run("a .guard/plans symlink out of the workspace is refused", func(t *testing.T) {
		ws, outside := t.TempDir(), t.TempDir()
		os.Mkdir(filepath.Join(ws, ".guard"), 0o755)
		os.Symlink(outside, filepath.Join(ws, ".guard", "plans"))
		if _, err := SavePlan(ws, "s", "x"); err == nil {
			t.Fatal("wrote through a symlink out of the workspace")
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Fatalf("wrote %v outside", entries)
		}
	})
	t.Run("a dangling symlink in the way of the next number is not followed", func(t *testing.T) {
		ws, outside := t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(ws, ".guard", "plans"), 0o755)
		os.Symlink(filepath.Join(outside, "victim"), filepath.Join(ws, ".guard", "plans", "s-1.md"))
		p, err := SavePlan(ws, "s", "x")
		if err != nil || filepath.Base(p) != "s-2.md" {
			t.Fatalf("%s, %v", p, err)
		}
		if _, err := os.Stat(filepath.Join(outside, "victim")); err == nil {
			t.Fatal("followed the symlink")
		}
	})
}

func TestFileSafe(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "no-session",
		"abc-1_2.x":             "abc-1_2.x",
		"../../etc":             "_._.._etc",
		"a b/c":                 "a_b_c",
		"é":                     "_",
		strings.Repeat("a", 99): strings.Repeat("a", 64),
	} {
		if got := FileSafe(in); got != want {
			t.Errorf("FileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzApprovalsFile: whatever approvals.json holds, reading it never
// panics, and what it yields is sorted and keyed, or an error naming the
// file.
func FuzzApprovalsFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"rules":[{"key":"web:a","label":"l","added":"2026-01-02T03:04:05Z"}]}`))
	f.Add([]byte(`{"version":1,"rules":[{"key":"cmd:/w\u0000ls"},{"key":"a"}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "approvals.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		list, err := (&ApprovalFile{Path: path}).List()
		if err != nil {
			var fe *config.FileError
			if !errors.As(err, &fe) || fe.File != path {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		for i, a := range list {
			if a.Key == "" || i > 0 && list[i-1].Key > a.Key {
				t.Fatalf("list %+v: empty or unsorted key", list)
			}
		}
	})
}

// BenchmarkDecideSavedRule is a decision that reads approvals.json (10 or
// 1,000 approvals) and the session's file, and appends to the audit log:
// the whole cost of the gate on a remembered command.
func BenchmarkDecideSavedRule(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("approvals=%d", n), func(b *testing.B) {
			w := newWorld(b)
			doc := approvalsDoc{Version: 1}
			for i := range n {
				k, l := CommandKey(w.ws, fmt.Sprintf("make target-%04d", i))
				doc.Rules = append(doc.Rules, Approval{Key: k, Label: l, Added: time.Now().UTC().Truncate(time.Second)})
			}
			data, _ := json.Marshal(doc)
			os.MkdirAll(filepath.Dir(w.saved.Path), 0o700)
			if err := os.WriteFile(w.saved.Path, data, 0o600); err != nil {
				b.Fatal(err)
			}
			e := &Engine{Saved: w.saved, Session: w.session(b, "s1"), Audit: w.log}
			req := cmdRequest(w, fmt.Sprintf("make target-%04d", n/2))
			b.ResetTimer()
			for range b.N {
				d, err := e.Decide(b.Context(), req)
				if err != nil || d.Reason != ReasonSavedRule {
					b.Fatal(d, err)
				}
			}
		})
	}
}

// BenchmarkCheckRuleAllow is the dry run of a request a rule allows: the
// gate's own overhead, with no file touched.
func BenchmarkCheckRuleAllow(b *testing.B) {
	w := newWorld(b)
	e := &Engine{Saved: w.saved, Session: w.session(b, "s1")}
	req := cmdRequest(w, "git status")
	req.Rules = RuleVerdict{Action: "allow", Rule: mustRule(b, "allow", "shell(git *)", "global")}
	b.ResetTimer()
	for range b.N {
		if d, _ := e.Check(b.Context(), req); d.Reason != ReasonRuleAllow {
			b.Fatal(d)
		}
	}
}
