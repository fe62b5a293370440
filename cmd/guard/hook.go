package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guard-sh/guard/agents/claudecode"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/rule"
	"github.com/spf13/pflag"
)

// exitHookBlock is the one non-zero status a hook may exit with: Claude Code
// (and Codex) block the call on 2 and show stderr to the model. Any other
// failure status would let the call through, so the hook never uses one.
const exitHookBlock = 2

// hookAgent is an agent whose PreToolUse hook takes Claude Code's input.
type hookAgent struct {
	name string
	// canAsk: the agent asks its user on "ask". Codex refuses "ask" and
	// runs the call, so guard answers it with a refusal instead.
	canAsk bool
	// cwdOptional: the agent may leave cwd out; the hook's own directory
	// is the session's then.
	cwdOptional bool
}

// hookAgents are the agents guard hook answers.
var hookAgents = map[string]hookAgent{
	"claude-code": {name: "Claude Code", canAsk: true},
	"codex":       {name: "Codex", canAsk: false, cwdOptional: true},
}

const hookHelp = `
Usage: guard hook claude-code [--sandbox] [--unknown none|ask] [--timeout DURATION] [--config FILE]
       guard hook codex [flags]

A PreToolUse hook. It reads the hook's JSON on stdin, judges the tool call
with guard's rules and mode without prompting (the agent asks its user
itself), and prints {"hookSpecificOutput": {"hookEventName": "PreToolUse",
"permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason": ...}}.

Tools: Bash is judged as a shell command; Read, Grep, Glob, LS as reads;
Edit, MultiEdit, Write, NotebookEdit as writes; WebFetch as network access to
the URL's host; WebSearch as network access to the host anthropic-web-search;
mcp__SERVER__TOOL as the MCP tool SERVER:TOOL. Other tools: no opinion (exit 0,
no output), or "ask" with --unknown ask.

Exit status: 0 with the answer on stdout; 2 (which blocks the call) when the
input is malformed, the settings cannot be read, or guard cannot decide. The
hook never exits with any other status.

Settings.json entry (Claude Code):
  {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
    {"type": "command", "command": "guard hook claude-code"}]}]}}

See docs/agents/claude-code.md.`

func runHook(a *app, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		if len(args) == 0 {
			fmt.Fprintln(a.stderr, strings.TrimSpace(hookHelp))
			return exitHookBlock
		}
		fmt.Fprintln(a.stdout, strings.TrimSpace(hookHelp))
		return exitOK
	}
	agent, ok := hookAgents[args[0]]
	if !ok {
		a.errorf("hook: unknown agent %q (want claude-code or codex); the call is blocked", args[0])
		return exitHookBlock
	}
	return a.hookGuarded(func() int { return a.hook(agent, args[0], args[1:]) })
}

// hookGuarded runs a hook so that it can only end in 0 or 2: a panic, or
// any other status, becomes 2 with a message, which blocks the call.
func (a *app) hookGuarded(fn func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			a.errorf("hook: internal error (%v); the call is blocked", r)
			code = exitHookBlock
		}
	}()
	code = fn()
	if code != exitOK && code != exitHookBlock {
		code = exitHookBlock
	}
	return code
}

// hookFlags are the flags of guard hook.
type hookFlags struct {
	sandbox bool
	unknown string
	timeout time.Duration
	config  string
}

// defaultHookTimeout stays under the 60 s Claude Code gives a hook by
// default, so that guard answers (ask, or a refusal) before the agent gives
// up on it, which would let the call through.
const defaultHookTimeout = 45 * time.Second

// hookGrace is how long past --timeout guard waits for a decision before it
// blocks the call on its own.
const hookGrace = 3 * time.Second

// blockf reports why the call is blocked, on stderr, and returns exit 2.
func (a *app) blockf(format string, args ...any) int {
	a.errorf("hook: "+format+"; the call is blocked", args...)
	return exitHookBlock
}

