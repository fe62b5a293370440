package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/prompt"
	"github.com/guard-sh/guard/rule"
)

// exitCanceled is Ctrl+C at one of guard's prompts: the whole command is
// canceled and nothing runs (128 + SIGINT, as a shell reports it).
const exitCanceled = 130

// Environment variables of the gate's commands.
const (
	// envNoTTY set to anything but "" or "0" makes guard never ask on the
	// terminal: whatever would ask is refused, as with no terminal. It can
	// only make guard stricter.
	envNoTTY = "GUARD_NO_TTY"
	// envUnattended marks an unattended run (guard exec --unattended sets
	// it for the command): guard ask and guard plan submit answer that no
	// one can be asked.
	envUnattended = "GUARD_UNATTENDED"
)

// Texts of seed APR-40 and APR-41, which agents recognize.
const (
	textUnattended  = "this run is unattended: no one can answer; decide yourself and say what you assumed"
	textNoTerminal  = "interactive input is not available; proceed with your best judgement"
	textPlanNoOne   = "no one can review the plan here (%s): end your turn with the plan as your answer"
	maxPlanSize     = 1 << 20
	maxQuestionFile = 1 << 20
	auditPoll       = 250 * time.Millisecond
)

func gateCommands() []command {
	return []command{
		{name: "approvals", summary: "list, revoke or clear remembered (\"always\") approvals", run: runApprovals},
		{name: "audit", summary: "show the audit log of decisions", run: runAudit},
		{name: "ask", summary: "ask the user a question on the terminal", run: runAsk},
		{name: "plan", summary: "submit a plan for the user's approval", run: runPlan},
		{name: "session", summary: "end a session, forgetting its \"this session\" approvals", run: runSession},
	}
}

