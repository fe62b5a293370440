package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/shellpolicy"
)

func configCommands() []command {
	return []command{
		{name: "rules", summary: "list, add and remove permission rules", run: (*app).rules},
		{name: "mode", summary: "show or set the workspace's permission mode", run: (*app).modeCmd},
		{name: "trust", summary: "trust the project's .guard/ settings so that their loosening parts apply", run: (*app).trust},
	}
}

// builtinRules are the rules guard adds itself, listed after the
// configured ones by 'guard rules list'. The read-only defaults of
// shellpolicy belong here (when s.ReadOnlyDefaults is on), with Source
// rule.SourceBuiltin and a Why.
func builtinRules(s *config.Settings) []rule.Rule {
	if !s.ReadOnlyDefaults {
		return nil
	}
	return shellpolicy.BuiltinRules()
}

const rulesHelp = `
Usage: guard rules SUBCOMMAND [flags]

Subcommands:
  list     every permission rule, with its source and file:line
  add      add a rule to the global settings or this workspace's own
  remove   remove a rule from them
  test     whether and how a rule matches a sample, without adding it

Run 'guard rules SUBCOMMAND --help' for its flags.
`

func (a *app) rules(args []string) int {
	return a.subcommand("rules", args, map[string]func(*app, []string) int{
		"list":   (*app).rulesList,
		"add":    (*app).rulesAdd,
		"remove": (*app).rulesRemove,
		"test":   (*app).rulesTest,
	}, rulesHelp)
}

// jsonRule is a rule in guard rules list --json.
type jsonRule struct {
	Action  rule.Action `json:"action"`
	Rule    string      `json:"rule"`
	Written string      `json:"written,omitempty"`
	Source  rule.Source `json:"source"`
	File    string      `json:"file,omitempty"`
	Line    int         `json:"line,omitempty"`
	Why     string      `json:"why,omitempty"`
}

func toJSONRule(r rule.Rule) jsonRule {
	j := jsonRule{Action: r.Action, Rule: r.String(), Source: r.Source, File: r.File, Line: r.Line, Why: r.Why}
	if r.Written != "" && r.Written != r.String() {
		j.Written = r.Written
	}
	return j
}

func (a *app) rulesList(args []string) int {
	fs := a.flagSet("rules list", "rules list [--json] [--workspace DIR] [--config FILE]", `
Rules are listed in the order they are consulted: managed, flag, global,
workspace, project, then guard's built-in rules. Any matching deny rule wins,
then ask, then allow. A project's allow rules apply only once you trust the
project ('guard trust'); until then they are listed as not applied.`)
	var c commonFlags
	c.registerFiles(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	withBuiltin := fs.Bool("builtin", false, "also list the built-in read-only defaults one by one")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("rules list", "unexpected argument %q", fs.Arg(0))
	}
	s, code := a.loadSettings(&c, config.Flags{})
	if s == nil {
		return code
	}
	// The built-in read-only defaults are many; they are counted unless asked
	// for (JSON always lists them: programs want the whole set).
	builtin := builtinRules(s)
	all := append([]rule.Rule(nil), s.Rules...)
	if *withBuiltin || *asJSON {
		all = append(all, builtin...)
	}
	var ignored []rule.Rule
	if s.Project.Ignored {
		for _, l := range s.Project.Loosening {
			if l.Rule != nil {
				ignored = append(ignored, *l.Rule)
			}
		}
	}
	if *asJSON {
		out := struct {
			Rules        []jsonRule `json:"rules"`
			Ignored      []jsonRule `json:"ignored"`
			ProjectTrust string     `json:"project_trust"`
		}{Rules: []jsonRule{}, Ignored: []jsonRule{}, ProjectTrust: string(s.Project.Trust)}
		for _, r := range all {
			out.Rules = append(out.Rules, toJSONRule(r))
		}
		for _, r := range ignored {
			out.Ignored = append(out.Ignored, toJSONRule(r))
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return exitOK
	}
	defer func() {
		if len(builtin) > 0 && !*withBuiltin {
			fmt.Fprintf(a.stdout, "\nand %d built-in rules: the read-only defaults and their guards ('guard rules list --builtin' lists them; read_only_defaults = false turns them off)\n", len(builtin))
		}
	}()
	if len(all) == 0 && len(ignored) == 0 {
		fmt.Fprintln(a.stdout, "no rules; add one with 'guard rules add --deny RULE' (or --ask, --allow)")
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if len(all) > 0 {
		fmt.Fprintln(tw, "ACTION\tRULE\tSOURCE\tWHERE")
		for _, r := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Action, safeText(ruleText(r)), r.Source, safeText(r.Where()))
		}
	}
	tw.Flush()
	if len(ignored) > 0 {
		state := "not trusted"
		if s.Project.Trust == config.TrustChanged {
			state = "changed since you trusted them"
		}
		fmt.Fprintf(a.stdout, "\nNot applied: the project's settings are %s (review with 'guard trust --show', then run 'guard trust'):\n", state)
		tw = tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		for _, r := range ignored {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Action, safeText(ruleText(r)), r.Source, safeText(r.Where()))
		}
		tw.Flush()
	}
	return exitOK
}

