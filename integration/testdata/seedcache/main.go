// Command seedcache is a GOCACHEPROG for the tests: it copies what the go
// command finds in a warm build cache (SEED_FROM, read only) into the
// cache it fills (GOCACHE), so that a test gets a small, warm cache of its
// own, in the go command's own format, without compiling the standard
// library (half a minute on two cores).
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type request struct {
	ID       int64
	Command  string
	ActionID []byte
	OutputID []byte
	BodySize int64
}

type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

func main() {
	to, from := os.Getenv("GOCACHE"), os.Getenv("SEED_FROM")
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(response{KnownCommands: []string{"get", "put", "close"}})
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			return
		}
		resp := response{ID: req.ID}
		switch req.Command {
		case "get":
			if !lookup(to, req.ActionID, &resp) {
				if lookup(from, req.ActionID, &resp) {
					copyEntry(from, to, req.ActionID, resp.OutputID)
					lookup(to, req.ActionID, &resp)
				} else {
					resp.Miss = true
				}
			}
		case "put":
			var body []byte
			if req.BodySize > 0 {
				dec.Decode(&body)
			}
			out := name(to, req.OutputID, "d")
			write(out, body)
			write(name(to, req.ActionID, "a"), []byte(fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, len(body), time.Now().UnixNano())))
			resp.DiskPath = out
		case "close":
			enc.Encode(resp)
			return
		}
		enc.Encode(resp)
	}
}

func name(dir string, id []byte, suffix string) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-"+suffix)
}

func lookup(dir string, action []byte, resp *response) bool {
	b, err := os.ReadFile(name(dir, action, "a"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 {
		return false
	}
	out, err := hex.DecodeString(f[2])
	if err != nil {
		return false
	}
	var size int64
	fmt.Sscan(f[3], &size)
	st, err := os.Stat(name(dir, out, "d"))
	if err != nil || st.Size() != size {
		return false
	}
	now := time.Now()
	resp.OutputID, resp.Size, resp.Time, resp.DiskPath = out, size, &now, name(dir, out, "d")
	return true
}

func copyEntry(from, to string, action, output []byte) {
	for _, f := range []string{name(from, action, "a"), name(from, output, "d")} {
		src, err := os.Open(f)
		if err != nil {
			return
		}
		b, _ := io.ReadAll(src)
		src.Close()
		rel, _ := filepath.Rel(from, f)
		write(filepath.Join(to, rel), b)
	}
}

func write(file string, b []byte) {
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, b, 0o644)
}
