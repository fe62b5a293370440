package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/guard-sh/guard/config"
)

// Limits on the programs guard runs for a decision (the reviewer and the
// hooks). Each is a named bound on what a misbehaving program can cost.
const (
	// DefaultReviewTimeout is how long the reviewer may take (APR-14a).
	DefaultReviewTimeout = 2 * time.Minute
	// DefaultHookTimeout is how long a pre_tool_use hook may take.
	DefaultHookTimeout = 30 * time.Second
	// MaxReviewDiff is the most of a diff a reviewer or hook is sent.
	MaxReviewDiff = 8000
	// maxProgramOutput is the most of a program's stdout guard reads; a
	// verdict is a line.
	maxProgramOutput = 1 << 20
	// maxProgramStderr is how much of a program's stderr guard keeps to
	// explain its failure.
	maxProgramStderr = 2000
	// killGrace is how long guard waits for a killed program's pipes to
	// close (a grandchild holding them open must not hang guard).
	killGrace = 2 * time.Second
)

// RequestJSON is what the reviewer and the hooks read on stdin.
type RequestJSON struct {
	Event     string   `json:"event"` // "review" or "pre_tool_use"
	Tool      string   `json:"tool"`
	Kind      Kind     `json:"kind"`
	Detail    string   `json:"detail"`
	Targets   []string `json:"targets"`
	Diff      string   `json:"diff,omitempty"`
	Workspace string   `json:"workspace"`
	Session   string   `json:"session,omitempty"`
	Mode      string   `json:"mode"`
	// Rules are the rule verdict's per-target lines: why it would ask.
	Rules []string `json:"rules,omitempty"`
	// Environment is [permissions.auto] environment: what the user tells the
	// reviewer about this machine and its work.
	Environment string `json:"environment,omitempty"`
}

func requestJSON(event string, req *Request, mode config.Mode, environment string) []byte {
	diff := req.Diff
	if len(diff) > MaxReviewDiff {
		diff = truncateRunes(diff, MaxReviewDiff) + "\n[diff truncated]"
	}
	targets := req.Targets
	if targets == nil {
		targets = []string{}
	}
	data, err := json.Marshal(RequestJSON{
		Event: event, Tool: req.Tool, Kind: req.Kind, Detail: req.Detail, Targets: targets,
		Diff: diff, Workspace: req.Workspace, Session: req.Session, Mode: string(mode),
		Rules: req.Rules.Details, Environment: environment,
	})
	if err != nil {
		panic(err) // cannot happen: strings and slices of strings always marshal
	}
	return data
}

// truncateRunes cuts s to at most n bytes on a rune boundary.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// programResult is what a program run for a decision did.
type programResult struct {
	stdout []byte
	stderr string
	code   int // exit status; -1 when killed
}

// runProgram runs argv with stdin, in its own process group so that a
// timeout kills everything it started, and keeps a bounded part of its
// output.
func runProgram(ctx context.Context, argv []string, dir string, stdin []byte, timeout time.Duration) (programResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return programResult{}, errors.New("no command configured")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		cmd.Dir = dir
	}
	cmd.Stdin = bytes.NewReader(stdin)
	out := &capped{max: maxProgramOutput}
	errb := &capped{max: maxProgramStderr, keepTail: true}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		return nil
	}
	cmd.WaitDelay = killGrace
	err := cmd.Run()
	if cmd.Process != nil {
		// Whatever it left behind in its group goes too.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := programResult{stdout: out.buf.Bytes(), stderr: strings.TrimSpace(errb.String()), code: cmd.ProcessState.ExitCode()}
	if ctx.Err() == context.DeadlineExceeded {
		return res, fmt.Errorf("%s: no answer within %s", argv[0], timeout)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return res, ctxErr
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return res, fmt.Errorf("%s: %w", argv[0], err)
	}
	if out.over {
		return res, fmt.Errorf("%s: more than %d bytes of output", argv[0], maxProgramOutput)
	}
	return res, nil
}