// on reports whether a boolean environment variable is set.
func on(name string) bool {
	v := os.Getenv(name)
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// guardPaths is where guard's files are, for commands that need no
// workspace (approvals, audit, session).
func (a *app) guardPaths() (config.Paths, int) {
	o, err := config.OptionsFromEnv(os.Getenv)
	if err != nil {
		a.errorf("%v", err)
		return config.Paths{}, exitConfig
	}
	return config.DefaultPaths(o), exitOK
}

// terminal is the approver and question prompter: /dev/tty, or nothing when
// GUARD_NO_TTY is set.
func (a *app) terminal(s *config.Settings) *prompt.Terminal {
	t := &prompt.Terminal{Color: os.Getenv("NO_COLOR") == ""}
	if s != nil {
		t.DiffLines = s.UI.DiffLines
	}
	if on(envNoTTY) {
		t.Open = func() (*os.File, error) { return nil, errors.New(envNoTTY + " is set") }
	}
	return t
}

// newEngine is the gate for check, gate and exec (wired by their commands):
// the settings' mode, auto-approved commands, reviewer and hooks; the saved
// approvals, the session's, the audit log; the terminal approver.
// sandboxEnforced says the action will run under an enforced sandbox (bypass
// allows only then) and sandboxMissing what is missing when it is not.
func (a *app) newEngine(s *config.Settings, session string, sandboxEnforced bool, sandboxMissing string) (*gate.Engine, error) {
	sessions, err := gate.NewSessionStore(s.Paths.SessionsDir, session)
	if err != nil {
		return nil, fmt.Errorf("--session: %w", err)
	}
	e := &gate.Engine{
		Mode:            s.Mode,
		SandboxEnforced: sandboxEnforced,
		SandboxMissing:  sandboxMissing,
		Approver:        a.terminal(s),
		Saved:           &gate.ApprovalFile{Path: s.Paths.ApprovalsFile},
		Session:         sessions,
		Audit:           &audit.Log{Path: s.Paths.AuditFile},
	}
	if s.DisableBypass {
		e.SandboxEnforced, e.SandboxMissing = false, "managed settings disable bypass"
	}
	if len(s.AutoApproveCommands) > 0 {
		e.AutoApprove = rule.NewSet(s.AutoApproveCommands, s.RuleEnv())
	}
	if s.Reviewer != nil {
		e.Reviewer = &gate.CommandReviewer{Config: *s.Reviewer}
	}
	if len(s.Hooks) > 0 {
		e.Hooks = &gate.CommandHooks{Hooks: s.Hooks}
	}
	return e, nil
}

// decisionStatus prints a decision's notes and refusal, and returns the exit
// status of the full gate: 0 allowed, 77 refused, 78 a store guard cannot
// use, 130 canceled at the prompt.
func (a *app) decisionStatus(d gate.Decision, err error) int {
	for _, n := range d.Notes {
		a.warnf("%s", n)
	}
	var fe *config.FileError
	switch {
	case errors.As(err, &fe):
		a.errorf("%v", fe)
		return exitConfig
	case errors.Is(err, gate.ErrCanceled):
		a.errorf("%s", d.Message)
		return exitCanceled
	case err != nil:
		a.errorf("%s", d.Message)
		return exitRefused
	case d.Outcome == gate.Allow:
		return exitOK
	}
	a.errorf("%s", d.Message)
	return exitRefused
}

// ---- guard approvals ----

const approvalsHelp = `
Usage: guard approvals list [--json] | revoke KEY | clear

Remembered ("always") approvals, kept in $XDG_CONFIG_HOME/guard/approvals.json.
A key names what an approval covers:
  cmd:WORKSPACE\x00COMMAND   this exact command in this workspace
  write:WORKSPACE           file edits in the workspace
  delete:WORKSPACE          file deletions in the workspace
  read:PATH                 reading this path
  web:HOST                  network access to this host
  mcp:SERVER:TOOL           this MCP tool

'list' shows each key escaped as Go writes strings (the NUL of a command
key is \x00); 'revoke' takes a key so written, or as it is.
`

func runApprovals(a *app, args []string) int {
	return a.subcommand("approvals", args, map[string]func(*app, []string) int{
		"list":   approvalsList,
		"revoke": approvalsRevoke,
		"clear":  approvalsClear,
	}, approvalsHelp)
}

func (a *app) approvalStore() (*gate.ApprovalFile, int) {
	p, code := a.guardPaths()
	if code != exitOK {
		return nil, code
	}
	return &gate.ApprovalFile{Path: p.ApprovalsFile}, exitOK
}

// storeStatus reports a store's error: 78 for a file guard cannot use.
func (a *app) storeStatus(err error) int {
	a.errorf("%v", err)
	var fe *config.FileError
	if errors.As(err, &fe) {
		return exitConfig
	}
	return 1
}

// displayKey writes a key so that it can be read and typed back: escaped as
// a Go string, without the quotes.
func displayKey(k string) string {
	q := strconv.Quote(k)
	return q[1 : len(q)-1]
}

func approvalsList(a *app, args []string) int {
	fs := a.flagSet("approvals list", "approvals list [--json]", "")
	asJSON := fs.Bool("json", false, "print the approvals as JSON")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return a.usageError("approvals list", "unexpected argument %q", fs.Arg(0))
	}
	s, code := a.approvalStore()
	if code != exitOK {
		return code
	}
	list, err := s.List()
	if err != nil {
		return a.storeStatus(err)
	}
	if *asJSON {
		if list == nil {
			list = []gate.Approval{}
		}
		out, _ := json.MarshalIndent(list, "", "  ")
		fmt.Fprintf(a.stdout, "%s\n", out)
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stdout, "no saved approvals (%s)\n", s.Path)
		return exitOK
	}
	for _, ap := range list {
		label := ap.Label
		if label != "" {
			label = "  (" + displayKey(label) + ")"
		}
		fmt.Fprintf(a.stdout, "%s  %s%s\n", ap.Added.Local().Format("2006-01-02 15:04"), displayKey(ap.Key), label)
	}
	return exitOK
}

