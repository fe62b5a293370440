package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/guard-sh/guard/gate"
)

// handoffTTL is how long an approval given at an agent's own prompt waits
// for the command it approved. Claude Code runs the command right after its
// user says yes; an approval left over from a "no" must not linger.
const handoffTTL = 5 * time.Minute

// handoff carries one approval from guard hook claude-code --sandbox to the
// guard exec it rewrote the command into. When guard's rules say a command
// asks, the hook answers "ask", Claude Code asks its user, and on a yes runs
// `guard exec --session ID -c CMD`; without the handoff guard exec would ask
// the same person again (or, with no terminal, refuse). The hook records
// the exact (session, workspace, command); guard exec takes it once, in
// place of the terminal's answer, and only where the gate would ask the
// user: deny rules still refuse. The records live in guard's state
// directory, which sandboxed commands cannot write.
type handoff struct {
	dir string
	now func() time.Time
}

type handoffRecord struct {
	Session   string    `json:"session"`
	Workspace string    `json:"workspace"`
	Command   string    `json:"command"`
	Expires   time.Time `json:"expires"`
}

func newHandoff(stateDir string) handoff {
	return handoff{dir: filepath.Join(stateDir, "handoff"), now: time.Now}
}

func (h handoff) file(session, workspace, command string) string {
	sum := sha256.Sum256([]byte(session + "\x00" + workspace + "\x00" + command))
	return filepath.Join(h.dir, hex.EncodeToString(sum[:]))
}

// put records that the user approved command at the agent's prompt.
func (h handoff) put(session, workspace, command string) error {
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(handoffRecord{session, workspace, command, h.now().Add(handoffTTL)})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(h.dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	h.sweep()
	return os.Rename(f.Name(), h.file(session, workspace, command))
}

// take consumes the record of command, if there is a live one: true once.
func (h handoff) take(session, workspace, command string) bool {
	name := h.file(session, workspace, command)
	b, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	// Removing it first makes the approval single-use even between two
	// guard exec racing for it: only one remove succeeds.
	if os.Remove(name) != nil {
		return false
	}
	var r handoffRecord
	if json.Unmarshal(b, &r) != nil {
		return false
	}
	return r.Session == session && r.Workspace == workspace && r.Command == command && h.now().Before(r.Expires)
}

// sweep removes expired records, so that approvals nobody used do not pile up.
func (h handoff) sweep() {
	entries, err := os.ReadDir(h.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(h.dir, e.Name())
		b, err := os.ReadFile(p)
		var r handoffRecord
		if err != nil || json.Unmarshal(b, &r) != nil || !h.now().Before(r.Expires) {
			os.Remove(p)
		}
	}
}

// handoffApprover answers a command's prompt with the approval the agent's
// user gave, when there is one, and asks the terminal otherwise.
type handoffApprover struct {
	inner              gate.Approver
	h                  handoff
	session, workspace string
}

func (x *handoffApprover) Approve(ctx context.Context, p gate.Prompt) (gate.Answer, error) {
	if p.Request != nil && p.Request.Kind == gate.RunCommand && x.session != "" &&
		x.h.take(x.session, x.workspace, p.Request.Detail) {
		return gate.Answer{Choice: gate.Once, Reason: "approved at the agent's own prompt"}, nil
	}
	if x.inner == nil {
		return gate.Answer{}, gate.ErrNoApprover
	}
	return x.inner.Approve(ctx, p)
}
