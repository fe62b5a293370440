package config

import (
	"sort"
	"strings"
)

// schema lists every table guard reads and the keys it knows in each, so
// that any other key draws a warning: a misspelt security setting must not
// pass silently. "hooks.pre_tool_use[]" is an element of the array of tables.
var schema = map[string][]string{
	"":                     {"guard", "permissions", "sandbox", "tools", "unattended", "hooks", "ui"},
	"guard":                {"permission_mode", "auto_approve", "disable_bypass"},
	"permissions":          {"allow", "ask", "deny", "read_only_defaults", "auto"},
	"permissions.auto":     {"command", "timeout", "environment"},
	"sandbox":              {"network", "allow_network_for", "allow_tcp_connect", "allow_write", "allow_unix_sockets", "share_caches", "env_deny", "env_keep"},
	"sandbox.path":         {"path", "dangerous"}, // an entry of allow_write or allow_unix_sockets
	"tools":                {"auto_approve_commands"},
	"unattended":           {"permissions"},
	"hooks":                {"pre_tool_use"},
	"hooks.pre_tool_use[]": {"command", "timeout"},
	"ui":                   {"diff_lines"},
}

// foreignKeys are names from Claude Code's settings.json that people carry
// over by hand, with where guard keeps the same thing.
var foreignKeys = map[string]string{
	"defaultMode":                  "[guard] permission_mode",
	"additionalDirectories":        "[sandbox] allow_write",
	"allowedTools":                 "[permissions] allow",
	"disallowedTools":              "[permissions] deny",
	"disableBypassPermissionsMode": "[guard] disable_bypass (managed settings only)",
	"hooks.PreToolUse":             "[[hooks.pre_tool_use]]",
	"mode":                         "[guard] permission_mode",
}

// suggest returns a hint for an unknown key in table ("" for the top
// level): the known key it is probably a misspelling of, or the table where
// a key of that name belongs.
func suggest(table, key string) string {
	if hint, ok := foreignKeys[key]; ok {
		return "guard's setting is " + hint
	}
	if hint, ok := foreignKeys[strings.TrimPrefix(table+"."+key, ".")]; ok {
		return "guard's setting is " + hint
	}
	best, bestDist := "", 1<<30
	for _, k := range schema[table] {
		d := editDistance(strings.ToLower(key), strings.ToLower(k))
		if d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" && bestDist <= closeEnough(key) {
		return "did you mean " + best + "?"
	}
	// The right name in the wrong table.
	var homes []string
	for t, keys := range schema {
		if t == table || strings.HasSuffix(t, "[]") || t == "sandbox.path" {
			continue
		}
		for _, k := range keys {
			if k == key {
				homes = append(homes, tableName(t))
			}
		}
	}
	if len(homes) > 0 {
		sort.Strings(homes)
		return key + " belongs in " + strings.Join(homes, " or ")
	}
	return ""
}

func tableName(t string) string {
	if t == "" {
		return "the top level"
	}
	return "[" + t + "]"
}

// closeEnough is how many edits still make a name a likely misspelling.
func closeEnough(s string) int {
	switch {
	case len(s) <= 3:
		return 1
	case len(s) <= 8:
		return 2
	}
	return 3
}

// editDistance is the Levenshtein distance, with a swap of two neighbours
// counted as one edit (the commonest typo).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20 // names that long are not misspellings of ours
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