// ruleText is a rule in guard's spelling, with the user's when it differs.
func ruleText(r rule.Rule) string {
	if r.Written != "" && r.Written != r.String() {
		return fmt.Sprintf("%s (written %s)", r, r.Written)
	}
	return r.String()
}

// ruleEdit holds the flags of rules add and remove.
type ruleEdit struct {
	c                commonFlags
	scope            string
	allow, ask, deny string
	action           rule.Action
	text             string
}

func (a *app) parseRuleEdit(name string, args []string) (*ruleEdit, bool, int) {
	verb := strings.TrimPrefix(name, "rules ")
	fs := a.flagSet(name, name+" [--scope global|workspace] (--allow|--ask|--deny) RULE", `
The global scope is your settings.toml (or the --config file); the workspace
scope is your own settings for this workspace, which guard keeps outside the
project. A rule is kind(pattern) or a bare kind: shell, read, write, delete,
web, mcp. Claude Code's spellings are accepted (Bash(git push:*)).

Examples:
  guard rules `+verb+` --deny 'shell(rm -rf *)'
  guard rules `+verb+` --scope workspace --allow 'shell(make *)'`)
	e := &ruleEdit{}
	e.c.registerFiles(fs)
	fs.StringVar(&e.scope, "scope", "global", "global or workspace")
	fs.StringVar(&e.allow, "allow", "", "an allow rule")
	fs.StringVar(&e.ask, "ask", "", "an ask rule")
	fs.StringVar(&e.deny, "deny", "", "a deny rule")
	if done, code := a.parse(fs, args); done {
		return nil, true, code
	}
	if fs.NArg() > 0 {
		return nil, true, a.usageError(name, "unexpected argument %q; give the rule with --allow, --ask or --deny", fs.Arg(0))
	}
	n := 0
	for _, f := range []struct {
		a    rule.Action
		name string
	}{{rule.Allow, "allow"}, {rule.Ask, "ask"}, {rule.Deny, "deny"}} {
		if fs.Changed(f.name) {
			n++
			e.action = f.a
			e.text = fs.Lookup(f.name).Value.String()
		}
	}
	if n != 1 {
		return nil, true, a.usageError(name, "give exactly one of --allow, --ask or --deny with the rule")
	}
	if e.scope != "global" && e.scope != "workspace" {
		return nil, true, a.usageError(name, "--scope %q: want global or workspace", e.scope)
	}
	return e, false, 0
}

// scopeFile returns the file a rules edit changes, and for the workspace's
// own settings the comment a new file starts with.
func (a *app) scopeFile(e *ruleEdit) (string, []config.EditOption, int) {
	o, code := a.loadOptions(&e.c)
	if code != exitOK {
		return "", nil, code
	}
	p := config.DefaultPaths(o)
	if e.scope == "workspace" {
		return p.WorkspaceFile, []config.EditOption{workspaceHeader(p.Workspace)}, exitOK
	}
	return p.GlobalFile, nil, exitOK
}

// workspaceHeader names the workspace at the top of its settings file,
// quoted, so that a strange directory name stays one comment line.
func workspaceHeader(ws string) config.EditOption {
	return config.WithHeader("guard: your own settings for the workspace " + strconv.Quote(ws) + "\n(guard mode and guard rules add --scope workspace edit this file; so may you)")
}

