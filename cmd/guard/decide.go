package main

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/guard-sh/guard/agents/claudecode"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/gitconfig"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/shellpolicy"
)

// judge holds what turns an action into a gate request for one run of
// guard: the settings, their rules compiled once, the path policy and the
// shell policy built on it.
type judge struct {
	s     *config.Settings
	set   *rule.Set
	paths *pathpolicy.Policy
	shell shellpolicy.Policy
	cwd   string
	// permits are an unattended run's permissions (nil when attended).
	permits *rule.Set
	// sensitive memoizes sensitivePaths: one run asks twice (the sandbox's
	// read-only binds, then the watch).
	sensitive []pathpolicy.Location
	// git memoizes gitConfigPlaces (pathpolicy may ask for it, from its
	// own first write check, as exec does).
	gitOnce sync.Once
	git     *gitPlaces
}

// gitPlaces are the places git's configuration names (gitconfig.Places),
// and the problems met reading it.
type gitPlaces struct {
	places   []gitconfig.Place
	problems []error
}

// gitConfigPlaces reads git's configuration for the workspace once per run.
func (j *judge) gitConfigPlaces() *gitPlaces {
	j.gitOnce.Do(func() {
		places, problems := gitconfig.Places(gitconfig.Options{
			Dir:           j.s.Paths.Workspace,
			Home:          j.s.Paths.Home,
			XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"),
			Getenv:        os.LookupEnv,
		})
		j.git = &gitPlaces{places: places, problems: problems}
	})
	return j.git
}

// gitSensitive gives pathpolicy the places git's configuration names, as
// sensitive as .git/hooks: a write or delete there asks.
func (j *judge) gitSensitive() []pathpolicy.Location {
	var out []pathpolicy.Location
	for _, p := range j.gitConfigPlaces().places {
		out = append(out, pathpolicy.Location{Path: p.Path, Dir: p.Dir, Why: p.Why})
	}
	return out
}

// sensitivePaths is j.paths.SensitivePaths(), examined once per run.
func (j *judge) sensitivePaths() []pathpolicy.Location {
	if j.sensitive == nil {
		j.sensitive = j.paths.SensitivePaths()
	}
	return j.sensitive
}

// newJudge compiles the settings' rules and builds the policies. unattended
// makes requests an unattended run's: only s.Unattended (--permit) and the
// deny rules decide them.
func (a *app) newJudge(s *config.Settings, unattended bool) (*judge, int) {
	cwd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot tell the current directory: %v", err)
		return nil, exitConfig
	}
	set := rule.NewSet(s.Rules, s.RuleEnv())
	j := &judge{s: s, set: set, cwd: cwd}
	pol, err := pathpolicy.New(set, pathpolicy.Options{
		Home:          s.Paths.Home,
		Workspace:     s.Paths.Workspace,
		WritableRoots: s.Sandbox.AllowWrite,
		GuardPaths:    guardOwnPaths(s),
		Sensitive:     j.gitSensitive,
	})
	if err != nil {
		a.errorf("%v", err)
		return nil, exitConfig
	}
	j.paths = pol
	j.shell = shellpolicy.Policy{
		Rules:            set,
		ReadOnlyDefaults: s.ReadOnlyDefaults,
		Paths:            pol,
		Dir:              cwd,
		Workspace:        s.Paths.Workspace,
		Home:             s.Paths.Home,
	}
	if unattended {
		// The run's permissions as allow rules, beside every deny rule:
		// deny rules refuse unattended runs too (seed APR-10, APR-15).
		permits := append([]rule.Rule(nil), s.Unattended...)
		for _, r := range s.Rules {
			if r.Action == rule.Deny {
				permits = append(permits, r)
			}
		}
		j.permits = rule.NewSet(permits, s.RuleEnv())
	}
	return j, exitOK
}