func approvalsRevoke(a *app, args []string) int {
	fs := a.flagSet("approvals revoke", "approvals revoke KEY", "KEY as 'guard approvals list' shows it.")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageError("approvals revoke", "want one KEY (see 'guard approvals list')")
	}
	s, code := a.approvalStore()
	if code != exitOK {
		return code
	}
	arg := fs.Arg(0)
	// The escaped form first (what list shows), then the key as typed.
	keys := []string{arg}
	if k, err := strconv.Unquote(`"` + arg + `"`); err == nil && k != arg {
		keys = []string{k, arg}
	}
	for _, k := range keys {
		ok, err := s.Revoke(k)
		if err != nil {
			return a.storeStatus(err)
		}
		if ok {
			fmt.Fprintf(a.stdout, "revoked %s\n", displayKey(k))
			return exitOK
		}
	}
	a.errorf("no saved approval has the key %s; 'guard approvals list' shows them", displayKey(arg))
	return 1
}

func approvalsClear(a *app, args []string) int {
	fs := a.flagSet("approvals clear", "approvals clear", "Forgets every saved approval.")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return a.usageError("approvals clear", "unexpected argument %q", fs.Arg(0))
	}
	s, code := a.approvalStore()
	if code != exitOK {
		return code
	}
	n, err := s.Clear()
	if err != nil {
		return a.storeStatus(err)
	}
	fmt.Fprintf(a.stdout, "cleared %d saved approval%s\n", n, plural(n))
	return exitOK
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ---- guard audit ----

func runAudit(a *app, args []string) int {
	fs := a.flagSet("audit", "audit [--follow] [--json]",
		"Shows the audit log ($XDG_STATE_HOME/guard/audit.jsonl): one line per decision, oldest first.")
	follow := fs.BoolP("follow", "f", false, "keep showing decisions as they are made, until interrupted")
	asJSON := fs.Bool("json", false, "print the log's JSON lines as they are")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		return a.usageError("audit", "unexpected argument %q", fs.Arg(0))
	}
	p, code := a.guardPaths()
	if code != exitOK {
		return code
	}
	log := &audit.Log{Path: p.AuditFile}
	header := !*asJSON
	show := func(e audit.Entry) error {
		if e.Err != nil {
			a.warnf("%v", e.Err)
			return nil
		}
		if *asJSON {
			_, err := fmt.Fprintf(a.stdout, "%s\n", e.Raw)
			return err
		}
		if header {
			fmt.Fprintln(a.stdout, audit.Header())
			header = false
		}
		_, err := fmt.Fprintln(a.stdout, audit.Format(e.Record))
		return err
	}
	if *follow {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := log.Follow(ctx, auditPoll, show); err != nil {
			a.errorf("%v", err)
			return 1
		}
		return exitOK
	}
	err := log.Read(show)
	if errors.Is(err, audit.ErrNoLog) {
		a.errorf("%v (%s)", err, p.AuditFile)
		return exitOK
	}
	if err != nil {
		a.errorf("%v", err)
		return 1
	}
	return exitOK
}

// ---- guard ask ----

