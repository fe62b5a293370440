package prompt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
)

// Question is one question for the user (seed APR-40, APR-40a).
type Question struct {
	Text    string   `json:"question"`
	Options []string `json:"options,omitempty"`
	// Multi lets the user choose several options.
	Multi bool `json:"multi_select,omitempty"`
	// Body is shown before the question (a plan to approve).
	Body string `json:"-"`
	// Title is the prompt's first line, when not the default.
	Title string `json:"-"`
}

// Reply is the user's answer. Answer is the text; Selected are the choices:
// for a single-choice question the option picked (none when the user typed
// their own answer), for a multi-select question every choice, options and
// the user's own words alike, in the order given (Answer joins them with
// ", ").
type Reply struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Selected []string `json:"selected,omitempty"`
}

// Limits of a question, from an agent.
const (
	MaxQuestions = 8  // questions in one call (APR-40a)
	MaxOptions   = 26 // options of one question
	maxQuestion  = 2000
)

// Validate refuses a question that cannot be asked: empty, multi-select
// without options, too many or empty options.
func (q Question) Validate() error {
	if strings.TrimSpace(q.Text) == "" {
		return errors.New("empty question")
	}
	if len(q.Text) > maxQuestion {
		return fmt.Errorf("question longer than %d bytes", maxQuestion)
	}
	if q.Multi && len(q.Options) == 0 {
		return errors.New("a multi-select question needs options")
	}
	if len(q.Options) > MaxOptions {
		return fmt.Errorf("%d options; at most %d", len(q.Options), MaxOptions)
	}
	for i, o := range q.Options {
		if strings.TrimSpace(o) == "" {
			return fmt.Errorf("option %d is empty", i+1)
		}
		if len(o) > maxQuestion {
			return fmt.Errorf("option %d longer than %d bytes", i+1, maxQuestion)
		}
	}
	return nil
}

// Ask asks the questions in turn on the terminal. On an error (Ctrl+C:
// [gate.ErrCanceled]; no terminal: [gate.ErrNoApprover]) it returns the
// answers so far.
func (t *Terminal) Ask(ctx context.Context, qs ...Question) ([]Reply, error) {
	if len(qs) > MaxQuestions {
		return nil, fmt.Errorf("%d questions; at most %d at once", len(qs), MaxQuestions)
	}
	for i, q := range qs {
		if err := q.Validate(); err != nil {
			return nil, fmt.Errorf("question %d: %w", i+1, err)
		}
	}
	s, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	var replies []Reply
	for i, q := range qs {
		r, err := t.askOne(ctx, s, q, i, len(qs))
		if err != nil {
			return replies, err
		}
		replies = append(replies, r)
	}
	return replies, nil
}

func (t *Terminal) askOne(ctx context.Context, s *session, q Question, i, n int) (Reply, error) {
	var b []string
	title := "guard: a question from the agent"
	if q.Title != "" {
		title = q.Title
	}
	if n > 1 {
		title += fmt.Sprintf(" (%d of %d)", i+1, n)
	}
	b = append(b, t.paint(bold, title))
	if q.Body != "" {
		lines := escapeLines(q.Body)
		for j, l := range lines {
			if j == maxBodyLines {
				b = append(b, fmt.Sprintf("  … %d more lines not shown", len(lines)-j))
				break
			}
			b = append(b, "  "+cutRunes(l, maxLineShown))
		}
		b = append(b, "")
	}
	for _, l := range escapeLines(q.Text) {
		b = append(b, "  "+t.paint(bold, l))
	}
	for j, o := range q.Options {
		b = append(b, fmt.Sprintf("  %d) %s", j+1, escape(o)))
	}
	switch {
	case q.Multi:
		b = append(b, "  Choose one or more: numbers separated by commas (or type your own answer).")
	case len(q.Options) > 0:
		b = append(b, "  Type a number, or your own answer.")
	}
	b = append(b, "  Ctrl+C cancels.")
	if err := s.write(strings.Join(b, "\r\n") + "\r\n"); err != nil {
		return Reply{}, fmt.Errorf("writing to the terminal: %w", err)
	}
	for range maxAttempts {
		s.write(t.paint(bold, "answer> "))
		line, err := s.readLine(ctx)
		if errors.Is(err, errEOF) {
			return Reply{}, gate.ErrCanceled
		}
		if err != nil {
			return Reply{}, err
		}
		if r, ok := parseReply(q, line); ok {
			return r, nil
		}
		s.write("Please type an answer.\r\n")
	}
	return Reply{}, fmt.Errorf("no answer after %d tries", maxAttempts)
}

// parseReply turns a typed line into a reply: a number picks that option, a
// text equal to an option (ignoring case) picks it, anything else is the
// user's own answer. For a multi-select question each comma-separated part
// is read so, and a choice given twice counts once.
func parseReply(q Question, line string) (Reply, bool) {
	line = strings.TrimSpace(line)
	if line == "" {
		return Reply{}, false
	}
	r := Reply{Question: q.Text}
	pick := func(part string) (string, bool) {
		if n, err := strconv.Atoi(part); err == nil && n >= 1 && n <= len(q.Options) {
			return q.Options[n-1], true
		}
		for _, o := range q.Options {
			if strings.EqualFold(o, part) {
				return o, true
			}
		}
		return part, false
	}
	if !q.Multi {
		ans, ok := pick(line)
		r.Answer = ans
		if ok {
			r.Selected = []string{ans}
		}
		return r, true
	}
	var parts []string
	seen := map[string]bool{}
	for _, part := range strings.Split(line, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ans, _ := pick(part)
		if seen[ans] {
			continue
		}
		seen[ans] = true
		parts = append(parts, ans)
	}
	if len(parts) == 0 {
		return Reply{}, false
	}
	r.Selected = parts
	r.Answer = strings.Join(parts, ", ")
	return r, true
}

// The answers to a plan (seed APR-41).
const (
	PlanCarryOut     = "Yes, carry it out"
	PlanAcceptEdits  = "Yes, and accept its file edits without asking"
	PlanKeepPlanning = "No, keep planning"
)

// PlanQuestion is the question that submits a plan.
func PlanQuestion(plan string) Question {
	return Question{
		Title:   "guard: the agent asks you to approve its plan",
		Text:    "Approve this plan?",
		Options: []string{PlanCarryOut, PlanAcceptEdits, PlanKeepPlanning},
		Body:    plan,
	}
}

// PlanAnswer reads the reply to [PlanQuestion]: approved with the mode to
// carry the plan out in (default, or accept-edits), or not approved with
// the user's feedback ("" for "No, keep planning").
func PlanAnswer(r Reply) (approved bool, mode config.Mode, feedback string) {
	if len(r.Selected) == 1 {
		switch r.Selected[0] {
		case PlanCarryOut:
			return true, config.ModeDefault, ""
		case PlanAcceptEdits:
			return true, config.ModeAcceptEdits, ""
		case PlanKeepPlanning:
			return false, "", ""
		}
	}
	return false, "", r.Answer
}