func (a *app) hook(agent hookAgent, name string, args []string) int {
	var f hookFlags
	fs := a.flagSet("hook "+name, "hook "+name+" [flags]", hookHelp)
	fs.BoolVar(&f.sandbox, "sandbox", false, "rewrite allowed and asked Bash commands to run under guard exec (guard's sandbox)")
	fs.StringVar(&f.unknown, "unknown", "none", "for a tool guard does not know: none (no opinion) or ask")
	fs.DurationVar(&f.timeout, "timeout", defaultHookTimeout, "decide within this time, or block the call; keep it below the hook's timeout in the agent's settings")
	fs.StringVar(&f.config, "config", "", "use this settings file instead of the global settings.toml")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return a.blockf("%v (check the hook's command in the agent's settings)", err)
	}
	switch {
	case fs.NArg() > 0:
		return a.blockf("unexpected argument %q (check the hook's command in the agent's settings)", fs.Arg(0))
	case f.unknown != "none" && f.unknown != "ask":
		return a.blockf("--unknown %q: want none or ask", f.unknown)
	case f.timeout <= 0:
		return a.blockf("--timeout must be positive")
	}

	// One answer only: the decision, or the watchdog's refusal if the
	// decision takes too long. Whichever comes first wins.
	var once sync.Once
	watchdog := time.AfterFunc(f.timeout+hookGrace, func() {
		once.Do(func() {
			a.blockf("no decision within %s", f.timeout+hookGrace)
			os.Exit(exitHookBlock)
		})
	})
	defer watchdog.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()

	code := exitHookBlock
	var out []byte
	decided := a.hookDecide(ctx, agent, &f, &out)
	once.Do(func() {
		code = decided
		if code != exitOK || out == nil {
			return
		}
		if _, err := a.stdout.Write(out); err != nil {
			code = a.blockf("cannot write the answer: %v", err)
		}
	})
	return code
}

// hookDecide judges the call on stdin and puts the answer in *out (nil for
// no opinion). It returns exit 0, or 2 having said why on stderr.
func (a *app) hookDecide(ctx context.Context, agent hookAgent, f *hookFlags, out *[]byte) int {
	data, err := a.readInput("-", claudecode.MaxInput)
	if err != nil {
		return a.blockf("reading stdin: %v", err)
	}
	defaultCwd := ""
	if agent.cwdOptional {
		defaultCwd, _ = os.Getwd()
	}
	in, err := claudecode.ParseInputDefault(data, defaultCwd)
	if err != nil {
		return a.blockf("%v", err)
	}
	if err := gate.ValidSessionID(in.SessionID); err != nil {
		return a.blockf("session_id: %v", err)
	}
	call, known, err := in.Call()
	if err != nil {
		return a.blockf("%v", err)
	}
	tool := "claude-code:" + in.ToolName
	if !agent.canAsk {
		tool = "codex:" + in.ToolName
	}
	if call.Kind == claudecode.None {
		if known || f.unknown == "none" {
			return exitOK // no opinion: the agent's own permissions decide
		}
		return a.hookAnswer(agent, out, claudecode.Ask,
			fmt.Sprintf("guard: %s, so it asks you (guard hook --unknown ask)", safeText(call.Why)), nil)
	}

	ws, err := config.ResolveWorkspace("", in.Cwd)
	if err != nil {
		return a.blockf("the session's directory: %v", err)
	}
	s, code := a.loadSettings(&commonFlags{workspace: ws, config: f.config}, config.Flags{})
	if s == nil {
		_ = code // loadSettings said why: a settings file guard cannot use blocks every call
		return a.blockf("guard cannot judge without its settings (fix the file named above)")
	}
	j, _ := a.newJudge(s, false)
	if j == nil {
		return a.blockf("guard cannot judge here")
	}
	// The call acts in the session's directory, not the hook's.
	j.cwd, j.shell.Dir = in.Cwd, in.Cwd

	req, why, err := a.hookRequest(j, tool, call)
	if err != nil {
		return a.blockf("%v", err)
	}
	req.Session = in.SessionID

	// The call runs under guard's sandbox only when --sandbox rewrites a
	// Bash command into guard exec; guard's bypass needs that sandbox.
	enforced, missing := false, agent.name+" performs it itself, outside guard's sandbox"
	if call.Kind == claudecode.Shell && f.sandbox {
		enforced, missing = a.sandboxEnforced(s)
	}
	e, err := a.newEngine(s, in.SessionID, enforced, missing)
	if err != nil {
		return a.blockf("%v", err)
	}
	e.Defer, e.Approver = true, nil
	mode, tightened := claudecode.EffectiveMode(s.Mode, in.PermissionMode)
	e.Mode = mode

	d, err := e.Decide(ctx, req)
	for _, n := range d.Notes {
		a.warnf("%s", safeText(n))
	}
	if err != nil {
		return a.blockf("%s", safeText(d.Message))
	}
	reason := "guard: " + safeText(d.Message)
	if d.Outcome == gate.Ask && d.Rule != nil && !strings.Contains(d.Message, d.Rule.String()) {
		// Name the rule that asks, so that the user at the prompt knows it.
		reason += fmt.Sprintf(" (%s rule %s, %s)", d.Rule.Action, d.Rule, d.Rule.Where())
	}
	if why != "" && d.Outcome != gate.Allow {
		reason += " (" + safeText(why) + ")"
	}
	if tightened {
		reason += fmt.Sprintf(" (mode %s, from %s's permission mode %s)", mode, agent.name, in.PermissionMode)
	}
	var dec claudecode.Decision
	switch d.Outcome {
	case gate.Allow:
		dec = claudecode.Allow
	case gate.Ask:
		dec = claudecode.Ask
	default:
		dec = claudecode.Deny
	}
	var rewrite string
	if call.Kind == claudecode.Shell && f.sandbox && dec != claudecode.Deny {
		rewrite = claudecode.SandboxCommand(guardProgram(), in.SessionID, call.Command)
		if dec == claudecode.Ask && agent.canAsk && in.SessionID != "" {
			// The agent asks its user now; on a yes it runs the rewritten
			// command, and guard exec takes this record as that answer
			// instead of asking the same person again (see handoff.go).
			if err := newHandoff(s.Paths.StateDir).put(in.SessionID, s.Paths.Workspace, call.Command); err != nil {
				a.warnf("cannot record the approval for guard exec (it will ask again): %v", err)
			}
		}
	}
	return a.hookAnswerInput(agent, in, out, dec, reason, rewrite)
}

