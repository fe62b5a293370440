package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/config"
)

// TestReviewer runs real reviewer scripts and checks what the gate makes of
// each answer, and that the audit log holds each decision.
func TestReviewer(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		timeout time.Duration
		// want is the review's result: "allow", "deny", or "error:<text>".
		want   string
		reason string
		// decided is what the engine then decides, the user answering y
		// when the reviewer cannot.
		decided Reason
	}{
		{name: "allow", body: `echo '{"decision":"allow","reason":"only builds"}'`, want: "allow", reason: "only builds", decided: ReasonAutoAllow},
		{name: "deny", body: `echo '{"decision":"deny","reason":"pushes to main"}'`, want: "deny", reason: "pushes to main", decided: ReasonAutoDeny},
		{name: "a verdict in a code fence", body: "printf 'I looked at it.\\n```json\\n{\"decision\": \"deny\", \"reason\": \"curl | sh\"}\\n```\\nDone.\\n'", want: "deny", reason: "curl | sh", decided: ReasonAutoDeny},
		{name: "upper-case decision", body: `echo '{"decision":"ALLOW"}'`, want: "allow", decided: ReasonAutoAllow},
		{name: "garbage", body: `echo 'sure, go ahead'`, want: "error:no verdict", decided: ReasonUserOnce},
		{name: "a decision that is neither", body: `echo '{"decision":"maybe"}'`, want: "error:no verdict", decided: ReasonUserOnce},
		{name: "fenced verdicts that disagree", body: "printf '```\\n{\"decision\":\"allow\"}\\n```\\n```\\n{\"decision\":\"deny\"}\\n```\\n'", want: "error:disagree", decided: ReasonUserOnce},
		{name: "silence", body: `cat >/dev/null`, want: "error:no verdict", decided: ReasonUserOnce},
		{name: "a hang past the timeout", body: `sleep 30`, timeout: 300 * time.Millisecond, want: "error:no answer within 300ms", decided: ReasonUserOnce},
		{name: "a hang in a grandchild holding the pipe", body: `(sleep 30; echo late) & echo '{"decision":"allow"}'; wait`, timeout: 300 * time.Millisecond, want: "error:no answer within", decided: ReasonUserOnce},
		{name: "a crash", body: `echo dying >&2; kill -SEGV $$`, want: "error:exit status -1", decided: ReasonUserOnce},
		{name: "a non-zero exit with a verdict", body: `echo '{"decision":"allow"}'; exit 1`, want: "error:exit status 1", decided: ReasonUserOnce},
		{name: "a reviewer that is not there", body: "", want: "error:no such file", decided: ReasonUserOnce},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			argv := []string{filepath.Join(w.dir, "missing-reviewer")}
			if tc.body != "" {
				argv = []string{script(t, w.dir, "reviewer", tc.body)}
			}
			r := &CommandReviewer{Config: config.Reviewer{Command: argv, Timeout: tc.timeout}}
			req := cmdRequest(w, "make deploy")
			start := time.Now()
			v, err := r.Review(context.Background(), req, config.ModeAuto)
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the review took %v: a timeout did not stop it", time.Since(start))
			}
			switch {
			case strings.HasPrefix(tc.want, "error:"):
				if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error:")) {
					t.Fatalf("Review = %+v, %v; want an error containing %q", v, err, strings.TrimPrefix(tc.want, "error:"))
				}
			case err != nil:
				t.Fatalf("Review: %v", err)
			case v.Allow != (tc.want == "allow") || v.Reason != tc.reason:
				t.Fatalf("Review = %+v, want %s %q", v, tc.want, tc.reason)
			}
			// The same reviewer through the engine, with the audit log.
			ap := &scripted{answers: []Answer{{Choice: Once}}}
			e := &Engine{Mode: config.ModeAuto, Reviewer: r, Approver: ap, Audit: w.log}
			d, err := e.Decide(context.Background(), req)
			if err != nil || d.Reason != tc.decided {
				t.Fatalf("Decide = %s/%s, %v; want %s", d.Outcome, d.Reason, err, tc.decided)
			}
			var reasons []string
			for _, rec := range w.records(t) {
				reasons = append(reasons, rec.Reason)
			}
			want := string(tc.decided)
			if tc.decided == ReasonUserOnce {
				want = "auto-error,user-once"
			}
			if strings.Join(reasons, ",") != want {
				t.Errorf("audit reasons %q, want %s", reasons, want)
			}
		})
	}
}

