package shellpolicy

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"

	"github.com/guard-sh/guard/rule"
)

// Paths judges the files a command touches by the file rules. path may be
// relative to dir. An error means the path could not be resolved: the
// command then asks.
type Paths interface {
	MatchPath(op rule.Kind, path, dir string) (rule.Matches, error)
}

// Policy is what a command is judged by.
type Policy struct {
	Rules            *rule.Set // every rule: shell rules and file rules
	ReadOnlyDefaults bool      // the built-in read-only defaults apply
	Paths            Paths     // nil: file rules are not consulted, and no redirection to a file is allowed
	Dir              string    // the directory the command starts in
	Workspace        string
	Home             string
	// Dialect is the shell that will run the command: "bash" (default) or
	// "sh".
	Dialect string
}

// The reasons of a verdict and its segments, besides the problems'
// (parse-error, control-character, limit). They are stable: the gate audits
// them and scripts may read them.
const (
	ReasonRuleDeny      = "rule-deny"       // a deny rule matched (a shell rule, or a file rule on a file the command touches)
	ReasonRuleAsk       = "rule-ask"        // an ask rule matched: the user is asked, whatever the mode
	ReasonRuleAllow     = "rule-allow"      // an allow rule matched
	ReasonReadOnly      = "read-only"       // a built-in read-only default covers it
	ReasonNoRule        = "no-rule"         // no rule allows it: it asks by default
	ReasonReadOnlyGuard = "read-only-guard" // a read-only command in a form that can write or run programs: it asks by default
	ReasonRedirectWrite = "redirect-write"  // it writes a file by redirection that no write allow rule covers
	ReasonUnverifiable  = "unverifiable"    // what runs cannot be known before it runs
)

// Verdict is the judgement of a shell command by the rules: the input of the
// gate, which applies modes, remembered approvals and the user on top.
type Verdict struct {
	Decision rule.Action // deny, ask or allow
	Reason   string
	Rule     *rule.Rule // the rule that decided, if a rule did
	Match    rule.MatchKind
	Detail   string // what the deciding segment matched or lacked, for people
	// MustAsk: the ask goes straight to the user, skipping modes, allow
	// rules and remembered approvals (an ask rule matched, or the command
	// is unverifiable while shell deny or ask rules exist).
	MustAsk bool
	// ReadOnly: every segment is covered by the read-only defaults, hits no
	// guard and writes no file (plan mode allows such commands).
	ReadOnly bool
	Segments []SegmentVerdict
	Problems []Problem
}

// SegmentVerdict is the judgement of one segment.
type SegmentVerdict struct {
	Command  string
	Pos      Position
	Via      string
	Decision rule.Action
	Reason   string
	Rule     *rule.Rule
	Match    rule.MatchKind
	Detail   string
	MustAsk  bool
	ReadOnly bool
	Segment  *Segment
}

// Evaluate parses a shell command and judges it.
func Evaluate(src string, p Policy) *Verdict {
	return p.Judge(Parse(src, p.options()))
}

// EvaluateArgv judges a command given as words, with no shell parsing (guard
// exec -- PROGRAM ARGS): the words are taken as they are, and a wrapper in
// them is followed as in a shell command.
func EvaluateArgv(argv []string, p Policy) *Verdict {
	w := newWalker(p.options())
	if len(argv) > 0 {
		words := make([]Word, len(argv))
		for i, a := range argv {
			words[i] = known(a)
		}
		f := &frame{lang: p.options().lang()}
		w.run(&command{words: words, pos: Position{1, 1}}, &cmdCtx{in: knownDir(p.Dir), f: f})
	}
	return p.Judge(w.script)
}

func (p Policy) options() Options {
	return Options{Dir: p.Dir, Home: p.Home, Workspace: p.Workspace, Dialect: p.Dialect}
}

// ruleFacts are what the rules hold, for MustAsk.
type ruleFacts struct {
	shellDenyAsk bool // a shell deny or ask rule exists
	writeDenyAsk bool // a write deny or ask rule exists
}

func (p Policy) facts() ruleFacts {
	var f ruleFacts
	if p.Rules == nil {
		return f
	}
	for _, r := range p.Rules.Rules() {
		if r.Action == rule.Allow {
			continue
		}
		switch r.Kind {
		case rule.Shell:
			f.shellDenyAsk = true
		case rule.Write:
			f.writeDenyAsk = true
		}
	}
	return f
}