// hookAnswer sets *out to the answer, without a rewritten input.
func (a *app) hookAnswer(agent hookAgent, out *[]byte, dec claudecode.Decision, reason string, in *claudecode.Input) int {
	return a.hookAnswerInput(agent, in, out, dec, reason, "")
}

func (a *app) hookAnswerInput(agent hookAgent, in *claudecode.Input, out *[]byte, dec claudecode.Decision, reason, rewrite string) int {
	if dec == claudecode.Ask && !agent.canAsk {
		dec = claudecode.Deny
		reason += fmt.Sprintf("; %s's hooks cannot ask the user, so guard refuses it: allow it with a rule (guard rules add --allow RULE) or run it yourself", agent.name)
	}
	o := claudecode.NewOutput(dec, reason)
	if rewrite != "" && in != nil {
		upd, err := in.WithCommand(rewrite)
		if err != nil {
			return a.blockf("cannot rewrite the command: %v", err)
		}
		o.HookSpecificOutput.UpdatedInput = upd
	}
	b, err := o.Marshal()
	if err != nil {
		return a.blockf("cannot encode the answer: %v", err)
	}
	*out = b
	return exitOK
}

// hookRequest builds the gate request of a call. why, when set, says what
// guard found beyond the request's own target (a search's denied files).
func (a *app) hookRequest(j *judge, tool string, call claudecode.Call) (req *gate.Request, why string, err error) {
	switch call.Kind {
	case claudecode.Shell:
		// Claude Code's Bash tool runs the command with bash.
		req, _ := j.shellRequest(tool, call.Command, nil, "")
		return req, "", nil
	case claudecode.Read:
		req, d := j.pathRequest(tool, rule.Read, call.Path)
		if call.Search && req.Rules.Action != rule.Deny {
			why = searchVerdict(j, req, d)
		}
		return req, why, nil
	case claudecode.Write:
		req, _ := j.pathRequest(tool, rule.Write, call.Path)
		req.Diff = call.Diff
		return req, "", nil
	case claudecode.Web:
		host := call.Target
		if host != claudecode.WebSearchHost {
			if host, err = claudecode.URLHost(call.Target); err != nil {
				return nil, "", fmt.Errorf("%s: %v", tool, err)
			}
		}
		req, err := j.webRequest(tool, host)
		if err != nil {
			return nil, "", err
		}
		req.Detail = call.Target
		return req, "", nil
	case claudecode.MCP:
		req, err := j.mcpRequest(tool, call.Target)
		return req, "", err
	}
	return nil, "", fmt.Errorf("%s: nothing to judge", tool)
}

