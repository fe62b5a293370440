package claudecode

import "github.com/guard-sh/guard/config"

// tightens maps Claude Code's permission modes onto the guard mode each
// one tightens guard's to. Only modes that let less through than default
// are here: Claude Code's mode may make guard stricter, never looser.
//
//   - acceptEdits is left out: a repository's .claude/settings.json can set
//     it, and guard's own settings decide whether edits are accepted
//     (guard mode accept-edits).
//   - bypassPermissions is left out: guard's bypass is safe only under
//     guard's sandbox, and Claude Code's tools do not run under it.
//   - auto is left out: Claude Code's classifier is not guard's reviewer.
var tightens = map[string]config.Mode{
	"plan":     config.ModePlan,    // Claude Code is planning: refuse what is not read-only
	"dontAsk":  config.ModeDontAsk, // Claude Code refuses what would ask: so does guard
	"dont-ask": config.ModeDontAsk,
}

// rank orders modes by what they let through without a person: a higher
// rank lets through less. dont-ask is above plan: plan still asks about a
// read no rule allows, dont-ask refuses it.
var rank = map[config.Mode]int{
	config.ModeBypass:      0,
	config.ModeAcceptEdits: 1,
	config.ModeAuto:        2,
	config.ModeDefault:     3,
	config.ModePlan:        4,
	config.ModeDontAsk:     5,
}

// EffectiveMode is the mode guard judges a hook call in: guard's own, or
// Claude Code's permission_mode where that is stricter. changed says the
// permission_mode decided.
func EffectiveMode(guard config.Mode, permissionMode string) (m config.Mode, changed bool) {
	t, ok := tightens[permissionMode]
	if !ok {
		return guard, false
	}
	g, known := rank[guard]
	if known && rank[t] <= g {
		return guard, false
	}
	return t, true
}