func runAsk(a *app, args []string) int {
	fs := a.flagSet("ask", "ask QUESTION [--option X]... [--multi] | ask --file QUESTIONS.json", `
Asks the user on the terminal and prints the answer on stdout (for a
multi-select question, one choice per line). --file asks up to 8 questions
in turn: a JSON list of {"question", "options", "multi_select"}; the answers
are printed as JSON: {"answers":[{"question","answer","selected"}]}.

Unattended (--unattended or GUARD_UNATTENDED) or with no terminal it exits 77
with a line that tells the agent to decide by itself; Ctrl+C exits 130.`)
	options := fs.StringArray("option", nil, "an option the user may choose (repeatable)")
	multi := fs.Bool("multi", false, "let the user choose several options")
	file := fs.String("file", "", "ask the questions in this JSON file (- for stdin)")
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	unattended := fs.Bool("unattended", false, "this is an unattended run: no one can answer")
	if done, code := a.parse(fs, args); done {
		return code
	}
	var qs []prompt.Question
	switch {
	case *file != "" && (fs.NArg() != 0 || len(*options) > 0 || *multi):
		return a.usageError("ask", "--file asks the file's questions: give no QUESTION, --option or --multi with it")
	case *file != "":
		var err error
		if qs, err = a.readQuestions(*file); err != nil {
			return a.usageError("ask", "%s: %v", *file, err)
		}
	case fs.NArg() != 1:
		return a.usageError("ask", "want one QUESTION (quote it), or --file")
	default:
		qs = []prompt.Question{{Text: fs.Arg(0), Options: *options, Multi: *multi}}
	}
	for i, q := range qs {
		if err := q.Validate(); err != nil {
			if len(qs) > 1 {
				return a.usageError("ask", "question %d: %v", i+1, err)
			}
			return a.usageError("ask", "%v", err)
		}
	}
	if *unattended || on(envUnattended) {
		a.errorf("%s", textUnattended)
		return exitRefused
	}
	replies, err := a.terminal(nil).Ask(context.Background(), qs...)
	switch {
	case errors.Is(err, gate.ErrNoApprover):
		a.errorf("%s", textNoTerminal)
		return exitRefused
	case errors.Is(err, gate.ErrCanceled):
		a.errorf("the user canceled the question (Ctrl+C)")
		return exitCanceled
	case err != nil:
		a.errorf("%v", err)
		return exitRefused
	}
	switch {
	case *file != "":
		out, _ := json.Marshal(struct {
			Answers []prompt.Reply `json:"answers"`
		}{replies})
		fmt.Fprintf(a.stdout, "%s\n", out)
	case *asJSON:
		out, _ := json.Marshal(replies[0])
		fmt.Fprintf(a.stdout, "%s\n", out)
	case qs[0].Multi:
		for _, s := range replies[0].Selected {
			fmt.Fprintln(a.stdout, s)
		}
	default:
		fmt.Fprintln(a.stdout, replies[0].Answer)
	}
	return exitOK
}

// readQuestions reads a questions file: a JSON list of questions, or
// {"questions": [...]}.
func (a *app) readQuestions(name string) ([]prompt.Question, error) {
	data, err := a.readInput(name, maxQuestionFile)
	if err != nil {
		return nil, err
	}
	var qs []prompt.Question
	if err := json.Unmarshal(data, &qs); err != nil {
		var doc struct {
			Questions []prompt.Question `json:"questions"`
		}
		if err2 := json.Unmarshal(data, &doc); err2 != nil || doc.Questions == nil {
			return nil, fmt.Errorf("want a JSON list of {\"question\", \"options\", \"multi_select\"}: %v", err)
		}
		qs = doc.Questions
	}
	switch {
	case len(qs) == 0:
		return nil, errors.New("no questions")
	case len(qs) > prompt.MaxQuestions:
		return nil, fmt.Errorf("%d questions; at most %d at once", len(qs), prompt.MaxQuestions)
	}
	return qs, nil
}