// searchVerdict covers what a search reads beyond its directory: Grep reads
// every file under it, so a file a read rule denies (or asks about) that
// lies below the directory is read too. guard cannot make the agent's own
// search leave it out, so such a search is refused (deny rule) or asked
// about (ask rule). A search guard cannot look through in full asks.
func searchVerdict(j *judge, req *gate.Request, d pathpolicy.Decision) string {
	if !d.Resolved.Dir || d.Resolved.Unknown != "" {
		return ""
	}
	dir := d.Resolved.Canonical
	plan := pathpolicy.NewPlan(j.set, pathpolicy.PlanOptions{Home: dir, Workspace: dir})
	actions := map[string]rule.Action{}
	for _, rp := range plan.Rules {
		actions[rp.Rule] = rp.Action
		if (rp.Enforcement == pathpolicy.EnforcePartial || rp.Enforcement == pathpolicy.EnforceGate) && req.Rules.Action != rule.Deny {
			for _, root := range rp.Searched {
				if within(root, dir) || within(dir, root) {
					req.Rules.Action, req.Rules.MustAsk = rule.Ask, true
					req.Rules.Reason = fmt.Sprintf("the search reads every file under %s, and guard could not look through all of it for paths %s covers", dir, rp.Rule)
				}
			}
		}
	}
	var denied, asked []string
	var denyRule, askRule string
	for _, b := range plan.Blocked {
		if !b.Exists || !within(b.Path, dir) {
			continue
		}
		for _, r := range b.Rules {
			switch actions[r] {
			case rule.Deny:
				denied = append(denied, b.Path)
				if denyRule == "" {
					denyRule = r
				}
			case rule.Ask:
				asked = append(asked, b.Path)
				if askRule == "" {
					askRule = r
				}
			}
		}
	}
	pick := func(text string) *rule.Rule {
		for _, r := range j.set.Rules() {
			if r.String() == text {
				r := r
				return &r
			}
		}
		return nil
	}
	switch {
	case len(denied) > 0:
		sort.Strings(denied)
		req.Rules = gate.RuleVerdict{Action: rule.Deny, Rule: pick(denyRule),
			Reason: fmt.Sprintf("the search reads every file under %s, including %s, which %s denies; search a narrower path that leaves it out", dir, listPaths(denied), denyRule)}
	case len(asked) > 0:
		sort.Strings(asked)
		req.Rules = gate.RuleVerdict{Action: rule.Ask, MustAsk: true, Rule: pick(askRule),
			Reason: fmt.Sprintf("the search reads every file under %s, including %s, which ask rule %s covers", dir, listPaths(asked), askRule)}
	case req.Rules.MustAsk:
	default:
		return ""
	}
	return req.Rules.Reason
}

// within reports whether p is dir or lies inside it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func listPaths(ps []string) string {
	ps = dedupeStrings(ps)
	if len(ps) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(ps[:3], ", "), len(ps)-3)
	}
	return strings.Join(ps, ", ")
}

func dedupeStrings(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// guardProgram is how a rewritten command names guard: this executable's
// path when it is installed as guard, else "guard" from PATH.
func guardProgram() string {
	exe, err := os.Executable()
	if err != nil || filepath.Base(exe) != "guard" {
		return "guard"
	}
	return exe
}