func (a *app) rulesAdd(args []string) int {
	e, done, code := a.parseRuleEdit("rules add", args)
	if done {
		return code
	}
	r, err := rule.New(e.action, e.text)
	if err != nil {
		a.errorf("rules add: invalid rule %q: %v", e.text, err)
		return exitUsage
	}
	file, opts, code := a.scopeFile(e)
	if code != exitOK {
		return code
	}
	ed, err := config.AddRule(file, e.action, e.text, opts...)
	if err != nil {
		return a.editError("rules add", err)
	}
	if !ed.Changed {
		fmt.Fprintf(a.stdout, "%s %s is already in %s:%d; nothing changed\n", e.action, r, ed.File, ed.Line)
		return exitOK
	}
	for _, note := range rule.Lint(r) {
		a.warnf("%s:%d: %s", ed.File, ed.Line, note)
	}
	fmt.Fprintf(a.stdout, "added %s %s to %s:%d\n", e.action, ruleText(r), ed.File, ed.Line)
	return exitOK
}

func (a *app) rulesRemove(args []string) int {
	e, done, code := a.parseRuleEdit("rules remove", args)
	if done {
		return code
	}
	file, _, code := a.scopeFile(e)
	if code != exitOK {
		return code
	}
	ed, err := config.RemoveRule(file, e.action, e.text)
	var nf *config.RuleNotFoundError
	if errors.As(err, &nf) {
		a.errorf("rules remove: %v", nf)
		a.whereElse(e)
		return exitUsage
	}
	if err != nil {
		return a.editError("rules remove", err)
	}
	what := e.text
	if r, err := rule.New(e.action, e.text); err == nil {
		what = r.String()
	}
	plural := ""
	if ed.Removed > 1 {
		plural = fmt.Sprintf(" (%d entries)", ed.Removed)
	}
	fmt.Fprintf(a.stdout, "removed %s %s from %s:%d%s\n", e.action, what, ed.File, ed.Line, plural)
	return exitOK
}

// whereElse tells the user where a rule that is not in the edited file
// comes from, if any settings file has it.
func (a *app) whereElse(e *ruleEdit) {
	want, err := rule.New(e.action, e.text)
	if err != nil {
		return
	}
	o, code := a.loadOptions(&e.c)
	if code != exitOK {
		return
	}
	s, err := config.Load(o)
	if err != nil {
		return
	}
	for _, r := range s.Rules {
		if r.Action == want.Action && r.Kind == want.Kind && r.Bare == want.Bare && r.Pattern == want.Pattern {
			hint := "edit that file"
			switch r.Source {
			case rule.SourceGlobal, rule.SourceWorkspace:
				hint = "remove it with --scope " + string(r.Source)
			case rule.SourceManaged:
				hint = "managed rules cannot be removed"
			}
			fmt.Fprintf(a.stderr, "The rule comes from the %s settings, %s; %s.\n", r.Source, r.Where(), hint)
			return
		}
	}
}

func (a *app) editError(cmd string, err error) int {
	var fe *config.FileError
	if errors.As(err, &fe) {
		a.errorf("%v", fe)
		return exitConfig
	}
	a.errorf("%s: %v", cmd, err)
	return exitConfig
}

func (a *app) modeCmd(args []string) int {
	fs := a.flagSet("mode", "mode [--workspace DIR] [MODE]", `
Without MODE, shows the mode guard starts in here and what set it: --mode
on a command, else this workspace's own settings, else the global settings,
else bypass for auto_approve = true, else default. With MODE, saves it in
this workspace's own settings (kept outside the project, under your config
directory).

Modes: default, accept-edits, auto, plan, dont-ask, bypass (Claude Code's
acceptEdits, dontAsk and bypassPermissions are accepted). bypass takes effect
only while the sandbox can be enforced.`)
	var c commonFlags
	c.registerFiles(fs)
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return a.usageError("mode", "want at most one MODE, got %d arguments", fs.NArg())
	}
	if fs.NArg() == 0 {
		s, code := a.loadSettings(&c, config.Flags{})
		if s == nil {
			return code
		}
		fmt.Fprintf(a.stdout, "%s (%s)\n", s.Mode, modeOrigin(s))
		if s.ModeFloor != "" && s.ModeFrom != "managed" {
			fmt.Fprintf(a.stdout, "managed settings allow no mode less strict than %s\n", s.ModeFloor)
		}
		if s.DisableBypass {
			fmt.Fprintln(a.stdout, "managed settings forbid bypass")
		}
		return exitOK
	}
	mode, err := config.ParseMode(fs.Arg(0))
	if err != nil {
		return a.usageError("mode", "%v", err)
	}
	s, code := a.loadSettings(&c, config.Flags{})
	if s == nil {
		return code
	}
	switch {
	case mode == config.ModeBypass && s.DisableBypass:
		a.errorf("mode: managed settings forbid bypass (%s); choose another mode", s.Paths.ManagedFile)
		return exitUsage
	case s.ModeFloor != "" && !mode.AtLeastAsStrict(s.ModeFloor):
		a.errorf("mode: managed settings allow no mode less strict than %s (%s)", s.ModeFloor, s.Paths.ManagedFile)
		return exitUsage
	}
	ed, err := config.SetMode(s.Paths.WorkspaceFile, mode, workspaceHeader(s.Paths.Workspace))
	if err != nil {
		return a.editError("mode", err)
	}
	if !ed.Changed {
		fmt.Fprintf(a.stdout, "mode is already %s in %s:%d\n", mode, ed.File, ed.Line)
	} else {
		fmt.Fprintf(a.stdout, "mode %s saved for %s in %s:%d\n", mode, s.Paths.Workspace, ed.File, ed.Line)
	}
	if mode == config.ModeBypass {
		fmt.Fprintln(a.stdout, "bypass applies only while the sandbox can be enforced; otherwise guard starts in default")
	}
	return exitOK
}

