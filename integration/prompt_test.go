package integration

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ttyRun runs guard with a pseudo-terminal as its controlling terminal,
// answers the approval prompt with answer when it shows, and returns what
// the terminal showed and the exit status.
func (w *world) ttyRun(t *testing.T, answer string, args ...string) (string, int) {
	t.Helper()
	return w.ttyRunProgram(t, guardBin, answer, args...)
}

// ttyRunProgram is ttyRun for any program.
func (w *world) ttyRunProgram(t *testing.T, program, answer string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir, cmd.Env = w.workspace, w.env
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shown := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(out.String(), s)
	}
	if answer != "" {
		deadline := time.Now().Add(20 * time.Second)
		for !shown("answer> ") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no prompt appeared; the terminal shows:\n%s", out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // typeahead before the prompt is discarded
		io.WriteString(f, answer)
	}
	err = cmd.Wait()
	<-done
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), code
}

// TestExecAsksOnTheTerminal: a command no rule allows is asked about on the
// terminal before anything runs; y runs it once, a remembers it, n refuses.
func TestExecAsksOnTheTerminal(t *testing.T) {
	w := newWorld(t)
	made := filepath.Join(w.workspace, "made")

	// y: it runs, once.
	screen, code := w.ttyRun(t, "y\r", "exec", "-c", "touch made")
	if code != 0 || !exists(made) {
		t.Fatalf("y: exit %d, made=%v\n%s", code, exists(made), screen)
	}
	if !strings.Contains(screen, "touch made") {
		t.Fatalf("the prompt does not show the command:\n%s", screen)
	}
	os.Remove(made)
	// Nothing was remembered: with no terminal it is refused.
	w.guard("exec", "-c", "touch made").expect(t, 77)

	// n: refused, nothing runs, exit 77.
	screen, code = w.ttyRun(t, "n not now\r", "exec", "-c", "touch made")
	if code != 77 || exists(made) {
		t.Fatalf("n: exit %d, made=%v\n%s", code, exists(made), screen)
	}

	// a: runs, and is remembered for the next run, which needs no terminal.
	screen, code = w.ttyRun(t, "a\r", "exec", "-c", "touch made")
	if code != 0 || !exists(made) {
		t.Fatalf("a: exit %d\n%s", code, screen)
	}
	os.Remove(made)
	w.guard("exec", "-c", "touch made").expect(t, 0)
	if !exists(made) {
		t.Fatal("the remembered command did not run")
	}
	r := w.guard("approvals", "list").expect(t, 0)
	if !strings.Contains(r.stdout, "touch made") {
		t.Fatalf("approvals list lacks the command: %s", r)
	}
	// Only that exact command is remembered.
	w.guard("exec", "-c", "touch other").expect(t, 77)

	// Ctrl+C at the prompt cancels the whole command: exit 130.
	screen, code = w.ttyRun(t, "\x03", "exec", "-c", "touch third")
	if code != 130 || exists(filepath.Join(w.workspace, "third")) {
		t.Fatalf("Ctrl+C: exit %d\n%s", code, screen)
	}

	// The audit log has every decision with its reason.
	r = w.guard("audit", "--json").expect(t, 0)
	for _, reason := range []string{"user-once", "user-deny", "user-always", "saved-rule", "no-approver"} {
		if !strings.Contains(r.stdout, `"reason":"`+reason+`"`) {
			t.Errorf("the audit log lacks a %s decision", reason)
		}
	}
}

// TestExecAskRuleAsksEvenInBypass: an ask rule goes to the user in every
// mode; with no terminal it is refused, even in bypass.
func TestExecAskRuleAsksEvenInBypass(t *testing.T) {
	w := newWorld(t)
	w.settings(`[permissions]
ask = ["shell(git push *)"]
`)
	r := w.guard("exec", "--mode", "bypass", "-c", "git push origin main").expect(t, 77)
	if !strings.Contains(r.stderr, "ask rule") {
		t.Fatalf("want the ask rule named: %s", r)
	}
	screen, _ := w.ttyRun(t, "n\r", "exec", "--mode", "bypass", "-c", "git push origin main")
	if !strings.Contains(screen, "git push origin main") {
		t.Fatalf("bypass did not ask:\n%s", screen)
	}
}

// TestHookSandboxApprovalIsNotAskedTwice: with guard hook claude-code
// --sandbox, a command guard asks about is asked by Claude Code; on a yes
// Claude Code runs the rewritten guard exec, which takes that answer (once)
// instead of asking the same person again.
func TestHookSandboxApprovalIsNotAskedTwice(t *testing.T) {
	w := newWorld(t)
	input := `{"session_id":"sess-1","transcript_path":"/dev/null","cwd":"` + w.workspace + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch approved"}}`
	r := w.guardIn(w.workspace, input, "hook", "claude-code", "--sandbox").expect(t, 0)
	if !strings.Contains(r.stdout, `"permissionDecision":"ask"`) || !strings.Contains(r.stdout, "exec --session sess-1 -c 'touch approved'") {
		t.Fatalf("want ask with the command rewritten: %s", r)
	}
	// What Claude Code runs after its user said yes, with no terminal.
	w.guard("exec", "--session", "sess-1", "-c", "touch approved").expect(t, 0)
	if !exists(filepath.Join(w.workspace, "approved")) {
		t.Fatal("the approved command did not run")
	}
	// Once only: the same command again asks again (no terminal: refused).
	w.guard("exec", "--session", "sess-1", "-c", "touch approved").expect(t, 77)
	// Another session, or another command, never had the approval.
	w.guardIn(w.workspace, input, "hook", "claude-code", "--sandbox").expect(t, 0)
	w.guard("exec", "--session", "sess-2", "-c", "touch approved").expect(t, 77)
	w.guard("exec", "--session", "sess-1", "-c", "touch approved; touch more").expect(t, 77)
	// A deny rule still refuses what the agent's user approved.
	w.guardIn(w.workspace, input, "hook", "claude-code", "--sandbox").expect(t, 0)
	w.guard("exec", "--session", "sess-1", "--deny", "shell(touch *)", "-c", "touch approved").expect(t, 77)
}
