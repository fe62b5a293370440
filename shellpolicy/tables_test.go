package shellpolicy

import (
	"testing"

	"github.com/guard-sh/guard/rule"
)

// The tables are laid out by the compiler and joined on first use rather
// than built when the package starts. These tests hold what that asks of
// them: what the code once derived is written out consistently.

// TestReadOnlyTableWellFormed: each default's pattern is its name and
// subcommand followed by " *", and the entries of one command are together
// (the command index takes them as one run of the table).
func TestReadOnlyTableWellFormed(t *testing.T) {
	seen := map[string]int{}
	for i, e := range readOnlyTable {
		want := e.name + " *"
		if e.sub != "" {
			want = e.name + " " + e.sub + " *"
		}
		if e.Pattern != want {
			t.Errorf("%s: pattern %q, want %q", e.name, e.Pattern, want)
		}
		if j, ok := seen[e.name]; ok && j != i-1 {
			t.Errorf("the entries of %s are apart (%d and %d)", e.name, j, i)
		}
		seen[e.name] = i
	}
}

// TestSpecialReadOnlyWritten: the read-only defaults that are not commands
// carry their rule's text written out.
func TestSpecialReadOnlyWritten(t *testing.T) {
	for _, e := range []*roEntry{&roAssign, &roDecl, &roTest, &roArith} {
		if e.written != "shell("+e.Pattern+")" {
			t.Errorf("%s is written %q", e.Pattern, e.written)
		}
		r := e.allowRule()
		if want := builtinRule(rule.Allow, e.Pattern, e.Why); r != want {
			t.Errorf("%s: rule %+v, want %+v", e.Pattern, r, want)
		}
	}
	for _, e := range indexedReadOnly() {
		if r, want := e.allowRule(), builtinRule(rule.Allow, e.Pattern, e.Why); r != want {
			t.Errorf("%s: rule %+v, want %+v", e.Pattern, r, want)
		}
	}
}

// TestGuardTableWellFormed: every guard id names a guard of its own.
func TestGuardTableWellFormed(t *testing.T) {
	ids := map[string]bool{}
	for id := guardID(0); id < guardCount; id++ {
		g := id.guard()
		if g.ID == "" || ids[g.ID] {
			t.Errorf("guard %d: id %q is empty or taken", id, g.ID)
		}
		ids[g.ID] = true
	}
}

// TestCommandIndex: the index holds every table's entry under its name,
// and a name given by path finds the entry of its base name, but not as a
// builtin.
func TestCommandIndex(t *testing.T) {
	for i := range builtinTable {
		if lookupCommand(builtinTable[i].name).builtin != &builtinTable[i] {
			t.Errorf("builtin %s not indexed", builtinTable[i].name)
		}
		if lookupCommand("/bin/"+builtinTable[i].name).builtin != nil {
			t.Errorf("/bin/%s found as a builtin", builtinTable[i].name)
		}
	}
	for i := range wrapperTable {
		ws := &wrapperTable[i]
		ci := lookupCommand(ws.Name)
		if ci.wrapper != ws || lookupCommand("/usr/bin/"+ws.Name).wrapper != ws {
			t.Errorf("wrapper %s not indexed", ws.Name)
		}
		if ws.ReadOnly != (ci.wrapperRO != nil) || ws.ReadOnly && (ci.wrapperRO.Pattern != ws.Name+" *" || ci.wrapperRO.Why != ws.Why ||
			ci.wrapperRO.written != "shell("+ws.Name+" *)" || ci.wrapperRO.name != ws.Name) {
			t.Errorf("wrapper %s: read-only default %+v", ws.Name, ci.wrapperRO)
		}
		if ws.ReadOnly != (wrapperReadOnlyOf(ws.Name) != nil) {
			t.Errorf("wrapperReadOnlyOf(%s) = %v", ws.Name, wrapperReadOnlyOf(ws.Name))
		}
	}
	for i := range fileTable {
		if lookupCommand(fileTable[i].name).files != &fileTable[i] {
			t.Errorf("file command %s not indexed", fileTable[i].name)
		}
	}
	for i := range readOnlyTable {
		e := &readOnlyTable[i]
		found := false
		for _, x := range lookupCommand(e.name).readOnly {
			if x.ReadOnlyCommand == e {
				found = true
				if x.written != "shell("+e.Pattern+")" {
					t.Errorf("%s: its rule is written %q", e.Pattern, x.written)
				}
				if (len(e.guards) > 0) != (x.filter != nil) || x.filter != nil && *x.filter != newGuardFilter(e.guards) {
					t.Errorf("%s: filter %v, want that of its guards", e.Pattern, x.filter)
				}
			}
		}
		if !found {
			t.Errorf("read-only default %s not indexed", e.Pattern)
		}
	}
	for i := range globalOptionTable {
		if lookupCommand(globalOptionTable[i].name).global != globalOptionTable[i].spec {
			t.Errorf("global options of %s not indexed", globalOptionTable[i].name)
		}
	}
	if ci := lookupCommand("no-such-command"); ci.builtin != nil || ci.wrapper != nil || ci.files != nil || ci.readOnly != nil || ci.wrapperRO != nil || ci.global != nil {
		t.Errorf("an unknown name has info %+v", ci)
	}
	if wrapperReadOnlyOf("") != nil || wrapperReadOnlyOf("ls") != nil {
		t.Error("a read-only default for no wrapper")
	}
}