// readInput reads a file, or stdin for "-", of at most limit bytes.
func (a *app) readInput(name string, limit int64) ([]byte, error) {
	var r io.Reader = a.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, unwrapPathErr(err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ---- guard plan ----

const planHelp = `
Usage: guard plan submit FILE [--session ID] [--workspace DIR]

Asks the user on the terminal to approve the plan in FILE (- for stdin)
while the workspace is in plan mode. The answers:
  1) Yes, carry it out                               the mode becomes default
  2) Yes, and accept its file edits without asking   the mode becomes accept-edits
  3) No, keep planning                               exit 77
Anything else the user types is feedback, printed on stdout (exit 77).
An approved plan is saved as .guard/plans/<session>-<n>.md in the workspace.
`

func runPlan(a *app, args []string) int {
	return a.subcommand("plan", args, map[string]func(*app, []string) int{"submit": planSubmit}, planHelp)
}

func planSubmit(a *app, args []string) int {
	fs := a.flagSet("plan submit", "plan submit FILE [--session ID] [--workspace DIR]", planHelp)
	var c commonFlags
	c.registerFiles(fs)
	fs.StringVar(&c.session, "session", "", "the session the plan belongs to (default $GUARD_SESSION)")
	unattended := fs.Bool("unattended", false, "this is an unattended run: no one can review")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageError("plan submit", "want one FILE holding the plan (- for stdin)")
	}
	plan, err := a.readInput(fs.Arg(0), maxPlanSize)
	if err != nil {
		return a.usageError("plan submit", "%s: %v", fs.Arg(0), err)
	}
	if strings.TrimSpace(string(plan)) == "" {
		return a.usageError("plan submit", "%s: the plan is empty", fs.Arg(0))
	}
	session := c.sessionID()
	if err := gate.ValidSessionID(session); err != nil {
		return a.usageError("plan submit", "--session: %v", err)
	}
	s, code := a.loadSettings(&c, config.Flags{})
	if code != exitOK {
		return code
	}
	// APR-41: submitting a plan ends planning, so there must be planning
	// to end; and no one may be there to review it.
	if s.Mode != config.ModePlan {
		a.errorf("planning is not on here: the mode is %s (%s); there is no plan to approve: carry on", s.Mode, modeOrigin(s))
		return 1
	}
	switch {
	case *unattended || on(envUnattended):
		a.errorf(textPlanNoOne, "this run is unattended")
		return exitRefused
	}
	replies, err := a.terminal(s).Ask(context.Background(), prompt.PlanQuestion(string(plan)))
	switch {
	case errors.Is(err, gate.ErrNoApprover):
		a.errorf(textPlanNoOne, "no terminal")
		return exitRefused
	case errors.Is(err, gate.ErrCanceled):
		a.errorf("the user canceled the review of the plan (Ctrl+C); keep planning")
		return exitCanceled
	case err != nil:
		a.errorf("%v", err)
		return exitRefused
	}
	approved, mode, feedback := prompt.PlanAnswer(replies[0])
	if !approved {
		if feedback != "" {
			fmt.Fprintf(a.stdout, "The user did not approve the plan, and says:\n%s\n", feedback)
			a.errorf("plan not approved: revise it with the user's feedback and submit it again")
		} else {
			fmt.Fprintln(a.stdout, "The user did not approve the plan: keep planning.")
			a.errorf("plan not approved: keep planning")
		}
		return exitRefused
	}
	if s.ModeFloor != "" && !mode.AtLeastAsStrict(s.ModeFloor) {
		a.warnf("managed settings do not allow %s here: the mode becomes %s", mode, s.ModeFloor)
		mode = s.ModeFloor
	}
	path, err := gate.SavePlan(s.Paths.Workspace, session, string(plan))
	if err != nil {
		a.errorf("the plan was approved, but %v", err)
		return 1
	}
	// Leaving planning: the mode is the workspace's own setting.
	if _, err := config.SetMode(s.Paths.WorkspaceFile, mode, workspaceHeader(s.Paths.Workspace)); err != nil {
		a.errorf("the plan was approved and saved in %s, but setting the mode to %s failed: %v; run 'guard mode %s'", path, mode, err, mode)
		return exitConfig
	}
	fmt.Fprintf(a.stdout, "The user approved the plan (saved in %s). The mode is now %s: carry it out.\n", path, mode)
	return exitOK
}

// ---- guard session ----

const sessionHelp = `
Usage: guard session end [ID]

Forgets the "this session" approvals of session ID (default $GUARD_SESSION).
A session's approvals also end after a day without use.
`

func runSession(a *app, args []string) int {
	return a.subcommand("session", args, map[string]func(*app, []string) int{"end": sessionEnd}, sessionHelp)
}

func sessionEnd(a *app, args []string) int {
	fs := a.flagSet("session end", "session end [ID]", sessionHelp)
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return a.usageError("session end", "want at most one session ID")
	}
	id := os.Getenv("GUARD_SESSION")
	if fs.NArg() == 1 {
		id = fs.Arg(0)
	}
	if id == "" {
		return a.usageError("session end", "which session? give its ID, or set GUARD_SESSION")
	}
	if err := gate.ValidSessionID(id); err != nil {
		return a.usageError("session end", "%v", err)
	}
	p, code := a.guardPaths()
	if code != exitOK {
		return code
	}
	n, err := (&gate.SessionFile{Dir: p.SessionsDir, ID: id}).End()
	if err != nil {
		return a.storeStatus(err)
	}
	fmt.Fprintf(a.stdout, "ended session %s: forgot %d approval%s\n", id, n, plural(n))
	return exitOK
}
