package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/shellpolicy"
	"github.com/spf13/pflag"
)

func checkCommands() []command {
	return []command{
		{name: "check", summary: "dry run: the verdict for a command, a path, a URL or an MCP tool; never prompts, never runs", run: runCheck},
		{name: "gate", summary: "the full gate for an action another program performs: asks, remembers, audits (exit 0 or 77)", run: runGate},
	}
}

const checkMore = `
Kinds and targets:
  shell 'COMMAND'      a shell command, judged segment by segment
  read PATH            reading a file or directory
  write PATH           writing (creating, changing) a file
  delete PATH          deleting a file
  fetch URL            network access to the URL's host (also: web HOST)
  mcp SERVER:TOOL      an MCP tool

Exit status: 0 allow, 3 ask, 4 deny (64 usage, 78 configuration).`

const gateMore = `
Kinds and targets as for 'guard check'. With --json-input, the request is read
from standard input as {"kind": "write", "target": "src/a.go", "diff": "..."}:
the diff is shown at the prompt.

Exit status: 0 approved, 77 refused, 130 canceled at the prompt (64 usage, 78
configuration).`

// actionFlags are the flags check and gate share.
type actionFlags struct {
	common     commonFlags
	json       bool
	noSandbox  bool
	tool       string
	jsonInput  bool
	unattended bool
	permits    []string
}

func (f *actionFlags) register(fsName string, a *app, usage, more string) *pflag.FlagSet {
	fs := a.flagSet(fsName, usage, more)
	f.common.register(fs)
	fs.BoolVar(&f.json, "json", false, "print the verdict as JSON")
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "judge as for a command run without the sandbox (bypass then falls back to default)")
	fs.BoolVar(&f.unattended, "unattended", false, "judge as an unattended run: only its permissions and the deny rules decide")
	fs.StringArrayVar(&f.permits, "permit", nil, "an unattended run's permission (a rule; repeatable)")
	return fs
}

// checkTarget is one request built from the command line.
type checkTarget struct {
	req   *gate.Request
	shell *shellpolicy.Verdict
	path  *pathpolicy.Decision
}

// build judges KIND TARGET. A target that is not of its kind's form is a
// usage error.
func (j *judge) build(tool, kind, target string, sandboxed bool) (*checkTarget, error) {
	switch kind {
	case "shell":
		dialect := ""
		if sandboxed {
			dialect = shellDialect(defaultShell())
		}
		req, v := j.shellRequest(tool, target, nil, dialect)
		return &checkTarget{req: req, shell: v}, nil
	case "read", "write", "delete":
		req, d := j.pathRequest(tool, rule.Kind(kind), target)
		return &checkTarget{req: req, path: &d}, nil
	case "fetch", "web":
		req, err := j.webRequest(tool, target)
		if err != nil {
			return nil, err
		}
		return &checkTarget{req: req}, nil
	case "mcp":
		req, err := j.mcpRequest(tool, target)
		if err != nil {
			return nil, err
		}
		return &checkTarget{req: req}, nil
	}
	return nil, fmt.Errorf("unknown kind %q (want shell, read, write, delete, fetch or mcp)", kind)
}

func runCheck(a *app, args []string) int {
	var f actionFlags
	fs := f.register("check", a, "check [flags] KIND TARGET", checkMore)
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 2 {
		return a.usageError("check", "want KIND TARGET, got %d arguments", fs.NArg())
	}
	kind, target := fs.Arg(0), fs.Arg(1)
	s, code := a.loadSettings(&f.common, config.Flags{Permit: f.permits})
	if s == nil {
		return code
	}
	j, code := a.newJudge(s, f.unattended || len(f.permits) > 0)
	if j == nil {
		return code
	}
	// A shell command would run under the sandbox; a path, a host or a
	// tool is acted on by another program, outside it.
	sandboxed := kind == "shell" && !f.noSandbox
	enforced, missing := false, "the action runs outside guard's sandbox"
	if sandboxed {
		enforced, missing = a.sandboxEnforced(s)
	}
	ct, err := j.build("check", kind, target, sandboxed)
	if err != nil {
		return a.usageError("check", "%v", err)
	}
	e, err := a.newEngine(s, f.common.sessionID(), enforced, missing)
	if err != nil {
		return a.usageError("check", "%v", err)
	}
	d, err := e.Check(context.Background(), ct.req)
	if err != nil {
		// A store guard cannot read (exit 78), or a request it cannot judge.
		return a.decisionStatus(d, err)
	}
	if f.json {
		a.printCheckJSON(a.stdout, d, ct)
	} else {
		a.printCheck(a.stdout, d, ct)
	}
	return d.CheckExitCode()
}

// checkJSON is check --json: the contract's shape, plus the path detail for
// path kinds.
type checkJSON struct {
	Decision string                       `json:"decision"`
	Reason   string                       `json:"reason"`
	Rule     string                       `json:"rule,omitempty"`
	Source   string                       `json:"source,omitempty"`
	Where    string                       `json:"where,omitempty"`
	Mode     config.Mode                  `json:"mode"`
	Message  string                       `json:"message"`
	Notes    []string                     `json:"notes,omitempty"`
	Segments []shellpolicy.SegmentVerdict `json:"segments,omitempty"`
	Path     *pathpolicy.Decision         `json:"path,omitempty"`
	Targets  []string                     `json:"targets,omitempty"`
}

