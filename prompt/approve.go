package prompt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/gate"
)

// detailNames says what a request's detail is, per kind, for the prompt.
var detailNames = map[gate.Kind]string{
	gate.RunCommand: "command",
	gate.ReadFile:   "read",
	gate.WriteFile:  "write",
	gate.DeleteFile: "delete",
	gate.Network:    "host",
	gate.MCPTool:    "MCP tool",
}

// Approve asks the person at the terminal about a request (seed APR-30): y
// once, s this session, a always, n no (n REASON says why). Ctrl+C cancels
// the whole command ([gate.ErrCanceled]); with no terminal it returns an
// error wrapping [gate.ErrNoApprover].
func (t *Terminal) Approve(ctx context.Context, p gate.Prompt) (gate.Answer, error) {
	s, err := t.open(ctx)
	if err != nil {
		return gate.Answer{}, err
	}
	defer s.close()
	if err := s.write(t.renderApproval(p)); err != nil {
		return gate.Answer{}, fmt.Errorf("writing to the terminal: %w", err)
	}
	for range maxAttempts {
		s.write(t.paint(bold, "answer> "))
		line, err := s.readLine(ctx)
		switch {
		case errors.Is(err, errEOF):
			// Ctrl+D: the person left without approving.
			return gate.Answer{Choice: gate.No, Reason: "no answer (end of input)"}, nil
		case err != nil:
			return gate.Answer{}, err
		}
		if ans, ok := parseAnswer(line, p); ok {
			return ans, nil
		}
		s.write(fmt.Sprintf("Please answer %s.\r\n", choiceList(p)))
	}
	return gate.Answer{}, fmt.Errorf("no valid answer after %d tries", maxAttempts)
}

// parseAnswer reads "y", "yes", "s", "a", "n", "no", "n REASON", "n: REASON".
// An answer that was not offered is not an answer.
func parseAnswer(line string, p gate.Prompt) (gate.Answer, bool) {
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	if i := strings.IndexByte(word, ':'); i >= 0 {
		word, rest = word[:i], line[i+1:]
	}
	word = strings.ToLower(word)
	var c gate.Choice
	switch word {
	case "y", "yes":
		c = gate.Once
	case "s", "session":
		c = gate.Session
	case "a", "always":
		c = gate.Always
	case "n", "no":
		return gate.Answer{Choice: gate.No, Reason: strings.TrimSpace(rest)}, p.Offers(gate.No)
	default:
		return gate.Answer{}, false
	}
	if strings.TrimSpace(rest) != "" {
		return gate.Answer{}, false // "y please" is not a clear yes
	}
	return gate.Answer{Choice: c}, p.Offers(c)
}

func choiceList(p gate.Prompt) string {
	var names []string
	for _, c := range p.Choices {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

// renderApproval is the whole prompt, in terminal line endings.
func (t *Terminal) renderApproval(p gate.Prompt) string {
	req := p.Request
	var b []string
	add := func(s string) { b = append(b, s) }
	add(t.paint(bold, "guard: approval needed"))
	if req.Tool != "" {
		add("  tool:    " + escape(req.Tool))
	}
	name := detailNames[req.Kind]
	lines := escapeLines(cutRunes(req.Detail, maxDetailShown))
	add(fmt.Sprintf("  %-8s %s", name+":", t.paint(bold, lines[0])))
	for _, l := range lines[1:] {
		add("           " + t.paint(bold, l))
	}
	if len(req.Rules.Details) > 0 {
		add("  needs approval:")
		for i, d := range req.Rules.Details {
			if i == maxTargetsShown {
				add(fmt.Sprintf("    … %d more not shown", len(req.Rules.Details)-i))
				break
			}
			add("    - " + escape(cutRunes(d, maxLineShown)))
		}
	}
	if p.Why != "" {
		add("  why:     " + escape(cutRunes(p.Why, maxLineShown)))
	}
	if req.Workspace != "" {
		add("  in:      " + escape(req.Workspace))
	}
	add("  mode:    " + string(p.Mode))
	if req.Diff != "" {
		add("  diff:")
		for _, l := range t.diff(req.Diff) {
			add("    " + l)
		}
	}
	for _, c := range p.Choices {
		switch c {
		case gate.Once:
			add("  " + t.paint(green, "y") + "  allow once")
		case gate.Session:
			add("  " + t.paint(green, "s") + "  allow for " + escape(p.SessionScope))
		case gate.Always:
			add("  " + t.paint(green, "a") + "  always allow " + escape(req.KeyLabel) + " (saved; 'guard approvals' lists and revokes)")
		case gate.No:
			add("  " + t.paint(red, "n") + "  refuse (n REASON tells the agent why)")
		}
	}
	if !p.Offers(gate.Session) && !p.Offers(gate.Always) && req.Key != "" {
		add("  (this must be asked every time: an ask rule or a hook requires it)")
	}
	add("  Ctrl+C cancels the whole command.")
	return strings.Join(b, "\r\n") + "\r\n"
}