// guardOwnPaths are the files and directories only guard's own commands may
// change: its config and state, the managed settings, a --config file, and
// the binary itself.
func guardOwnPaths(s *config.Settings) []string {
	p := s.Paths
	own := []string{p.ConfigDir, p.StateDir, p.ManagedFile, p.GlobalFile, p.WorkspaceFile,
		p.ApprovalsFile, p.TrustFile, p.AuditFile, p.SessionsDir}
	if exe, err := os.Executable(); err == nil {
		own = append(own, exe)
	}
	out := own[:0]
	for _, x := range own {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// shellRequest judges a shell command (src) or a program with its arguments
// (argv, no shell parsing) and builds the gate request for it.
func (j *judge) shellRequest(tool, src string, argv []string, dialect string) (*gate.Request, *shellpolicy.Verdict) {
	p := j.shell
	p.Dialect = dialect
	var v *shellpolicy.Verdict
	detail := src
	if argv != nil {
		v = shellpolicy.EvaluateArgv(argv, p)
		detail = quoteArgv(argv)
	} else {
		v = shellpolicy.Evaluate(src, p)
	}
	key, label := gate.CommandKey(j.s.Paths.Workspace, detail)
	req := &gate.Request{
		Tool:      tool,
		Kind:      gate.RunCommand,
		Detail:    detail,
		Key:       key,
		KeyLabel:  label,
		Workspace: j.s.Paths.Workspace,
		ReadOnly:  v.ReadOnly,
		Rules: gate.RuleVerdict{
			Action:  v.Decision,
			MustAsk: v.MustAsk,
			Rule:    v.Rule,
			Reason:  v.Detail,
		},
	}
	for _, sv := range v.Segments {
		req.Targets = append(req.Targets, sv.Command)
		if sv.Segment != nil {
			req.Texts = append(req.Texts, sv.Segment.Text)
		} else {
			req.Texts = append(req.Texts, rule.Known(sv.Command))
		}
		if sv.Decision != rule.Allow {
			line := fmt.Sprintf("%s: %s", sv.Command, sv.Reason)
			if sv.Detail != "" {
				line = fmt.Sprintf("%s: %s", sv.Command, sv.Detail)
			}
			req.Rules.Details = append(req.Rules.Details, line)
			if req.Suggest == "" && sv.Decision == rule.Ask && !sv.MustAsk {
				req.Suggest = fmt.Sprintf("shell(%s)", sv.Command)
			}
		}
	}
	if len(req.Targets) == 0 {
		// An empty command still needs a target for the gate to judge.
		req.Targets, req.Texts = []string{detail}, nil
	}
	if j.permits != nil {
		pp := p
		pp.Rules, pp.ReadOnlyDefaults = j.permits, false
		var pv *shellpolicy.Verdict
		if argv != nil {
			pv = shellpolicy.EvaluateArgv(argv, pp)
		} else {
			pv = shellpolicy.Evaluate(src, pp)
		}
		req.Unattended = &gate.Unattended{Permitted: pv.Decision == rule.Allow, Rule: pv.Rule}
	}
	return req, v
}

// quoteArgv renders argv as a shell would need it typed, for display and as
// the exact command of a remembered approval.
func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pathRequest judges a read, write or delete of path and builds the request.
func (j *judge) pathRequest(tool string, op rule.Kind, path string) (*gate.Request, pathpolicy.Decision) {
	d := j.paths.Check(op, path, j.cwd)
	kind := map[rule.Kind]gate.Kind{rule.Read: gate.ReadFile, rule.Write: gate.WriteFile, rule.Delete: gate.DeleteFile}[op]
	target := d.Canonical
	if target == "" {
		target = d.Absolute
	}
	if target == "" {
		target = path
	}
	req := &gate.Request{
		Tool:      tool,
		Kind:      kind,
		Detail:    target,
		Targets:   []string{target},
		Workspace: j.s.Paths.Workspace,
		Sensitive: d.Sensitive,
		Rules:     gate.RuleVerdict{Reason: d.Why},
	}
	if d.Hit != nil {
		req.Rules.Rule = d.Hit.Rule
	}
	switch d.Reason {
	case pathpolicy.ReasonRuleDeny, pathpolicy.ReasonProtected, pathpolicy.ReasonBadPath:
		req.Rules.Action = rule.Deny
	case pathpolicy.ReasonUnknown:
		// A path guard cannot follow: a write is refused, a read must be
		// seen by the user (no mode may fold it into allow).
		req.Rules.Action, req.Rules.MustAsk = d.Decision, d.Decision == rule.Ask
	case pathpolicy.ReasonRuleAsk:
		req.Rules.Action, req.Rules.MustAsk = rule.Ask, true
	case pathpolicy.ReasonRuleAllow:
		req.Rules.Action = rule.Allow
	case pathpolicy.ReasonDevice, pathpolicy.ReasonWorkspace, pathpolicy.ReasonGuardFile:
		// The location defaults of the contract: shown as the built-in rule
		// they amount to, so that the message names what allowed it.
		req.Rules.Action = rule.Allow
		req.Rules.Rule = &rule.Rule{Action: rule.Allow, Kind: op, Pattern: target, Source: rule.SourceBuiltin, Why: d.Why}
	case pathpolicy.ReasonWritable:
		req.InWritableRoots = true
	}
	switch kind {
	case gate.ReadFile:
		req.Key, req.KeyLabel = gate.ReadKey(target)
	default:
		req.Key, req.KeyLabel = gate.FileKey(kind, j.s.Paths.Workspace, req.InWritableRoots, d.Sensitive)
	}
	if req.Rules.Action != rule.Allow && req.Rules.Action != rule.Deny {
		req.Suggest = fmt.Sprintf("%s(%s)", op, target)
	}
	return req, d
}

// webRequest judges network access to a URL's host (or a bare host).
func (j *judge) webRequest(tool, target string) (*gate.Request, error) {
	host, err := urlHost(target)
	if err != nil {
		return nil, err
	}
	key, label := gate.WebKey(host)
	req := &gate.Request{
		Tool: tool, Kind: gate.Network, Detail: target, Targets: []string{host},
		Key: key, KeyLabel: label, Workspace: j.s.Paths.Workspace,
		Rules: gate.MatchTargets(j.set, rule.Web, []string{host}),
	}
	if j.permits != nil {
		pv := gate.MatchTargets(j.permits, rule.Web, []string{host})
		req.Unattended = &gate.Unattended{Permitted: pv.Action == rule.Allow, Rule: pv.Rule}
	}
	return req, nil
}

// urlHost is the host of a URL, or of a bare host name. It reads the URL as
// strictly as the hook does (claudecode.URLHost): a trailing dot is dropped,
// and a user-info part, a backslash or a non-ASCII host is refused rather
// than guessed at, so that guard and the program that fetches cannot read
// two different hosts.
func urlHost(target string) (string, error) {
	raw := target
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	return claudecode.URLHost(raw)
}

// mcpRequest judges an MCP tool given as server:tool.
func (j *judge) mcpRequest(tool, target string) (*gate.Request, error) {
	server, name, ok := strings.Cut(target, ":")
	if !ok || server == "" || name == "" || strings.ContainsAny(target, " \t\n/") {
		return nil, fmt.Errorf("%q: want SERVER:TOOL", target)
	}
	key, label := gate.MCPKey(server, name)
	req := &gate.Request{
		Tool: tool, Kind: gate.MCPTool, Detail: target, Targets: []string{target},
		Key: key, KeyLabel: label, Workspace: j.s.Paths.Workspace,
		Rules: gate.MatchTargets(j.set, rule.MCP, []string{target}),
	}
	if j.permits != nil {
		pv := gate.MatchTargets(j.permits, rule.MCP, []string{target})
		req.Unattended = &gate.Unattended{Permitted: pv.Action == rule.Allow, Rule: pv.Rule}
	}
	return req, nil
}