// modeOrigin says in words where the starting mode came from.
func modeOrigin(s *config.Settings) string {
	switch s.ModeFrom {
	case "flag":
		return "from --mode"
	case "workspace":
		return "from this workspace's settings, " + s.ModeWhere
	case "global":
		return "from the global settings, " + s.ModeWhere
	case "auto_approve":
		return "auto_approve = true at " + s.ModeWhere
	case "managed":
		return "the least strict mode the managed settings allow, " + s.ModeWhere
	}
	return "no mode is set; the default"
}

func (a *app) trust(args []string) int {
	fs := a.flagSet("trust", "trust [--show] [--workspace DIR]", `
A project's .guard/settings.toml and .guard/settings.local.toml come with the
repository. Their deny and ask rules and other tightening settings always
apply; their loosening settings (allow rules, auto_approve, hooks, network,
writable paths, ...) apply only once you trust the files as they are now.
guard trust shows what they would loosen and records a SHA-256 of the files;
any later change to them needs a new guard trust.`)
	var c commonFlags
	c.registerFiles(fs)
	show := fs.Bool("show", false, "only show what the project's settings would loosen")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("trust", "unexpected argument %q", fs.Arg(0))
	}
	s, code := a.loadSettingsQuiet(&c, config.Flags{}, config.WarnUntrusted)
	if s == nil {
		return code
	}
	ws := s.Paths.Workspace
	pr := s.Project
	if pr.Trust == config.TrustNone {
		fmt.Fprintf(a.stdout, "%s has no project settings (.guard/settings.toml, .guard/settings.local.toml); nothing to trust\n", ws)
		return exitOK
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(ws, p); err == nil {
			return r
		}
		return p
	}
	var names []string
	for _, f := range pr.Files {
		names = append(names, rel(f))
	}
	fmt.Fprintf(a.stdout, "Project settings of %s: %s\n", safeText(ws), strings.Join(names, ", "))
	switch pr.Trust {
	case config.TrustTrusted:
		fmt.Fprintf(a.stdout, "Trusted on %s, unchanged since.\n", pr.TrustedAt.Local().Format(time.DateOnly))
	case config.TrustChanged:
		fmt.Fprintf(a.stdout, "Changed since you trusted them on %s.\n", pr.TrustedAt.Local().Format(time.DateOnly))
	default:
		fmt.Fprintln(a.stdout, "Not trusted.")
	}
	if len(pr.Loosening) == 0 {
		fmt.Fprintln(a.stdout, "They loosen nothing: everything in them applies without trust.")
	} else {
		fmt.Fprintln(a.stdout, "When trusted, they loosen:")
		for _, l := range pr.Loosening {
			fmt.Fprintf(a.stdout, "  %s:%d: %s\n", safeText(rel(l.File)), l.Line, safeText(l.What))
		}
	}
	if *show {
		if pr.Trust != config.TrustTrusted {
			fmt.Fprintln(a.stdout, "Run 'guard trust' to trust them as they are now.")
		}
		return exitOK
	}
	changed, err := config.RecordTrust(s, time.Now())
	if err != nil {
		return a.editError("trust", err)
	}
	if !changed {
		fmt.Fprintln(a.stdout, "Already trusted; nothing changed.")
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Trusted: recorded in %s. A change to these files needs 'guard trust' again.\n", s.Paths.TrustFile)
	return exitOK
}
