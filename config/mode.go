package config

import (
	"fmt"
	"strings"
)

// Mode is a permission mode: what happens to a request that no rule decides.
type Mode string

// The permission modes of seed APR-14.
const (
	ModeDefault     Mode = "default"      // ask the user
	ModeAcceptEdits Mode = "accept-edits" // allow writes and deletes inside the writable roots
	ModeAuto        Mode = "auto"         // ask the reviewer, then the user
	ModePlan        Mode = "plan"         // refuse whatever is not read-only
	ModeDontAsk     Mode = "dont-ask"     // refuse whatever would ask
	ModeBypass      Mode = "bypass"       // allow whatever would ask; only under an enforced sandbox
)

// Modes lists the modes in the order they are documented.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModeAuto, ModePlan, ModeDontAsk, ModeBypass}

// ParseMode reads a mode name in guard's spelling or Claude Code's
// (acceptEdits, dontAsk, bypassPermissions).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "default":
		return ModeDefault, nil
	case "accept-edits", "acceptEdits":
		return ModeAcceptEdits, nil
	case "auto":
		return ModeAuto, nil
	case "plan":
		return ModePlan, nil
	case "dont-ask", "dontAsk":
		return ModeDontAsk, nil
	case "bypass", "bypassPermissions":
		return ModeBypass, nil
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown permission mode %q (want one of %s)", s, strings.Join(names, ", "))
}

// strictness orders modes by how much they let through without asking, so
// that a managed mode can be a floor no other source goes below.
func (m Mode) strictness() int {
	switch m {
	case ModeBypass:
		return 0
	case ModeAcceptEdits:
		return 1
	case ModeAuto:
		return 2
	case ModeDefault:
		return 3
	}
	return 4 // plan, dont-ask
}

// AtLeastAsStrict reports whether m lets through no more than floor does.
func (m Mode) AtLeastAsStrict(floor Mode) bool { return m.strictness() >= floor.strictness() }
