package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/sandbox"
)

const explainMore = `
For the current settings and this machine: every read deny (and ask) rule and
how it is enforced (blocked by the kernel, with the paths, or at the gate only,
and why), then every part of the sandbox a command run here gets: blocked and
read-only paths, writable roots, network, system calls, signals. Bypass mode
needs every blocked path blocked by the kernel; what keeps it from running is
listed last.`

// sandboxExplain is guard sandbox explain.
func (a *app) sandboxExplain(args []string) int {
	var f execFlags
	fs := a.flagSet("sandbox explain", "sandbox explain [--json] [--workspace DIR] [--network on|off] [--allow-write DIR]", explainMore)
	f.common.register(fs)
	fs.StringVar(&f.network, "network", "", "as guard exec --network")
	fs.StringArrayVar(&f.allowWrite, "allow-write", nil, "as guard exec --allow-write")
	asJSON := fs.Bool("json", false, "print JSON")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("sandbox explain", "unexpected argument %q", fs.Arg(0))
	}
	s, code := a.loadSettings(&f.common, config.Flags{Network: f.network, AllowWrite: f.allowWrite})
	if s == nil {
		return code
	}
	j, code := a.newJudge(s, false)
	if j == nil {
		return code
	}
	policy, plan, code := a.sandboxPolicy(s, j, nil, f)
	if code != exitOK {
		return code
	}
	ex, err := sandbox.Explain(policy, sandbox.Probe())
	if err != nil {
		a.errorf("%v", err)
		return exitSandbox
	}
	if *asJSON {
		out := struct {
			Rules   []pathpolicy.RulePlan `json:"rules"`
			Sandbox sandbox.Explanation   `json:"sandbox"`
			Bypass  []string              `json:"bypass_missing"`
		}{plan.Rules, ex, bypassMissing(plan, ex)}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Workspace %s\n\n", s.Paths.Workspace)
	if len(plan.Rules) == 0 {
		fmt.Fprintln(a.stdout, "No read deny or ask rules: nothing is blocked beyond guard's defaults.")
	} else {
		fmt.Fprintln(a.stdout, "Read rules (no one can be asked inside the sandbox, so ask rules block too):")
		for _, r := range plan.Rules {
			fmt.Fprintf(a.stdout, "  %s %s  [%s, %s]\n    %s", r.Action, r.Rule, r.Source, r.Where, r.Enforcement)
			if len(r.Paths) > 0 {
				fmt.Fprintf(a.stdout, ": %s", strings.Join(r.Paths, ", "))
			}
			fmt.Fprintln(a.stdout)
			if r.Why != "" {
				fmt.Fprintf(a.stdout, "    %s\n", r.Why)
			}
		}
	}
	fmt.Fprintln(a.stdout, "\nThe sandbox of a command run here:")
	ex.WriteText(a.stdout)
	if m := bypassMissing(plan, ex); len(m) > 0 {
		fmt.Fprintf(a.stdout, "\nBypass mode is refused with these settings: %s\n", strings.Join(m, "; "))
	} else {
		fmt.Fprintln(a.stdout, "\nBypass mode may run here: every blocked path is blocked by the kernel.")
	}
	return exitOK
}
