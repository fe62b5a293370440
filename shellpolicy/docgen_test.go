package shellpolicy

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// docTables renders the tables of docs/shellpolicy.md from the code.
func docTables() string {
	var b strings.Builder
	b.WriteString("### Read-only defaults\n\n| rule | why |\n|---|---|\n")
	for _, e := range ReadOnlyCommands() {
		fmt.Fprintf(&b, "| `shell(%s)` | %s |\n", strings.ReplaceAll(e.Pattern, "|", `\|`), e.Why)
	}
	b.WriteString("\n### Guards\n\n| guard | shown as | why |\n|---|---|---|\n")
	for _, g := range Guards() {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", g.ID, strings.ReplaceAll(g.Pattern, "|", `\|`), g.Why)
	}
	b.WriteString("\n### Commands that run commands\n\n| command | how it passes on its command | read-only when its command is |\n|---|---|---|\n")
	for _, w := range Wrappers() {
		ro := "no: " + w.Why
		if w.ReadOnly {
			ro = "yes: " + w.Why
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", w.Name, w.How, ro)
	}
	return b.String()
}

// TestDocsListTables keeps docs/shellpolicy.md in step with the tables:
// every read-only default, guard, wrapper and limit must be in it.
func TestDocsListTables(t *testing.T) {
	if os.Getenv("PRINT_DOC_TABLES") != "" {
		fmt.Print(docTables())
		return
	}
	doc, err := os.ReadFile("../docs/shellpolicy.md")
	if err != nil {
		t.Skipf("docs not found: %v", err)
	}
	text := string(doc)
	if !strings.Contains(text, docTables()) {
		t.Errorf("docs/shellpolicy.md does not hold the current tables; regenerate them with PRINT_DOC_TABLES=1 go test -run TestDocsListTables ./shellpolicy")
	}
	for _, want := range []string{
		fmt.Sprint(MaxInputBytes), fmt.Sprint(MaxSegments), fmt.Sprint(MaxDepth), fmt.Sprint(MaxNestedBytes),
		ReasonRuleDeny, ReasonRuleAsk, ReasonRuleAllow, ReasonReadOnly, ReasonNoRule, ReasonReadOnlyGuard,
		ReasonRedirectWrite, ReasonUnverifiable, ReasonParseError, ReasonControlCharacter, ReasonLimit,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/shellpolicy.md does not mention %s", want)
		}
	}
}