// The classes of a segment's decision, strictest first.
const (
	classDeny = iota
	classAskRule
	classUnverifiable
	classAsk
	classAllow
)

// Judge judges a parsed command. The command's decision is its strictest
// segment's: any deny denies; else an ask rule asks (MustAsk); else anything
// guard could not read asks (MustAsk when shell deny or ask rules exist);
// else a segment no rule allows asks; else it is allowed.
func (p Policy) Judge(s *Script) *Verdict {
	facts := p.facts()
	v := &Verdict{Problems: s.Problems, ReadOnly: len(s.Problems) == 0, Segments: make([]SegmentVerdict, len(s.Segments))}
	best, bestClass := -1, classAllow+1
	rules := ruleCopies(make([]rule.Rule, 0, len(s.Segments)))
	for i := range s.Segments {
		sv := &v.Segments[i]
		class := p.judgeSegment(&s.Segments[i], facts, &rules, sv)
		if class < bestClass {
			best, bestClass = i, class
		}
		if !sv.ReadOnly {
			v.ReadOnly = false
		}
		if sv.MustAsk {
			v.MustAsk = true
		}
	}
	if len(s.Problems) > 0 && bestClass >= classUnverifiable {
		pr := s.Problems[0]
		v.Decision, v.Reason, v.Detail = rule.Ask, pr.Reason, pr.String()
		v.MustAsk = v.MustAsk || facts.shellDenyAsk
		return v
	}
	if len(s.Problems) > 0 {
		v.MustAsk = v.MustAsk || facts.shellDenyAsk
	}
	if best < 0 {
		v.Decision, v.Reason, v.Detail = rule.Allow, ReasonReadOnly, "the command runs nothing"
		return v
	}
	d := &v.Segments[best]
	v.Decision, v.Reason, v.Rule, v.Match = d.Decision, d.Reason, d.Rule, d.Match
	v.Detail = segmentDetail(d)
	switch v.Decision {
	case rule.Deny:
		v.MustAsk, v.ReadOnly = false, false
	case rule.Allow:
		v.MustAsk = false
		// Report a user's allow rule before the built-in defaults.
		for i := range v.Segments {
			if sv := &v.Segments[i]; sv.Reason == ReasonRuleAllow {
				v.Reason, v.Rule, v.Match = sv.Reason, sv.Rule, sv.Match
				break
			}
		}
	}
	return v
}

// segmentDetail is "line:col: command[: detail]", built at once.
func segmentDetail(d *SegmentVerdict) string {
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(d.Pos.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(d.Pos.Col), 10)
	b = append(b, ": "...)
	b = append(b, d.Command...)
	if d.Detail != "" {
		b = append(b, ": "...)
		b = append(b, d.Detail...)
	}
	return string(b)
}