// TestReviewerInput: the reviewer reads the request as JSON, the diff cut to
// MaxReviewDiff, with [permissions.auto] environment.
func TestReviewerInput(t *testing.T) {
	w := newWorld(t)
	got := filepath.Join(w.dir, "stdin.json")
	rev := script(t, w.dir, "reviewer", `cat > `+got+`; echo '{"decision":"allow"}'`)
	r := &CommandReviewer{Config: config.Reviewer{Command: []string{rev}, Environment: "CI box, no secrets"}}
	req := writeRequest(w, filepath.Join(w.ws, "big.txt"), true, false)
	req.Diff = strings.Repeat("+x\n", 5000)
	if _, err := r.Review(context.Background(), req, config.ModeAuto); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var in RequestJSON
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if in.Event != "review" || in.Kind != WriteFile || in.Detail != req.Detail || in.Workspace != w.ws ||
		in.Environment != "CI box, no secrets" || len(in.Targets) != 1 || in.Mode != "auto" || in.Tool != "gate" {
		t.Errorf("request %+v", in)
	}
	if n := len(strings.TrimSuffix(in.Diff, "\n[diff truncated]")); n != MaxReviewDiff || !strings.HasSuffix(in.Diff, "[diff truncated]") {
		t.Errorf("diff of %d characters sent, want %d and a mark", n, MaxReviewDiff)
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
		allow    bool
	}{
		{"bare", `{"decision":"allow","reason":"x"}`, true, true},
		{"padded", "\n  {\"decision\":\"deny\"}  \n", true, false},
		{"fenced", "```\n{\"decision\":\"allow\"}\n```", true, true},
		{"fenced json", "text\n```json\n{\"decision\":\"deny\"}\n```\nmore", true, false},
		{"two fences that agree", "```\n{\"decision\":\"deny\"}\n```\n```\n{\"decision\":\"deny\",\"reason\":\"r\"}\n```", true, false},
		{"two fences that disagree", "```\n{\"decision\":\"deny\"}\n```\n```\n{\"decision\":\"allow\"}\n```", false, false},
		{"a non-verdict fence and a verdict fence", "```\nls\n```\n```\n{\"decision\":\"allow\"}\n```", true, true},
		{"no decision", `{"reason":"x"}`, false, false},
		{"a null decision", `{"decision":null}`, false, false},
		{"two objects", `{"decision":"allow"}{"decision":"deny"}`, false, false},
		{"a decision that is a number", `{"decision":1}`, false, false},
		{"prose", `allow`, false, false},
		{"unclosed fence", "```\n{\"decision\":\"allow\"}\n", false, false},
		{"an array", `[{"decision":"allow"}]`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseVerdict([]byte(tc.in))
			if (err == nil) != tc.ok || (tc.ok && v.Allow != tc.allow) {
				t.Fatalf("ParseVerdict = %+v, %v; want ok=%v allow=%v", v, err, tc.ok, tc.allow)
			}
		})
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add([]byte(`{"decision":"allow","reason":"x"}`))
	f.Add([]byte("```json\n{\"decision\":\"deny\"}\n```"))
	f.Add([]byte("```\n```"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVerdict(b)
		if err != nil {
			return
		}
		// A verdict must come from a decision written in the text.
		lower := strings.ToLower(string(b))
		if v.Allow && !strings.Contains(lower, "allow") || !v.Allow && !strings.Contains(lower, "deny") {
			t.Fatalf("verdict %+v read from %q", v, b)
		}
	})
}

func TestHooks(t *testing.T) {
	tests := []struct {
		name    string
		bodies  []string
		timeout time.Duration
		want    Outcome
		failed  bool
		reason  string
	}{
		{name: "no opinion", bodies: []string{`cat >/dev/null`}, want: ""},
		{name: "allow is no opinion", bodies: []string{`echo '{"decision":"allow"}'`}, want: ""},
		{name: "deny", bodies: []string{`echo '{"decision":"deny","reason":"no deploys on friday"}'`}, want: Deny, reason: "no deploys on friday"},
		{name: "exit 2 denies with stderr", bodies: []string{`echo blocked by policy >&2; exit 2`}, want: Deny, reason: "blocked by policy"},
		{name: "ask", bodies: []string{`echo '{"decision":"ask","reason":"check"}'`}, want: Ask, reason: "check"},
		{name: "the strictest of several", bodies: []string{`echo '{"decision":"ask"}'`, `echo '{"decision":"allow"}'`, `echo '{"decision":"deny","reason":"second"}'`}, want: Deny, reason: "second"},
		{name: "a failure asks", bodies: []string{`exit 1`}, want: Ask, failed: true},
		{name: "garbage asks", bodies: []string{`echo yes`}, want: Ask, failed: true},
		{name: "an unknown decision asks", bodies: []string{`echo '{"decision":"approve"}'`}, want: Ask, failed: true},
		{name: "a hang asks", bodies: []string{`sleep 30`}, timeout: 200 * time.Millisecond, want: Ask, failed: true},
		{name: "a failure and a deny: deny", bodies: []string{`exit 1`, `exit 2`}, want: Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			var hooks []config.Hook
			for i, b := range tc.bodies {
				hooks = append(hooks, config.Hook{Command: []string{script(t, w.dir, "hook"+string(rune('a'+i)), b)}, Timeout: tc.timeout, From: "settings.toml:3"})
			}
			v := (&CommandHooks{Hooks: hooks}).PreToolUse(context.Background(), cmdRequest(w, "make deploy"), config.ModeDefault)
			if v.Action != tc.want || v.Failed != tc.failed || (tc.reason != "" && v.Reason != tc.reason) {
				t.Fatalf("verdict %+v, want %q failed=%v reason %q", v, tc.want, tc.failed, tc.reason)
			}
			if v.Action != "" && !strings.Contains(v.Hook, "settings.toml:3") {
				t.Errorf("hook %q does not say where it is configured", v.Hook)
			}
		})
	}
}

func TestHookInput(t *testing.T) {
	w := newWorld(t)
	got := filepath.Join(w.dir, "stdin.json")
	h := &CommandHooks{Hooks: []config.Hook{{Command: []string{script(t, w.dir, "hook", `cat > `+got)}}}}
	req := cmdRequest(w, "git push", "git push")
	req.Session = "abc"
	h.PreToolUse(context.Background(), req, config.ModeAcceptEdits)
	var in RequestJSON
	data, _ := os.ReadFile(got)
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if in.Event != "pre_tool_use" || in.Kind != RunCommand || in.Detail != "git push" || in.Session != "abc" || in.Mode != "accept-edits" {
		t.Errorf("hook input %+v", in)
	}
}