func decisionJSON(d gate.Decision, ct *checkTarget) checkJSON {
	out := checkJSON{
		Decision: string(d.Outcome),
		Reason:   string(d.Reason),
		Mode:     d.Mode,
		Message:  d.Message,
		Notes:    d.Notes,
		Source:   d.Source,
	}
	if d.Rule != nil {
		out.Rule, out.Source, out.Where = d.Rule.String(), string(d.Rule.Source), d.Rule.Where()
	}
	switch {
	case ct.shell != nil:
		out.Segments = ct.shell.Segments
	case ct.path != nil:
		out.Path = ct.path
	default:
		out.Targets = ct.req.Targets
	}
	return out
}

func (a *app) printCheckJSON(w io.Writer, d gate.Decision, ct *checkTarget) {
	b, err := json.Marshal(decisionJSON(d, ct))
	if err != nil {
		a.errorf("cannot print the verdict: %v", err) // cannot happen: plain data
		return
	}
	fmt.Fprintf(w, "%s\n", b)
}

func (a *app) printCheck(w io.Writer, d gate.Decision, ct *checkTarget) {
	fmt.Fprintf(w, "%s (%s, mode %s): %s\n", d.Outcome, d.Reason, d.Mode, d.Message)
	for _, n := range d.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	switch {
	case ct.shell != nil:
		for _, sv := range ct.shell.Segments {
			line := fmt.Sprintf("  %-5s %s  [%s", sv.Decision, safeText(sv.Command), sv.Reason)
			if sv.Rule != nil {
				line += fmt.Sprintf(": %s from %s, %s match", sv.Rule, sv.Rule.Where(), sv.Match)
			}
			line += "]"
			if sv.Detail != "" && sv.Decision != rule.Allow {
				line += " " + safeText(sv.Detail)
			}
			fmt.Fprintln(w, line)
		}
		for _, p := range ct.shell.Problems {
			fmt.Fprintf(w, "  problem: %v\n", p)
		}
	case ct.path != nil:
		pd := ct.path
		fmt.Fprintf(w, "  %s %s: %s [%s]\n", pd.Op, safeText(pd.Path), pd.Decision, pd.Reason)
		if pd.Canonical != "" && pd.Canonical != pd.Absolute {
			fmt.Fprintf(w, "  canonical: %s\n", safeText(pd.Canonical))
		}
		if pd.Rule != "" {
			fmt.Fprintf(w, "  rule: %s from %s, %s match on the %s path\n", pd.Rule, pd.Where, pd.Match, pd.MatchedOn)
		}
		if pd.Why != "" {
			fmt.Fprintf(w, "  why: %s\n", safeText(pd.Why))
		}
	default:
		for _, t := range ct.req.Targets {
			fmt.Fprintf(w, "  target: %s\n", safeText(t))
		}
	}
}

// gateInput is guard gate --json-input.
type gateInput struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
	Diff   string `json:"diff"`
	Tool   string `json:"tool"`
}

// maxGateInput bounds --json-input: a diff a person can review.
const maxGateInput = 16 << 20

func runGate(a *app, args []string) int {
	var f actionFlags
	fs := f.register("gate", a, "gate [flags] KIND TARGET | gate --json-input < request.json", gateMore)
	fs.BoolVar(&f.jsonInput, "json-input", false, `read {"kind","target","diff"} from standard input`)
	fs.StringVar(&f.tool, "tool", "gate", "the name of the program asking, shown at the prompt and in the audit log")
	if done, code := a.parse(fs, args); done {
		return code
	}
	var in gateInput
	switch {
	case f.jsonInput && fs.NArg() == 0:
		b, err := a.readInput("-", maxGateInput)
		if err != nil {
			return a.usageError("gate", "--json-input: %v", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return a.usageError("gate", "--json-input: not a request: %v", err)
		}
		if in.Kind == "" || in.Target == "" {
			return a.usageError("gate", `--json-input: want {"kind": ..., "target": ...}`)
		}
	case !f.jsonInput && fs.NArg() == 2:
		in.Kind, in.Target = fs.Arg(0), fs.Arg(1)
	default:
		return a.usageError("gate", "want KIND TARGET, or --json-input with no arguments")
	}
	tool := f.tool
	if in.Tool != "" {
		tool = in.Tool
	}
	s, code := a.loadSettings(&f.common, config.Flags{Permit: f.permits})
	if s == nil {
		return code
	}
	j, code := a.newJudge(s, f.unattended || len(f.permits) > 0)
	if j == nil {
		return code
	}
	// guard gate approves what another program does, outside any sandbox
	// of guard's: bypass never applies here.
	ct, err := j.build(tool, in.Kind, in.Target, false)
	if err != nil {
		return a.usageError("gate", "%v", err)
	}
	ct.req.Diff = in.Diff
	e, err := a.newEngine(s, f.common.sessionID(), false, "the action runs outside guard's sandbox")
	if err != nil {
		return a.usageError("gate", "%v", err)
	}
	d, err := e.Decide(context.Background(), ct.req)
	if f.json {
		a.printCheckJSON(a.stdout, d, ct)
	}
	return a.decisionStatus(d, err)
}
