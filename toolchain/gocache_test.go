package toolchain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// session is one go command's conversation with ServeGoCache.
type session struct {
	t    *testing.T
	in   bytes.Buffer
	id   int64
	want []string // the command of each request, in order
}

func (s *session) get(action []byte) {
	s.id++
	fmt.Fprintf(&s.in, `{"ID":%d,"Command":"get","ActionID":%q}`+"\n", s.id, base64.StdEncoding.EncodeToString(action))
}

func (s *session) put(action, body []byte) {
	s.putOutput(action, outputOf(body), body)
}

func (s *session) putOutput(action, output, body []byte) {
	s.id++
	fmt.Fprintf(&s.in, `{"ID":%d,"Command":"put","ActionID":%q,"OutputID":%q,"BodySize":%d}`+"\n", s.id,
		base64.StdEncoding.EncodeToString(action), base64.StdEncoding.EncodeToString(output), len(body))
	if len(body) > 0 {
		fmt.Fprintf(&s.in, "%q\n", base64.StdEncoding.EncodeToString(body))
	}
}

// run serves the session and returns the responses by ID.
func (s *session) run(gc GoCache) map[int64]goCacheResponse {
	s.t.Helper()
	s.id++
	fmt.Fprintf(&s.in, `{"ID":%d,"Command":"close"}`+"\n", s.id)
	var out bytes.Buffer
	if err := ServeGoCache(&s.in, &out, gc); err != nil {
		s.t.Fatal(err)
	}
	resps := map[int64]goCacheResponse{}
	dec := json.NewDecoder(&out)
	for {
		var r goCacheResponse
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			s.t.Fatal(err)
		}
		resps[r.ID] = r
	}
	if first := resps[0]; strings.Join(first.KnownCommands, ",") != "get,put,close" {
		s.t.Fatalf("the first response must announce the commands: %+v", first)
	}
	return resps
}

func actionID(s string) []byte {
	h := sha256.Sum256([]byte("action " + s))
	return h[:]
}

func outputOf(body []byte) []byte {
	h := sha256.Sum256(body)
	return h[:]
}

// tree fingerprints a directory: every file's name and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func TestGoCachePutThenGet(t *testing.T) {
	w := t.TempDir()
	s := &session{t: t}
	body := []byte("compiled package")
	s.put(actionID("a"), body)
	s.get(actionID("a"))
	s.get(actionID("missing"))
	r := s.run(GoCache{Write: w})
	if r[1].Err != "" || !strings.HasPrefix(r[1].DiskPath, w) {
		t.Fatalf("put: %+v", r[1])
	}
	got := r[2]
	if got.Miss || got.Size != int64(len(body)) || !bytes.Equal(got.OutputID, outputOf(body)) {
		t.Fatalf("get after put: %+v", got)
	}
	if b, _ := os.ReadFile(got.DiskPath); !bytes.Equal(b, body) {
		t.Fatalf("the DiskPath holds %q", b)
	}
	if !r[3].Miss {
		t.Fatalf("an unknown action: %+v", r[3])
	}
	// The format is the go command's own: go reads it without guard.
	entry, err := os.ReadFile(fileName(w, actionID("a"), "a"))
	if err != nil || len(entry) != entryLen || !bytes.HasPrefix(entry, []byte("v1 ")) {
		t.Fatalf("the entry file: %q %v", entry, err)
	}
}

func TestGoCacheReadsTheUsersCacheWithoutWritingIt(t *testing.T) {
	user, w := t.TempDir(), t.TempDir()
	// The user's own builds filled their cache.
	s := &session{t: t}
	s.put(actionID("std"), []byte("the standard library"))
	s.put(actionID("old"), []byte("kept"))
	s.run(GoCache{Write: user})
	old := time.Now().Add(-48 * time.Hour)
	for _, f := range []string{fileName(user, actionID("old"), "a"), fileName(user, outputOf([]byte("kept")), "d")} {
		os.Chtimes(f, old, old)
	}
	before := tree(t, user)

	s = &session{t: t}
	s.get(actionID("std"))
	s.get(actionID("old"))
	s.put(actionID("mine"), []byte("built in the sandbox"))
	r := s.run(GoCache{Write: w, Read: []string{user}, Toolchain: "go1.x"})
	for id := int64(1); id <= 2; id++ {
		if r[id].Miss || !strings.HasPrefix(r[id].DiskPath, w) {
			t.Fatalf("get %d: want a hit copied into the workspace's cache, got %+v", id, r[id])
		}
	}
	if after := tree(t, user); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("the user's cache changed")
	}
	if st, _ := os.Stat(fileName(user, actionID("old"), "a")); st.ModTime().After(old.Add(time.Minute)) {
		t.Fatal("the user's entry was touched")
	}
	if _, err := os.Stat(fileName(w, actionID("mine"), "a")); err != nil {
		t.Fatal("the put did not land in the workspace's cache")
	}
	if warm(w, "go1.x") {
		t.Fatal("marked warm after a session that needed the user's cache")
	}
	// The next session finds everything at home: the cache is warm.
	s = &session{t: t}
	s.get(actionID("std"))
	s.get(actionID("mine"))
	r = s.run(GoCache{Write: w, Read: []string{user}, Toolchain: "go1.x"})
	if r[1].Miss || r[2].Miss {
		t.Fatalf("second session: %+v %+v", r[1], r[2])
	}
	if !warm(w, "go1.x") || warm(w, "go1.y") {
		t.Fatal("the warm mark is wrong")
	}
}

