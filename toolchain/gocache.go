package toolchain

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GoCache is what [ServeGoCache] serves.
type GoCache struct {
	// Write is the workspace's own cache (GOCACHE), which it reads and
	// writes.
	Write string
	// Read are the user's own caches, which it reads after Write and never
	// writes: what it finds there it copies into Write.
	Read []string
	// Toolchain identifies the go command guard found ([GoToolchain]): a
	// session that needed nothing from Read marks Write warm for it, and
	// guard then lets go use Write alone.
	Toolchain string
}

// ServeGoCache is Go's build cache inside the sandbox, as a GOCACHEPROG
// (Go 1.24): the go command asks it for what it built before and gives it
// what it builds. It looks in the workspace's own cache and then in the
// user's, copying what it finds there into the workspace's (so that a new
// workspace starts with what the user's own builds left, and the next
// builds find it at home); it writes only the workspace's. Both are
// directories in the go command's own format, so that go can use the
// workspace's without GOCACHEPROG: once a session needed nothing from the
// user's cache, guard stops setting GOCACHEPROG for this toolchain (each
// request costs a round trip, which go makes one at a time).
//
// The protocol is cmd/go/internal/cacheprog's: JSON requests on r, one a
// line, a "put" followed by its body as a base64 JSON string; JSON
// responses on w.
func ServeGoCache(r io.Reader, w io.Writer, gc GoCache) error {
	if !filepath.IsAbs(gc.Write) {
		return fmt.Errorf("go-cache: the cache directory %q is not absolute (GOCACHE)", gc.Write)
	}
	c := &goCache{write: gc.Write, toolchain: gc.Toolchain}
	for _, d := range gc.Read {
		if filepath.IsAbs(d) && d != gc.Write {
			c.read = append(c.read, d)
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	respond := func(resp goCacheResponse) error {
		if err := enc.Encode(resp); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := respond(goCacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	for {
		var req goCacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("go-cache: reading a request: %w", err)
		}
		var resp goCacheResponse
		switch req.Command {
		case "get":
			resp = c.get(req.ActionID)
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					return fmt.Errorf("go-cache: reading a body: %w", err)
				}
			}
			resp = c.put(req.ActionID, req.OutputID, body)
		case "close":
			c.close()
			resp.ID = req.ID
			return respond(resp)
		default:
			resp.Err = fmt.Sprintf("unknown command %q", req.Command)
		}
		resp.ID = req.ID
		if err := respond(resp); err != nil {
			return err
		}
	}
}

// goCacheRequest and goCacheResponse are cacheprog.Request and Response.
type goCacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type goCacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

type goCache struct {
	write     string
	read      []string
	toolchain string
	// fromRead counts the entries found in the user's caches only.
	fromRead int
}

// warmFile marks a workspace's Go cache as holding what its builds need:
// it names the toolchain (see GoToolchain).
const warmFile = "guard-warm"

// warmFor says for how long a warm mark holds: then guard lets the go
// command look in the user's cache again, for what the workspace's builds
// have come to need since.
const warmFor = 24 * time.Hour

// close marks the cache warm when this session found everything at home,
// and trims it.
func (c *goCache) close() {
	mark := filepath.Join(c.write, warmFile)
	if c.fromRead == 0 && c.toolchain != "" {
		writeAtomic(mark, []byte(c.toolchain+"\n"))
	} else {
		os.Remove(mark)
	}
	c.trim()
}

// warm reports whether the workspace's Go cache dir is marked warm for the
// toolchain.
func warm(dir, toolchain string) bool {
	if toolchain == "" {
		return false
	}
	// The directory is the sandboxed command's to write, and guard reads
	// the mark outside the sandbox, before the next command: a named pipe
	// there must not hang it, nor a link lead it elsewhere.
	f, err := os.OpenFile(filepath.Join(dir, warmFile), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > 4096 || time.Since(st.ModTime()) > warmFor {
		return false
	}
	b, err := io.ReadAll(f)
	return err == nil && strings.TrimSpace(string(b)) == toolchain
}

// The go command's cache format (cmd/go/internal/cache): an action's entry
// is <dir>/<first two hex digits>/<hex>-a, holding one line
// "v1 <action> <output> <size, 20 wide> <time in ns, 20 wide>"; the output
// is <dir>/<first two hex digits>/<hex>-d.
const (
	hashSize     = 32
	entryLen     = 2 + 1 + 2*hashSize + 1 + 2*hashSize + 1 + 20 + 1 + 20 + 1
	usedInterval = time.Hour      // touch a used entry at most this often
	trimInterval = 24 * time.Hour // look for old entries at most this often
	trimLimit    = 5 * 24 * time.Hour
)

func fileName(dir string, id []byte, suffix string) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-"+suffix)
}

// entry is an action's cache entry.
type entry struct {
	output []byte
	size   int64
	time   time.Time
}

// readEntry reads an action's entry from dir; ok false when there is none
// usable.
func readEntry(dir string, action []byte) (entry, bool) {
	b, err := os.ReadFile(fileName(dir, action, "a"))
	if err != nil {
		return entry{}, false
	}
	return parseEntry(b, action)
}

// parseEntry reads an entry file's line.
func parseEntry(b, action []byte) (entry, bool) {
	if len(b) != entryLen || !bytes.HasPrefix(b, []byte("v1 ")) || b[entryLen-1] != '\n' {
		return entry{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[1] != hex.EncodeToString(action) {
		return entry{}, false
	}
	out, err := hex.DecodeString(f[2])
	if err != nil || len(out) != hashSize {
		return entry{}, false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	ns, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return entry{}, false
	}
	return entry{output: out, size: size, time: time.Unix(0, ns)}, true
}

func (c *goCache) get(action []byte) goCacheResponse {
	if len(action) != hashSize {
		return goCacheResponse{Err: "an action ID must be 32 bytes"}
	}
	for i, dir := range append([]string{c.write}, c.read...) {
		e, ok := readEntry(dir, action)
		if !ok {
			continue
		}
		out := fileName(dir, e.output, "d")
		st, err := os.Stat(out)
		if err != nil || st.Size() != e.size {
			continue // half written by a build outside, or trimmed
		}
		if i == 0 {
			touch(fileName(dir, action, "a"))
			touch(out)
		} else {
			// Copied home: the next build finds it there, without this
			// program. On failure (a full disk) the user's copy serves.
			c.fromRead++
			if copied, err := c.copyHome(dir, action, e); err == nil {
				out = copied
			}
		}
		t := e.time
		return goCacheResponse{OutputID: e.output, Size: e.size, Time: &t, DiskPath: out}
	}
	return goCacheResponse{Miss: true}
}

// copyHome copies an entry and its output from the user's cache dir into
// the workspace's, and returns the copied output's path.
func (c *goCache) copyHome(dir string, action []byte, e entry) (string, error) {
	out := fileName(c.write, e.output, "d")
	if st, err := os.Stat(out); err != nil || st.Size() != e.size {
		if err := copyAtomic(fileName(dir, e.output, "d"), out); err != nil {
			return "", err
		}
	}
	if err := copyAtomic(fileName(dir, action, "a"), fileName(c.write, action, "a")); err != nil {
		return "", err
	}
	return out, nil
}

// copyAtomic copies a file through a temporary one and a rename (the
// kernel copies, or shares the blocks where the file system can).
func copyAtomic(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// touch marks a file used, as the go command does, so that trimming keeps
// it.
func touch(file string) {
	if st, err := os.Stat(file); err == nil && time.Since(st.ModTime()) > usedInterval {
		now := time.Now()
		os.Chtimes(file, now, now)
	}
}

func (c *goCache) put(action, output, body []byte) goCacheResponse {
	if len(action) != hashSize || len(output) != hashSize {
		return goCacheResponse{Err: "action and output IDs must be 32 bytes"}
	}
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], output) {
		return goCacheResponse{Err: "the body does not match its output ID"}
	}
	out := fileName(c.write, output, "d")
	if st, err := os.Stat(out); err != nil || st.Size() != int64(len(body)) {
		if err := writeAtomic(out, body); err != nil {
			return goCacheResponse{Err: err.Error()}
		}
	}
	line := fmt.Sprintf("v1 %x %x %20d %20d\n", action, output, len(body), time.Now().UnixNano())
	if err := writeAtomic(fileName(c.write, action, "a"), []byte(line)); err != nil {
		return goCacheResponse{Err: err.Error()}
	}
	return goCacheResponse{DiskPath: out}
}

// writeAtomic writes a file through a temporary one and a rename, so that
// a reader never sees half of it.
func writeAtomic(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// trim removes, once a day, what no build used for five days, as the go
// command does to its own cache (which it cannot do through GOCACHEPROG).
func (c *goCache) trim() {
	mark := filepath.Join(c.write, "trim.txt")
	if b, err := os.ReadFile(mark); err == nil {
		if sec, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && time.Since(time.Unix(sec, 0)) < trimInterval {
			return
		}
	}
	cutoff := time.Now().Add(-trimLimit)
	for i := 0; i < 256; i++ {
		sub := filepath.Join(c.write, fmt.Sprintf("%02x", i))
		entries, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, "-a") && !strings.HasSuffix(name, "-d") && !strings.HasPrefix(name, ".tmp-") {
				continue
			}
			if info, err := e.Info(); err == nil && info.Mode().Type()&fs.ModeType == 0 && info.ModTime().Before(cutoff) {
				os.Remove(filepath.Join(sub, name))
			}
		}
	}
	writeAtomic(mark, []byte(strconv.FormatInt(time.Now().Unix(), 10)))
}