// capped is a writer that keeps at most max bytes: the first ones, or with
// keepTail the last ones.
type capped struct {
	buf      bytes.Buffer
	max      int
	keepTail bool
	over     bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.keepTail {
		c.buf.Write(p)
		if c.buf.Len() > c.max {
			tail := append([]byte(nil), c.buf.Bytes()[c.buf.Len()-c.max:]...)
			c.buf.Reset()
			c.buf.Write(tail)
		}
		return len(p), nil
	}
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string { return c.buf.String() }

// ReviewVerdict is the reviewer's answer.
type ReviewVerdict struct {
	Allow  bool
	Reason string
}

// CommandReviewer is the reviewer of auto mode (seed APR-14a): the program of
// [permissions.auto] command, given the request as JSON on stdin, answering
// {"decision":"allow"|"deny","reason":"..."} on stdout, bare or inside a ```
// code fence.
type CommandReviewer struct {
	Config config.Reviewer
}

// Review runs the reviewer. Any failure — it cannot start, exits non-zero,
// says something that is not a verdict, or is silent past its timeout — is
// an error, on which the gate asks the user (auto-error).
func (r *CommandReviewer) Review(ctx context.Context, req *Request, mode config.Mode) (ReviewVerdict, error) {
	timeout := r.Config.Timeout
	if timeout <= 0 {
		timeout = DefaultReviewTimeout
	}
	res, err := runProgram(ctx, r.Config.Command, req.Workspace, requestJSON("review", req, mode, r.Config.Environment), timeout)
	if err != nil {
		return ReviewVerdict{}, fmt.Errorf("reviewer %s", failure(err, res))
	}
	if res.code != 0 {
		return ReviewVerdict{}, fmt.Errorf("reviewer %s: exit status %d%s", r.Config.Command[0], res.code, stderrNote(res.stderr))
	}
	v, err := ParseVerdict(res.stdout)
	if err != nil {
		return ReviewVerdict{}, fmt.Errorf("reviewer %s: %w", r.Config.Command[0], err)
	}
	return v, nil
}

func failure(err error, res programResult) string {
	return err.Error() + stderrNote(res.stderr)
}

func stderrNote(stderr string) string {
	if stderr == "" {
		return ""
	}
	if i := strings.LastIndexByte(stderr, '\n'); i >= 0 {
		stderr = stderr[i+1:]
	}
	return " (stderr: " + stderr + ")"
}

// fence is compiled on first use: only a reviewer's answer needs it, and
// compiling it costs every run of guard at start-up otherwise.
var fence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)```")
})

// ParseVerdict reads a reviewer's answer: a JSON object {"decision": "allow"
// or "deny", "reason": ...}, alone or inside ``` code fences. Several fenced
// verdicts must agree; anything else is not a verdict.
func ParseVerdict(out []byte) (ReviewVerdict, error) {
	if v, err := verdictJSON(bytes.TrimSpace(out)); err == nil {
		return v, nil
	}
	var found []ReviewVerdict
	for _, m := range fence().FindAllSubmatch(out, -1) {
		if v, err := verdictJSON(bytes.TrimSpace(m[1])); err == nil {
			found = append(found, v)
		}
	}
	if len(found) == 0 {
		return ReviewVerdict{}, fmt.Errorf("no verdict in its answer (want {\"decision\":\"allow\"|\"deny\",\"reason\":...}): %q", truncateRunes(string(out), 200))
	}
	for _, v := range found[1:] {
		if v.Allow != found[0].Allow {
			return ReviewVerdict{}, errors.New("its answer holds verdicts that disagree")
		}
	}
	return found[0], nil
}

func verdictJSON(b []byte) (ReviewVerdict, error) {
	var v struct {
		Decision *string `json:"decision"`
		Reason   any     `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		return ReviewVerdict{}, err
	}
	if dec.More() {
		return ReviewVerdict{}, errors.New("text after the verdict")
	}
	if v.Decision == nil {
		return ReviewVerdict{}, errors.New("no decision")
	}
	reason := ""
	if s, ok := v.Reason.(string); ok {
		reason = s
	}
	switch strings.ToLower(strings.TrimSpace(*v.Decision)) {
	case "allow":
		return ReviewVerdict{Allow: true, Reason: reason}, nil
	case "deny":
		return ReviewVerdict{Allow: false, Reason: reason}, nil
	}
	return ReviewVerdict{}, fmt.Errorf("decision %q is neither allow nor deny", *v.Decision)
}

// HookVerdict is what the pre_tool_use hooks said together: deny, ask, or
// nothing (an allow from a hook skips nothing, seed text 2).
type HookVerdict struct {
	Action Outcome // Deny, Ask or ""
	Reason string
	Hook   string // which hook, where configured
	Failed bool   // a hook failed; Action is then Ask
}

// CommandHooks runs [[hooks.pre_tool_use]] programs. Each gets the request as
// JSON on stdin and may answer {"decision":"deny"|"ask"|"allow","reason":..}
// on stdout (or exit 2 to deny, with its reason on stderr). Hooks only
// tighten: the strictest answer of all of them counts, and a hook that fails
// (cannot start, another exit status, an answer that is not one, silence
// past its timeout) makes the request ask the user.
type CommandHooks struct {
	Hooks []config.Hook
}

// PreToolUse runs every hook and returns the strictest answer.
func (h *CommandHooks) PreToolUse(ctx context.Context, req *Request, mode config.Mode) HookVerdict {
	var out HookVerdict
	for _, hk := range h.Hooks {
		name := hookName(hk)
		v := runHook(ctx, hk, req, mode)
		v.Hook = name
		switch {
		case v.Action == Deny:
			return v
		case v.Action == Ask && out.Action == "":
			out = v
		}
	}
	return out
}

func hookName(hk config.Hook) string {
	name := strings.Join(hk.Command, " ")
	if hk.From != "" {
		name += " (" + hk.From + ")"
	}
	return name
}

func runHook(ctx context.Context, hk config.Hook, req *Request, mode config.Mode) HookVerdict {
	timeout := hk.Timeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	res, err := runProgram(ctx, hk.Command, req.Workspace, requestJSON("pre_tool_use", req, mode, ""), timeout)
	fail := func(why string) HookVerdict {
		return HookVerdict{Action: Ask, Failed: true, Reason: "the hook failed: " + why}
	}
	switch {
	case err != nil:
		return fail(failure(err, res))
	case res.code == 2:
		reason := res.stderr
		if reason == "" {
			reason = "the hook refused it (exit status 2)"
		}
		return HookVerdict{Action: Deny, Reason: truncateRunes(reason, 500)}
	case res.code != 0:
		return fail(fmt.Sprintf("exit status %d%s", res.code, stderrNote(res.stderr)))
	}
	body := bytes.TrimSpace(res.stdout)
	if len(body) == 0 {
		return HookVerdict{}
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&v); err != nil || dec.More() {
		return fail(fmt.Sprintf("its answer is not {\"decision\":...}: %q", truncateRunes(string(body), 200)))
	}
	switch strings.ToLower(v.Decision) {
	case "deny":
		return HookVerdict{Action: Deny, Reason: v.Reason}
	case "ask":
		return HookVerdict{Action: Ask, Reason: v.Reason}
	case "allow", "":
		return HookVerdict{}
	}
	return fail(fmt.Sprintf("unknown decision %q (want deny, ask or allow)", v.Decision))
}