// judgeSegment judges one segment into sv and returns its class.
func (p Policy) judgeSegment(seg *Segment, facts ruleFacts, rules *ruleCopies, sv *SegmentVerdict) int {
	*sv = SegmentVerdict{Command: seg.Text.String(), Pos: seg.Pos, Via: seg.Via, Segment: seg}
	var primary rule.Matches
	var deny, ask *rule.Hit
	var denyOn, askOn rule.Text
	if p.Rules != nil {
		for i := -1; i < len(seg.Readings); i++ {
			r := seg.Text
			if i >= 0 {
				r = seg.Readings[i]
			}
			if len(r) > 0 && r[0].Unknown {
				// A command whose name is known only at run time: it is
				// unverifiable, not matched.
				continue
			}
			m := p.Rules.Match(rule.Shell, r)
			if i < 0 {
				primary = m
			}
			if m.Deny != nil && deny == nil {
				deny, denyOn = m.Deny, r
			}
			if m.Ask != nil && ask == nil {
				ask, askOn = m.Ask, r
			}
		}
	}
	files := p.judgeFiles(seg)
	writes := false
	for _, f := range seg.Files {
		if f.Op == rule.Write || f.Op == rule.Delete {
			writes = true
		}
	}
	sv.ReadOnly = seg.ro.covered() && !writes && seg.Unverifiable == ""

	set := func(d rule.Action, reason string, h *rule.Hit, detail string) {
		sv.Decision, sv.Reason, sv.Detail = d, reason, detail
		if h != nil {
			sv.Rule, sv.Match = rules.keep(h.Rule), h.Match
		}
	}
	switch {
	case deny != nil:
		set(rule.Deny, ReasonRuleDeny, deny, readingNote(seg, denyOn))
		return classDeny
	case files.deny != nil:
		set(rule.Deny, ReasonRuleDeny, files.deny, files.denyOn)
		return classDeny
	case ask != nil:
		set(rule.Ask, ReasonRuleAsk, ask, readingNote(seg, askOn))
		sv.MustAsk = true
		return classAskRule
	case files.ask != nil:
		set(rule.Ask, ReasonRuleAsk, files.ask, files.askOn)
		sv.MustAsk = true
		return classAskRule
	case seg.Unverifiable != "":
		set(rule.Ask, ReasonUnverifiable, nil, seg.Unverifiable)
		sv.MustAsk = facts.shellDenyAsk
		return classUnverifiable
	case files.unresolved != "":
		set(rule.Ask, ReasonUnverifiable, nil, files.unresolved)
		sv.MustAsk = facts.shellDenyAsk || facts.writeDenyAsk
		return classUnverifiable
	}
	allowed := primary.Allow
	builtin := p.ReadOnlyDefaults && seg.ro.covered()
	if allowed == nil && !builtin {
		if p.ReadOnlyDefaults && seg.ro.entry != nil && seg.ro.guard != nil {
			g := seg.ro.guard
			sv.Decision, sv.Reason, sv.Rule = rule.Ask, ReasonReadOnlyGuard, g.askRule(rules)
			sv.Detail = fmt.Sprintf("%s (%s): %s", g.ID, seg.ro.detail, g.Why)
			return classAsk
		}
		set(rule.Ask, ReasonNoRule, nil, "no rule allows it")
		return classAsk
	}
	if files.write != "" {
		set(rule.Ask, ReasonRedirectWrite, nil, files.write)
		return classAsk
	}
	if files.unclear != "" {
		set(rule.Ask, ReasonUnverifiable, nil, files.unclear)
		return classAsk
	}
	if allowed != nil {
		set(rule.Allow, ReasonRuleAllow, allowed, "")
		return classAllow
	}
	sv.Decision, sv.Reason, sv.Rule, sv.Match = rule.Allow, ReasonReadOnly, rules.keepAllow(seg.ro.entry), rule.MatchPrefix
	return classAllow
}

// ruleCopies holds the copies of the rules a verdict names, one per segment
// at most, made in one allocation: a verdict's rules are its own, and what a
// caller does to them changes neither the rule set nor the built-in tables.
// Its capacity is the number of segments, so the pointers it hands out stay
// valid.
type ruleCopies []rule.Rule

// keep copies *r into c. (r is a pointer: a Rule taken by value and
// returned by address would be moved to the heap on every call, not only on
// the path that returns it.)
func (c *ruleCopies) keep(r *rule.Rule) *rule.Rule {
	if len(*c) == cap(*c) {
		cp := *r // cannot happen: one rule per segment at most
		return &cp
	}
	*c = append(*c, *r)
	return &(*c)[len(*c)-1]
}

// keepAllow is a copy of the built-in allow rule of a read-only default.
func (c *ruleCopies) keepAllow(e *roEntry) *rule.Rule {
	r := e.allowRule()
	return c.keep(&r)
}

// askRule is a copy of the built-in ask rule of a guard.
func (g *Guard) askRule(c *ruleCopies) *rule.Rule {
	r := builtinRule(rule.Ask, g.Pattern, g.Why)
	return c.keep(&r)
}

// readingNote says which reading a rule matched, when it is not the
// command as typed.
func readingNote(seg *Segment, r rule.Text) string {
	if sameText(r, seg.Text) {
		return ""
	}
	return "as " + r.String()
}

// fileJudgement is what the file rules say of a segment's files.
type fileJudgement struct {
	deny, ask     *rule.Hit
	denyOn, askOn string
	unresolved    string // a redirection whose target is known only at run time
	write         string // a redirection no write allow rule covers
	unclear       string // a file the path rules could not resolve
}

