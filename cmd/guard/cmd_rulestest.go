package main

import (
	"fmt"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/rule"
	"github.com/guard-sh/guard/shellpolicy"
)

const rulesTestMore = `
Says whether RULE would match SAMPLE, and how, without adding the rule. A
shell sample is split into the commands the shell would run: an allow rule
must cover every one of them, a deny or ask rule needs only one. Without
--allow, --ask or --deny the rule is tried as each.

Exit status: 0 it matches (as every action tried), 1 it does not, 64 usage.`

func (a *app) rulesTest(args []string) int {
	var c commonFlags
	var allow, ask, deny bool
	fs := a.flagSet("rules test", "rules test [--allow|--ask|--deny] RULE SAMPLE", rulesTestMore)
	c.registerFiles(fs)
	fs.BoolVar(&allow, "allow", false, "try the rule as an allow rule")
	fs.BoolVar(&ask, "ask", false, "try the rule as an ask rule")
	fs.BoolVar(&deny, "deny", false, "try the rule as a deny rule")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() != 2 {
		return a.usageError("rules test", "want RULE SAMPLE, got %d arguments", fs.NArg())
	}
	var actions []rule.Action
	for _, x := range []struct {
		on bool
		a  rule.Action
	}{{deny, rule.Deny}, {ask, rule.Ask}, {allow, rule.Allow}} {
		if x.on {
			actions = append(actions, x.a)
		}
	}
	if len(actions) == 0 {
		actions = []rule.Action{rule.Deny, rule.Ask, rule.Allow}
	}
	text, sample := fs.Arg(0), fs.Arg(1)
	if _, err := rule.New(rule.Allow, text); err != nil {
		return a.usageError("rules test", "%s: %v", text, err)
	}
	s, code := a.loadSettingsQuiet(&c, config.Flags{}, "")
	if s == nil {
		return code
	}
	j, code := a.newJudge(s, false)
	if j == nil {
		return code
	}
	matched := 0
	for _, act := range actions {
		r, _ := rule.New(act, text)
		r.Source = rule.SourceFlag
		for _, n := range rule.Lint(r) {
			a.warnf("%s", n)
		}
		ok, how := j.testRule(r, sample)
		verb := "matches"
		if !ok {
			verb = "does not match"
		} else {
			matched++
		}
		fmt.Fprintf(a.stdout, "%s %s %s %q: %s\n", act, r, verb, sample, how)
	}
	if matched == len(actions) {
		return exitOK
	}
	return 1
}

// testRule matches one rule against a sample as guard would, alone: no
// other rule and no read-only default takes part.
func (j *judge) testRule(r rule.Rule, sample string) (bool, string) {
	set := rule.NewSet([]rule.Rule{r}, j.s.RuleEnv())
	pol, err := pathpolicy.New(set, pathpolicy.Options{Home: j.s.Paths.Home, Workspace: j.s.Paths.Workspace})
	if err != nil {
		return false, err.Error()
	}
	switch {
	case r.Kind == rule.Shell:
		p := j.shell
		p.Rules, p.ReadOnlyDefaults, p.Paths = set, false, pol
		v := shellpolicy.Evaluate(sample, p)
		return shellTestResult(r, v)
	case r.Kind.IsPath():
		m, err := pol.MatchPath(r.Kind, sample, j.cwd)
		if err != nil {
			return false, "the path cannot be resolved: " + err.Error()
		}
		res, err := pathpolicy.Resolve(sample, j.cwd, j.s.Paths.Home)
		where := ""
		if err == nil && res.Canonical != "" {
			where = " (canonical " + res.Canonical + ")"
		}
		if h := hitFor(m, r.Action); h != nil {
			if r.Action == rule.Allow {
				return true, fmt.Sprintf("%s match on the canonical path%s", h.Match, where)
			}
			return true, fmt.Sprintf("%s match%s; deny and ask rules match the path as given or canonical", h.Match, where)
		}
		if r.Action == rule.Allow {
			return false, "an allow rule must match the canonical path" + where
		}
		return false, "neither the path as given nor its canonical form" + where + " matches"
	default:
		target := sample
		if r.Kind == rule.Web {
			if h, err := urlHost(sample); err == nil {
				target = h
			}
		}
		v := gate.MatchTargets(set, r.Kind, []string{target})
		if v.Action == r.Action {
			m := set.MatchString(r.Kind, target)
			if h := hitFor(m, r.Action); h != nil {
				return true, fmt.Sprintf("%s match on %q", h.Match, target)
			}
		}
		return false, fmt.Sprintf("no match on %q", target)
	}
}

func hitFor(m rule.Matches, a rule.Action) *rule.Hit {
	switch a {
	case rule.Deny:
		return m.Deny
	case rule.Ask:
		return m.Ask
	}
	return m.Allow
}

// shellTestResult says how a lone shell rule judged a sample.
func shellTestResult(r rule.Rule, v *shellpolicy.Verdict) (bool, string) {
	var hit, miss []string
	redirect := false
	for i, sv := range v.Segments {
		desc := fmt.Sprintf("segment %d %q", i+1, sv.Command)
		if sv.Rule != nil && sv.Rule.Source == r.Source && sv.Rule.String() == r.String() && sv.Decision == r.Action {
			hit = append(hit, fmt.Sprintf("%s (%s match)", desc, sv.Match))
		} else {
			miss = append(miss, desc)
			if sv.Reason == "redirect-write" {
				redirect = true
			}
		}
	}
	note := ""
	if redirect {
		note = "; a redirection to a file is judged by write rules, not by this one"
	}
	for _, p := range v.Problems {
		note += fmt.Sprintf("; %v", p)
	}
	if r.Action == rule.Allow {
		if v.Decision == rule.Allow {
			return true, fmt.Sprintf("it covers every segment: %s%s", strings.Join(hit, ", "), note)
		}
		if len(miss) == 0 {
			return false, "the command cannot be verified before it runs" + note
		}
		return false, fmt.Sprintf("an allow rule must cover every segment; not covered: %s%s", strings.Join(miss, ", "), note)
	}
	if len(hit) > 0 {
		return true, fmt.Sprintf("one matching segment is enough for a %s rule: %s%s", r.Action, strings.Join(hit, ", "), note)
	}
	if v.Decision == r.Action {
		return true, "the command cannot be verified, so the rule is taken to match" + note
	}
	return false, fmt.Sprintf("no segment matches%s", note)
}
