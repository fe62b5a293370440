package prompt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
)

// term is a real pseudo-terminal: the approver gets its slave side, the
// test types into and reads from its master side, as a person would.
type term struct {
	t      *testing.T
	master *os.File
	slave  *os.File
	mu     sync.Mutex
	out    strings.Builder
}

func newTerm(t *testing.T) *term {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	tm := &term{t: t, master: master, slave: slave}
	t.Cleanup(func() { master.Close(); slave.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return tm
}

// terminal is an approver on the pty: each prompt opens the slave anew, as
// guard opens /dev/tty.
func (tm *term) terminal() *Terminal {
	return &Terminal{Open: func() (*os.File, error) {
		return os.OpenFile(tm.slave.Name(), os.O_RDWR|unix.O_NOCTTY, 0)
	}}
}

func (tm *term) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// waitFor waits until the screen shows s n times.
func (tm *term) waitFor(s string, n int) {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(tm.screen(), s) < n {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %q; it shows:\n%s", s, tm.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (tm *term) typeKeys(s string) {
	tm.t.Helper()
	if _, err := tm.master.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

type result struct {
	ans gate.Answer
	err error
}

func (tm *term) approve(tt *Terminal, p gate.Prompt) <-chan result {
	ch := make(chan result, 1)
	go func() {
		a, err := tt.Approve(context.Background(), p)
		ch <- result{a, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the approver never answered")
	}
	return result{}
}

func request() *gate.Request {
	key, label := gate.CommandKey("/ws", "git push origin main")
	return &gate.Request{Tool: "exec", Kind: gate.RunCommand, Detail: "git push origin main", Key: key, KeyLabel: label,
		Targets: []string{"git push origin main"}, Workspace: "/ws",
		Rules: gate.RuleVerdict{Details: []string{"git push origin main: no rule allows it"}}}
}

func allChoices() gate.Prompt {
	return gate.Prompt{Request: request(), Mode: "default", Why: "no rule allows it",
		Choices: []gate.Choice{gate.Once, gate.Session, gate.Always, gate.No}, SessionScope: "session s1"}
}

// TestApproveAnswers types each answer into a real pseudo-terminal.
func TestApproveAnswers(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string // typed at successive "answer>" prompts
		p     gate.Prompt
		want  gate.Answer
		err   error
		shows []string
	}{
		{name: "y", keys: []string{"y\r"}, want: gate.Answer{Choice: gate.Once}},
		{name: "yes", keys: []string{"yes\r"}, want: gate.Answer{Choice: gate.Once}},
		{name: "s", keys: []string{"s\r"}, want: gate.Answer{Choice: gate.Session}, shows: []string{"allow for session s1"}},
		{name: "a", keys: []string{"a\r"}, want: gate.Answer{Choice: gate.Always}, shows: []string{"always allow this exact command in this workspace"}},
		{name: "n", keys: []string{"n\r"}, want: gate.Answer{Choice: gate.No}},
		{name: "n with a reason", keys: []string{"n use the staging branch\r"}, want: gate.Answer{Choice: gate.No, Reason: "use the staging branch"}},
		{name: "n: with a reason", keys: []string{"N: not now\r"}, want: gate.Answer{Choice: gate.No, Reason: "not now"}},
		{name: "Enter alone, then y", keys: []string{"\r", "y\r"}, want: gate.Answer{Choice: gate.Once}, shows: []string{"Please answer y, s, a, n"}},
		{name: "nonsense, then n", keys: []string{"maybe\r", "n\r"}, want: gate.Answer{Choice: gate.No}},
		{name: "'y please' is not a clear yes", keys: []string{"y please\r", "n\r"}, want: gate.Answer{Choice: gate.No}},
		{name: "backspace edits", keys: []string{"a\x7fy\r"}, want: gate.Answer{Choice: gate.Once}},
		{name: "a newline ends the answer too", keys: []string{"y\n"}, want: gate.Answer{Choice: gate.Once}},
		{
			name: "an answer not offered is asked again",
			p:    gate.Prompt{Request: request(), Choices: []gate.Choice{gate.Once, gate.No}},
			keys: []string{"a\r", "y\r"}, want: gate.Answer{Choice: gate.Once},
			shows: []string{"Please answer y, n", "must be asked every time"},
		},
		{name: "Ctrl+C cancels the whole command", keys: []string{"\x03"}, err: gate.ErrCanceled, shows: []string{"^C"}},
		{name: "Ctrl+C after typing cancels", keys: []string{"y\x03"}, err: gate.ErrCanceled},
		{name: "Ctrl+D refuses", keys: []string{"\x04"}, want: gate.Answer{Choice: gate.No, Reason: "no answer (end of input)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTerm(t)
			p := tc.p
			if p.Request == nil {
				p = allChoices()
			}
			ch := tm.approve(tm.terminal(), p)
			for i, k := range tc.keys {
				tm.waitFor("answer> ", i+1)
				tm.typeKeys(k)
			}
			r := wait(t, ch)
			if !errors.Is(r.err, tc.err) || (tc.err == nil && r.ans != tc.want) {
				t.Fatalf("answer %+v, %v; want %+v, %v\nscreen:\n%s", r.ans, r.err, tc.want, tc.err, tm.screen())
			}
			// Echoes may reach the master after the answer: wait for them.
			for _, s := range append([]string{"guard: approval needed", "git push origin main", "no rule allows it", "Ctrl+C cancels the whole command"}, tc.shows...) {
				tm.waitFor(s, 1)
			}
		})
	}
}

// TestApproveLeavesTheTerminalAsItWas: the terminal's modes are restored,
// so the user's shell keeps echo and Ctrl+C.
func TestApproveLeavesTheTerminalAsItWas(t *testing.T) {
	tm := newTerm(t)
	before, err := unix.IoctlGetTermios(int(tm.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	ch := tm.approve(tm.terminal(), allChoices())
	tm.waitFor("answer> ", 1)
	during, _ := unix.IoctlGetTermios(int(tm.slave.Fd()), unix.TCGETS)
	if during.Lflag&unix.ISIG != 0 {
		t.Error("Ctrl+C would be a signal during the prompt, not an answer")
	}
	tm.typeKeys("y\r")
	wait(t, ch)
	after, _ := unix.IoctlGetTermios(int(tm.slave.Fd()), unix.TCGETS)
	if *after != *before {
		t.Fatalf("terminal modes changed:\nbefore %+v\nafter  %+v", before, after)
	}
}

// TestApproveIgnoresTypeahead: keys queued before the prompt appeared (a
// command that typed "y" ahead) do not answer it.
func TestApproveIgnoresTypeahead(t *testing.T) {
	tm := newTerm(t)
	tm.typeKeys("y\r")
	time.Sleep(50 * time.Millisecond) // let the pty deliver it to the slave's input queue
	ch := tm.approve(tm.terminal(), allChoices())
	tm.waitFor("answer> ", 1)
	select {
	case r := <-ch:
		t.Fatalf("answered %+v by keys typed before the prompt", r)
	case <-time.After(100 * time.Millisecond):
	}
	tm.typeKeys("n\r")
	if r := wait(t, ch); r.ans.Choice != gate.No {
		t.Fatalf("answer %+v", r.ans)
	}
}

// TestApproveDiff: a write's diff is coloured and cut to [ui] diff_lines.
func TestApproveDiff(t *testing.T) {
	tm := newTerm(t)
	tt := tm.terminal()
	tt.Color, tt.DiffLines = true, 5
	req := &gate.Request{Kind: gate.WriteFile, Detail: "/ws/main.go", Targets: []string{"/ws/main.go"},
		Diff: "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n-old line\n+new line\n context 1\n context 2\n context 3\n"}
	ch := tm.approve(tt, gate.Prompt{Request: req, Choices: []gate.Choice{gate.Once, gate.No}})
	tm.waitFor("answer> ", 1)
	tm.typeKeys("y\r")
	wait(t, ch)
	screen := tm.screen()
	for _, want := range []string{green + "+new line" + reset, red + "-old line" + reset, cyan + "@@ -1,3 +1,3 @@" + reset,
		"3 more lines of the diff not shown ([ui] diff_lines = 5)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%q", want, screen)
		}
	}
	if strings.Contains(screen, "context 1") {
		t.Error("showed lines past diff_lines")
	}
}

// TestApproveDefaultDiffLines: 120 lines when [ui] diff_lines is not set.
func TestApproveDefaultDiffLines(t *testing.T) {
	var diff strings.Builder
	for i := range 200 {
		diff.WriteString("+line\n")
		_ = i
	}
	lines := (&Terminal{}).diff(diff.String())
	if len(lines) != DefaultDiffLines+1 || !strings.Contains(lines[DefaultDiffLines], "80 more lines") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestApproveEscapesHostileText: escape sequences, carriage returns and
// bidirectional overrides in a request are shown, not obeyed.
func TestApproveEscapesHostileText(t *testing.T) {
	tm := newTerm(t)
	req := request()
	req.Detail = "rm -rf ~ \r\x1b[2K\x1b[1Gls -la   # \u202eevil"
	req.Rules.Details = []string{"segment \x1b]0;title\x07"}
	req.Diff = "+\x1b[8mhidden\x1b[0m"
	ch := tm.approve(tm.terminal(), gate.Prompt{Request: req, Choices: []gate.Choice{gate.Once, gate.No}, Why: "why\x1b[A"})
	tm.waitFor("answer> ", 1)
	tm.typeKeys("n\r")
	wait(t, ch)
	screen := tm.screen()
	for _, bad := range []string{"\x1b[2K", "\x1b[1G", "\u202e", "\x1b]0", "\x07", "\x1b[8m", "\x1b[A", "~ \r"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the prompt passed %q to the terminal", bad)
		}
	}
	for _, want := range []string{`rm -rf ~ \r\x1b[2K\x1b[1Gls -la`, `\u202e`, `\x1b[8mhidden`} {
		if !strings.Contains(screen, want) {
			t.Errorf("the prompt does not show %q visibly:\n%q", want, screen)
		}
	}
}

// TestNoTerminal: with no terminal the approver says so (the gate then
// refuses unless a rule covers the request).
func TestNoTerminal(t *testing.T) {
	tests := []struct {
		name string
		open func() (*os.File, error)
	}{
		{"cannot open /dev/tty", func() (*os.File, error) { return nil, &os.PathError{Op: "open", Path: "/dev/tty", Err: unix.ENXIO} }},
		{"a file, not a terminal", func() (*os.File, error) {
			return os.Create(filepath.Join(t.TempDir(), "not-a-tty"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := &Terminal{Open: tc.open}
			if _, err := tt.Approve(context.Background(), allChoices()); !errors.Is(err, gate.ErrNoApprover) {
				t.Fatalf("Approve: %v, want ErrNoApprover", err)
			}
			if _, err := tt.Ask(context.Background(), Question{Text: "q?"}); !errors.Is(err, gate.ErrNoApprover) {
				t.Fatalf("Ask: %v, want ErrNoApprover", err)
			}
		})
	}
}

// TestApproveThroughTheGate: the terminal approver behind the engine, with
// the answer remembered.
func TestApproveThroughTheGate(t *testing.T) {
	tm := newTerm(t)
	dir := t.TempDir()
	saved := &gate.ApprovalFile{Path: filepath.Join(dir, "approvals.json")}
	e := &gate.Engine{Approver: tm.terminal(), Saved: saved, Session: &gate.InvocationSession{}}
	done := make(chan gate.Decision, 1)
	go func() {
		d, _ := e.Decide(context.Background(), request())
		done <- d
	}()
	tm.waitFor("answer> ", 1)
	tm.typeKeys("a\r")
	d := <-done
	if d.Reason != gate.ReasonUserAlways {
		t.Fatalf("decision %+v", d)
	}
	if ok, _ := saved.Has(request().Key); !ok {
		t.Fatal("not saved")
	}
	// Asked again: remembered, no prompt.
	d, _ = e.Decide(context.Background(), request())
	if d.Reason != gate.ReasonSessionRule || strings.Count(tm.screen(), "answer> ") != 1 {
		t.Fatalf("decision %+v", d)
	}
}

func TestAsk(t *testing.T) {
	tests := []struct {
		name  string
		qs    []Question
		keys  []string
		want  []Reply
		err   error
		shows []string
	}{
		{name: "free answer", qs: []Question{{Text: "Which branch?"}}, keys: []string{"feature/x\r"},
			want: []Reply{{Question: "Which branch?", Answer: "feature/x"}}},
		{name: "an option by number", qs: []Question{{Text: "DB?", Options: []string{"postgres", "sqlite"}}}, keys: []string{"2\r"},
			want: []Reply{{Question: "DB?", Answer: "sqlite", Selected: []string{"sqlite"}}}, shows: []string{"1) postgres", "2) sqlite"}},
		{name: "an option by name", qs: []Question{{Text: "DB?", Options: []string{"postgres", "sqlite"}}}, keys: []string{"Postgres\r"},
			want: []Reply{{Question: "DB?", Answer: "postgres", Selected: []string{"postgres"}}}},
		{name: "a number out of range is text", qs: []Question{{Text: "DB?", Options: []string{"postgres"}}}, keys: []string{"7\r"},
			want: []Reply{{Question: "DB?", Answer: "7"}}},
		{name: "multi-select", qs: []Question{{Text: "Which?", Options: []string{"a", "b", "c"}, Multi: true}}, keys: []string{"1, 3, 1\r"},
			want: []Reply{{Question: "Which?", Answer: "a, c", Selected: []string{"a", "c"}}}, shows: []string{"Choose one or more"}},
		{name: "multi-select with words of one's own", qs: []Question{{Text: "Which?", Options: []string{"a", "b"}, Multi: true}}, keys: []string{"B, something else\r"},
			want: []Reply{{Question: "Which?", Answer: "b, something else", Selected: []string{"b", "something else"}}}},
		{name: "several questions in turn", qs: []Question{{Text: "One?"}, {Text: "Two?", Options: []string{"x", "y"}}}, keys: []string{"first\r", "1\r"},
			want: []Reply{{Question: "One?", Answer: "first"}, {Question: "Two?", Answer: "x", Selected: []string{"x"}}}, shows: []string{"(1 of 2)", "(2 of 2)"}},
		{name: "an empty answer is asked again", qs: []Question{{Text: "Q?"}}, keys: []string{"  \r", "ok\r"},
			want: []Reply{{Question: "Q?", Answer: "ok"}}, shows: []string{"Please type an answer"}},
		{name: "Ctrl+C stops at the question, with the answers so far", qs: []Question{{Text: "One?"}, {Text: "Two?"}}, keys: []string{"first\r", "\x03"},
			want: []Reply{{Question: "One?", Answer: "first"}}, err: gate.ErrCanceled},
		{name: "a plan", qs: []Question{PlanQuestion("# Plan\n1. edit\n2. test")}, keys: []string{"2\r"},
			want: []Reply{{Question: "Approve this plan?", Answer: PlanAcceptEdits, Selected: []string{PlanAcceptEdits}}}, shows: []string{"# Plan", "2. test", "3) No, keep planning"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTerm(t)
			type res struct {
				r   []Reply
				err error
			}
			ch := make(chan res, 1)
			go func() {
				r, err := tm.terminal().Ask(context.Background(), tc.qs...)
				ch <- res{r, err}
			}()
			for i, k := range tc.keys {
				tm.waitFor("answer> ", i+1)
				tm.typeKeys(k)
			}
			var r res
			select {
			case r = <-ch:
			case <-time.After(10 * time.Second):
				t.Fatal("no answer")
			}
			if !errors.Is(r.err, tc.err) || !slices.EqualFunc(r.r, tc.want, func(a, b Reply) bool {
				return a.Question == b.Question && a.Answer == b.Answer && slices.Equal(a.Selected, b.Selected)
			}) {
				t.Fatalf("replies %+v, %v; want %+v, %v\n%s", r.r, r.err, tc.want, tc.err, tm.screen())
			}
			for _, s := range tc.shows {
				tm.waitFor(s, 1)
			}
		})
	}
}

func TestQuestionValidate(t *testing.T) {
	bad := []Question{
		{Text: ""},
		{Text: "  "},
		{Text: "q", Multi: true},
		{Text: "q", Options: []string{"a", ""}},
		{Text: strings.Repeat("q", 3000)},
		{Text: "q", Options: make([]string, MaxOptions+1)},
	}
	for _, q := range bad {
		if q.Validate() == nil {
			t.Errorf("%+v accepted", q)
		}
	}
	if _, err := (&Terminal{}).Ask(context.Background(), make([]Question, MaxQuestions+1)...); err == nil {
		t.Error("more than MaxQuestions accepted")
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("rm -rf ~\r\x1b[2Kls")
	f.Add("\u202eabc\u200b\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := escape(s)
		for _, r := range out {
			if !printable(r) {
				t.Fatalf("escape(%q) = %q holds %U", s, out, r)
			}
		}
		if len(s) > 0 && len(out) == 0 {
			t.Fatalf("escape(%q) hid everything", s)
		}
	})
}

func FuzzParseAnswer(f *testing.F) {
	f.Add("y")
	f.Add("n: because")
	f.Add("A")
	f.Fuzz(func(t *testing.T, line string) {
		p := gate.Prompt{Choices: []gate.Choice{gate.Once, gate.No}}
		a, ok := parseAnswer(line, p)
		if !ok {
			return
		}
		if !p.Offers(a.Choice) {
			t.Fatalf("%q read as %q, which was not offered", line, a.Choice)
		}
		if a.Choice == gate.Once && strings.ToLower(strings.TrimSpace(line)) != "y" && strings.ToLower(strings.TrimSpace(line)) != "yes" &&
			!strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y:") && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "yes:") {
			t.Fatalf("%q read as yes", line)
		}
	})
}

func TestPlanAnswer(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		approved bool
		mode     config.Mode
		feedback string
	}{
		{"carry it out", "1", true, config.ModeDefault, ""},
		{"accept its edits", "2", true, config.ModeAcceptEdits, ""},
		{"by name", "yes, carry it out", true, config.ModeDefault, ""},
		{"keep planning", "3", false, "", ""},
		{"feedback", "also update the docs", false, "", "also update the docs"},
		{"a number out of range is feedback", "4", false, "", "4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := PlanQuestion("plan")
			r, ok := parseReply(q, tc.line)
			if !ok {
				t.Fatal("not a reply")
			}
			approved, mode, feedback := PlanAnswer(r)
			if approved != tc.approved || mode != tc.mode || feedback != tc.feedback {
				t.Fatalf("PlanAnswer = %v %q %q", approved, mode, feedback)
			}
		})
	}
}

// TestApproveSignal: a signal that reaches guard at the prompt (kill, the
// terminal closing) cancels it, and the terminal's modes are put back.
func TestApproveSignal(t *testing.T) {
	tm := newTerm(t)
	before, _ := unix.IoctlGetTermios(int(tm.slave.Fd()), unix.TCGETS)
	ch := tm.approve(tm.terminal(), allChoices())
	tm.waitFor("answer> ", 1)
	if err := unix.Kill(os.Getpid(), unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, ch); !errors.Is(r.err, gate.ErrCanceled) {
		t.Fatalf("answer %+v, %v; want ErrCanceled", r.ans, r.err)
	}
	after, _ := unix.IoctlGetTermios(int(tm.slave.Fd()), unix.TCGETS)
	if *after != *before {
		t.Fatal("terminal modes not restored")
	}
}

// TestApproveContext: the caller's context ends the prompt.
func TestApproveContext(t *testing.T) {
	tm := newTerm(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() {
		_, err := tm.terminal().Approve(ctx, allChoices())
		ch <- err
	}()
	tm.waitFor("answer> ", 1)
	cancel()
	select {
	case err := <-ch:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt outlived its context")
	}
}