func TestGoCacheRefusesWhatIsNotAnEntry(t *testing.T) {
	w, user := t.TempDir(), t.TempDir()
	// Entries of the user's cache that cannot be used: cut short, an output
	// of the wrong size, another action's line.
	good := []byte("body")
	s := &session{t: t}
	for _, a := range []string{"short", "size", "other"} {
		s.put(actionID(a), good)
	}
	s.run(GoCache{Write: user})
	os.WriteFile(fileName(user, actionID("short"), "a"), []byte("v1 "), 0o644)
	e, _ := os.ReadFile(fileName(user, actionID("size"), "a"))
	bigger := bytes.Replace(e, []byte("                   4 "), []byte("                   5 "), 1)
	if bytes.Equal(bigger, e) {
		t.Fatal("the test did not change the entry's size")
	}
	os.WriteFile(fileName(user, actionID("size"), "a"), bigger, 0o644)
	e, _ = os.ReadFile(fileName(user, actionID("other"), "a"))
	os.WriteFile(fileName(user, actionID("other"), "a"), bytes.Replace(e, []byte(fmt.Sprintf("%x", actionID("other"))), []byte(fmt.Sprintf("%x", actionID("x"))), 1), 0o644)

	s = &session{t: t}
	for _, a := range []string{"short", "size", "other"} {
		s.get(actionID(a))
	}
	s.get([]byte("short id"))
	s.putOutput(actionID("lie"), outputOf([]byte("something else")), []byte("body"))
	s.putOutput([]byte("short"), outputOf(good), good)
	r := s.run(GoCache{Write: w, Read: []string{user}})
	for id := int64(1); id <= 3; id++ {
		if !r[id].Miss {
			t.Errorf("get %d of a broken entry: %+v", id, r[id])
		}
	}
	for id := int64(4); id <= 6; id++ {
		if r[id].Err == "" {
			t.Errorf("request %d must fail: %+v", id, r[id])
		}
	}
}

func TestGoCacheTrimsWhatNoBuildUsed(t *testing.T) {
	w := t.TempDir()
	s := &session{t: t}
	s.put(actionID("stale"), []byte("stale"))
	s.put(actionID("fresh"), []byte("fresh"))
	s.run(GoCache{Write: w})
	old := time.Now().Add(-6 * 24 * time.Hour)
	os.Chtimes(fileName(w, actionID("stale"), "a"), old, old)
	os.Chtimes(fileName(w, outputOf([]byte("stale")), "d"), old, old)
	os.WriteFile(filepath.Join(w, "trim.txt"), []byte(fmt.Sprint(time.Now().Add(-48*time.Hour).Unix())), 0o644)
	s = &session{t: t}
	s.run(GoCache{Write: w})
	if _, err := os.Stat(fileName(w, actionID("stale"), "a")); err == nil {
		t.Fatal("an entry unused for six days survived the trim")
	}
	if _, err := os.Stat(fileName(w, actionID("fresh"), "a")); err != nil {
		t.Fatal("a fresh entry was trimmed")
	}
}

// FuzzServeGoCache: any stream of requests is answered or refused, never
// a panic, and nothing is written outside the workspace's cache.
func FuzzServeGoCache(f *testing.F) {
	f.Add(`{"ID":1,"Command":"get","ActionID":"` + base64.StdEncoding.EncodeToString(actionID("a")) + `"}`)
	f.Add(`{"ID":1,"Command":"put","ActionID":"AAAA","OutputID":"AAAA","BodySize":3}` + "\n\"YWJj\"")
	f.Add(`{"ID":1,"Command":"put","ActionID":"` + base64.StdEncoding.EncodeToString(actionID("a")) + `","OutputID":"` + base64.StdEncoding.EncodeToString(outputOf([]byte("abc"))) + `","BodySize":3}` + "\n\"YWJj\"")
	f.Add(`{"ID":1,"Command":"frobnicate"}{"Command":"close"}`)
	f.Fuzz(func(t *testing.T, in string) {
		root := t.TempDir()
		w := filepath.Join(root, "cache")
		os.Mkdir(w, 0o755)
		ServeGoCache(strings.NewReader(in), io.Discard, GoCache{Write: w, Read: []string{filepath.Join(root, "user")}})
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 {
			t.Fatalf("wrote outside the cache: %v", entries)
		}
	})
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(fmt.Sprintf("v1 %x %x %20d %20d\n", actionID("a"), outputOf(nil), 0, 1)))
	f.Add([]byte(fmt.Sprintf("v1 %x %x %20d %20d\n", actionID("a"), outputOf(nil), -1, 1)))
	f.Add([]byte("v1 \n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, ok := parseEntry(b, actionID("a")); ok && (len(e.output) != hashSize || e.size < 0) {
			t.Fatalf("accepted %q as %+v", b, e)
		}
	})
}

// TestWarmMarkPlanted: the workspace's cache is the sandboxed command's to
// write, and guard reads the warm mark outside the sandbox before the next
// command: a named pipe there does not hang it, and a link to a file that
// says the right thing does not count.
func TestWarmMarkPlanted(t *testing.T) {
	w := t.TempDir()
	mark := filepath.Join(w, warmFile)
	if err := syscall.Mkfifo(mark, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { done <- warm(w, "go1.x") }()
	select {
	case got := <-done:
		if got {
			t.Fatal("a named pipe is a warm mark")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the warm mark hangs on a named pipe")
	}
	os.Remove(mark)
	elsewhere := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(elsewhere, []byte("go1.x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, mark); err != nil {
		t.Fatal(err)
	}
	if warm(w, "go1.x") {
		t.Fatal("a link is a warm mark")
	}
}