func (p Policy) judgeFiles(seg *Segment) fileJudgement {
	var j fileJudgement
	for _, f := range seg.Files {
		what := func() string { return fmt.Sprintf("%s %s %s", f.By, opVerb(f.Op), f.Path) }
		pth, ok := f.Path.Path(p.homeFor())
		if !ok {
			if f.Redirect && f.Op == rule.Write && j.unresolved == "" {
				j.unresolved = fmt.Sprintf("the redirection %s %s writes a file known only at run time", f.By, f.Path)
			}
			continue
		}
		var dirs []string
		switch {
		case path.IsAbs(pth):
			dirs = []string{""}
		case seg.Dirs.Unknown || len(seg.Dirs.Known) == 0:
			if f.Redirect && f.Op == rule.Write && j.unresolved == "" {
				j.unresolved = fmt.Sprintf("the redirection %s %s writes a relative path from a directory known only at run time", f.By, f.Path)
			}
			continue
		default:
			dirs = seg.Dirs.Known
		}
		if p.Paths == nil {
			if f.Redirect && f.Op == rule.Write && j.write == "" {
				j.write = fmt.Sprintf("the redirection %s %s writes a file", f.By, f.Path)
			}
			continue
		}
		for _, dir := range dirs {
			m, err := p.Paths.MatchPath(f.Op, pth, dir)
			if err != nil {
				if j.unclear == "" {
					j.unclear = fmt.Sprintf("%s: %v", what(), err)
				}
				continue
			}
			if m.Deny != nil && j.deny == nil {
				j.deny, j.denyOn = m.Deny, what()
			}
			if m.Ask != nil && j.ask == nil {
				j.ask, j.askOn = m.Ask, what()
			}
			if f.Redirect && f.Op == rule.Write && m.Allow == nil && j.write == "" {
				j.write = fmt.Sprintf("the redirection %s %s writes a file no write rule allows", f.By, f.Path)
			}
		}
	}
	return j
}

func (p Policy) homeFor() string { return p.Home }

func opVerb(op rule.Kind) string {
	switch op {
	case rule.Read:
		return "reads"
	case rule.Write:
		return "writes"
	case rule.Delete:
		return "deletes"
	}
	return string(op)
}

// MarshalJSON writes the verdict as `guard check --json` prints it.
func (v *Verdict) MarshalJSON() ([]byte, error) {
	type out struct {
		Decision rule.Action      `json:"decision"`
		Reason   string           `json:"reason"`
		Rule     string           `json:"rule,omitempty"`
		Source   rule.Source      `json:"source,omitempty"`
		Where    string           `json:"where,omitempty"`
		Match    rule.MatchKind   `json:"match,omitempty"`
		MustAsk  bool             `json:"must_ask,omitempty"`
		ReadOnly bool             `json:"read_only,omitempty"`
		Detail   string           `json:"detail,omitempty"`
		Segments []SegmentVerdict `json:"segments"`
		Problems []Problem        `json:"problems,omitempty"`
	}
	o := out{Decision: v.Decision, Reason: v.Reason, Match: v.Match, MustAsk: v.MustAsk, ReadOnly: v.ReadOnly,
		Detail: v.Detail, Segments: v.Segments, Problems: v.Problems}
	if o.Segments == nil {
		o.Segments = []SegmentVerdict{}
	}
	if v.Rule != nil {
		o.Rule, o.Source, o.Where = v.Rule.String(), v.Rule.Source, ruleWhere(v.Rule)
	}
	return json.Marshal(o)
}

// MarshalJSON writes a segment's verdict.
func (s SegmentVerdict) MarshalJSON() ([]byte, error) {
	type out struct {
		Command  string         `json:"command"`
		Pos      Position       `json:"pos"`
		Via      string         `json:"via,omitempty"`
		Decision rule.Action    `json:"decision"`
		Reason   string         `json:"reason"`
		Rule     string         `json:"rule,omitempty"`
		Source   rule.Source    `json:"source,omitempty"`
		Match    rule.MatchKind `json:"match,omitempty"`
		Detail   string         `json:"detail,omitempty"`
	}
	o := out{Command: s.Command, Pos: s.Pos, Via: s.Via, Decision: s.Decision, Reason: s.Reason, Match: s.Match, Detail: s.Detail}
	if s.Rule != nil {
		o.Rule, o.Source = s.Rule.String(), s.Rule.Source
	}
	return json.Marshal(o)
}

// ruleWhere is the file:line of a rule from a settings file.
func ruleWhere(r *rule.Rule) string {
	if r.File == "" {
		return ""
	}
	return r.Where()
}
