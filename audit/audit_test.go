package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as a guard process appending records.
func TestMain(m *testing.M) {
	if path := os.Getenv("AUDIT_HELPER_LOG"); path != "" {
		l := &Log{Path: path}
		n, _ := strconv.Atoi(os.Getenv("AUDIT_HELPER_N"))
		for i := range n {
			if err := l.Append(Record{Kind: "run_command", Detail: strings.Repeat("x", 3000) + strconv.Itoa(i), Decision: "allow", Reason: "rule-allow"}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func read(t *testing.T, l *Log) []Entry {
	t.Helper()
	var out []Entry
	if err := l.Read(func(e Entry) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppend(t *testing.T) {
	t.Run("one line per record, 0600 in a 0700 directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state", "guard")
		l := &Log{Path: filepath.Join(dir, "audit.jsonl")}
		at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		recs := []Record{
			{Time: at, Workspace: "/ws", Session: "s", Mode: "default", Tool: "exec", Kind: "run_command", Detail: "git status", Targets: []string{"git status"},
				Decision: "allow", Reason: "rule-allow", Rule: "shell(git *)", Source: "global"},
			{Time: at, Kind: "run_command", Detail: "make", Decision: "allow", Reason: "user-once", WaitedMS: 1500},
		}
		for _, r := range recs {
			if err := l.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		got := read(t, l)
		if len(got) != 2 || got[0].Err != nil || got[1].Err != nil {
			t.Fatalf("entries %+v", got)
		}
		r := got[0].Record
		if r.Workspace != "/ws" || r.Session != "s" || r.Mode != "default" || r.Tool != "exec" || r.Rule != "shell(git *)" ||
			r.Source != "global" || !r.Time.Equal(at) || r.PID != os.Getpid() || len(r.Targets) != 1 {
			t.Errorf("record %+v", r)
		}
		if got[1].Record.WaitedMS != 1500 {
			t.Errorf("waited %d", got[1].Record.WaitedMS)
		}
		if st, _ := os.Stat(l.Path); st.Mode().Perm() != 0o600 {
			t.Errorf("log mode %v", st.Mode().Perm())
		}
		if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %v", st.Mode().Perm())
		}
		data, _ := os.ReadFile(l.Path)
		if strings.Count(string(data), "\n") != 2 {
			t.Errorf("not one line per record:\n%s", data)
		}
	})
	t.Run("long fields are cut and marked", func(t *testing.T) {
		l := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
		targets := make([]string, MaxTargets+10)
		for i := range targets {
			targets[i] = strings.Repeat("é", MaxDetail)
		}
		l.Append(Record{Kind: "run_command", Detail: strings.Repeat("a", 10*MaxDetail), Targets: targets, Decision: "deny", Reason: "rule-deny"})
		r := read(t, l)[0].Record
		if len(r.Detail) > MaxDetail || !strings.HasSuffix(r.Detail, "…") || !r.Truncated {
			t.Errorf("detail of %d bytes, truncated=%v", len(r.Detail), r.Truncated)
		}
		if len(r.Targets) != MaxTargets+1 || r.Targets[MaxTargets] != "... 10 more" {
			t.Errorf("%d targets, last %q", len(r.Targets), r.Targets[len(r.Targets)-1])
		}
		for _, tg := range r.Targets[:MaxTargets] {
			if len(tg) > MaxDetail || !strings.HasSuffix(tg, "…") {
				t.Fatalf("target of %d bytes", len(tg))
			}
		}
	})
	t.Run("a symlink in place of the log is not followed", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		os.WriteFile(victim, []byte("keep\n"), 0o600)
		l := &Log{Path: filepath.Join(dir, "audit.jsonl")}
		os.Symlink(victim, l.Path)
		if err := l.Append(Record{Kind: "k", Decision: "allow", Reason: "r"}); err == nil {
			t.Fatal("appended through a symlink")
		}
		if data, _ := os.ReadFile(victim); string(data) != "keep\n" {
			t.Fatalf("victim changed: %q", data)
		}
	})
}

// TestConcurrentAppendAndRotation: many processes append at once across
// rotations; every line in every file is a whole record.
func TestConcurrentAppendAndRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const procs, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "AUDIT_HELPER_LOG="+path, "AUDIT_HELPER_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Without rotation (the helpers use MaxSize): every record is there.
	l := &Log{Path: path}
	entries := read(t, l)
	if len(entries) != procs*each {
		t.Fatalf("%d records, want %d", len(entries), procs*each)
	}
	for _, e := range entries {
		if e.Err != nil {
			t.Fatal(e.Err)
		}
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	l := &Log{Path: filepath.Join(dir, "audit.jsonl"), MaxSize: 2000}
	for i := range 60 {
		if err := l.Append(Record{Kind: "run_command", Detail: fmt.Sprintf("cmd %03d", i), Decision: "allow", Reason: "rule-allow"}); err != nil {
			t.Fatal(err)
		}
	}
	files := l.Files()
	if len(files) != Keep+1 {
		t.Fatalf("files %q, want the log and %d rotated", files, Keep)
	}
	for _, f := range files {
		st, _ := os.Stat(f)
		if st.Size() > 2000 {
			t.Errorf("%s is %d bytes, past the limit", f, st.Size())
		}
	}
	entries := read(t, l)
	last := entries[len(entries)-1].Record.Detail
	if last != "cmd 059" {
		t.Errorf("last record %q", last)
	}
	// Oldest first, and in order.
	prev := -1
	for _, e := range entries {
		n, _ := strconv.Atoi(strings.TrimPrefix(e.Record.Detail, "cmd "))
		if n <= prev {
			t.Fatalf("out of order: %d after %d", n, prev)
		}
		prev = n
	}
}

func TestReadReportsBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	os.WriteFile(path, []byte(`{"kind":"k","decision":"allow","reason":"r"}`+"\nnot json\n{}\n"+`{"kind":"k","decision":"deny","reason":"r"}`), 0o600)
	entries := read(t, &Log{Path: path})
	if len(entries) != 4 {
		t.Fatalf("%d entries", len(entries))
	}
	for i, wantErr := range []bool{false, true, true, true} {
		if (entries[i].Err != nil) != wantErr {
			t.Errorf("line %d: err %v, want error=%v", i+1, entries[i].Err, wantErr)
		}
	}
	if !strings.Contains(entries[3].Err.Error(), "incomplete last line") {
		t.Errorf("last line: %v", entries[3].Err)
	}
	if err := (&Log{Path: filepath.Join(t.TempDir(), "none")}).Read(func(Entry) error { return nil }); !errors.Is(err, ErrNoLog) {
		t.Errorf("missing log: %v", err)
	}
}

func TestFollow(t *testing.T) {
	dir := t.TempDir()
	l := &Log{Path: filepath.Join(dir, "audit.jsonl"), MaxSize: 600}
	l.Append(Record{Kind: "k", Detail: "before", Decision: "allow", Reason: "r"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- l.Follow(ctx, 10*time.Millisecond, func(e Entry) error {
			if e.Err != nil {
				return e.Err
			}
			got <- e.Record.Detail
			return nil
		})
	}()
	want := []string{"before"}
	if d := <-got; d != "before" {
		t.Fatalf("first %q", d)
	}
	// Enough to rotate a few times (MaxSize 600).
	for i := range 12 {
		d := fmt.Sprintf("after %02d", i)
		want = append(want, d)
		l.Append(Record{Kind: "k", Detail: d, Decision: "allow", Reason: "r"})
		select {
		case g := <-got:
			if g != d {
				t.Fatalf("followed %q, want %q", g, d)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("did not see %q", d)
		}
	}
	if len(l.Files()) < 2 {
		t.Fatal("the log never rotated: the test proves nothing about rotation")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFormatEscapes(t *testing.T) {
	line := Format(Record{Time: time.Now(), Kind: "run_command", Detail: "echo \x1b[2J\rgotcha", Decision: "deny", Reason: "user-deny", Rule: "shell(x)", Source: "global", WaitedMS: 2500})
	if strings.ContainsAny(line, "\x1b\r\n") {
		t.Fatalf("format let a control character through: %q", line)
	}
	for _, want := range []string{"deny", "user-deny", `\x1b[2J`, "shell(x) (global)", "waited 2.5s"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}

// FuzzRead: whatever the log holds, reading it never panics, and every
// line is either a record with a decision and a reason or an error.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"kind":"k","decision":"allow","reason":"r"}` + "\n"))
	f.Add([]byte("garbage\n{}\n{\"decision\":\"deny\""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "audit.jsonl")
		os.WriteFile(path, data, 0o600)
		n := 0
		err := (&Log{Path: path}).Read(func(e Entry) error {
			n++
			if e.Err == nil && (e.Record.Decision == "" || e.Record.Reason == "") {
				t.Fatalf("line %d accepted without a decision or reason: %q", e.Line, e.Raw)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(string(data), "\n"); n < lines {
			t.Fatalf("%d entries for %d lines", n, lines)
		}
	})
}

// BenchmarkAppend is the cost of auditing one decision.
func BenchmarkAppend(b *testing.B) {
	l := &Log{Path: filepath.Join(b.TempDir(), "audit.jsonl")}
	rec := Record{Workspace: "/home/u/proj", Mode: "default", Tool: "exec", Kind: "run_command", Detail: "git status && git diff --stat",
		Targets: []string{"git status", "git diff --stat"}, Decision: "allow", Reason: "rule-allow", Rule: "shell(git *)", Source: "global"}
	for range b.N {
		if err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}
