package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/pathpolicy"
	"github.com/guard-sh/guard/sandbox"
	"github.com/guard-sh/guard/toolchain"
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
	policy, plan, caches, code := a.sandboxPolicy(s, j, nil, f)
	if code != exitOK {
		return code
	}
	ex, err := sandbox.Explain(policy, sandbox.Probe())
	if err != nil {
		a.errorf("%v", err)
		return exitSandbox
	}
	var networkFor []string
	for _, r := range s.Sandbox.NetworkFor {
		networkFor = append(networkFor, r.String())
	}
	if *asJSON {
		out := struct {
			Rules      []pathpolicy.RulePlan `json:"rules"`
			Sandbox    sandbox.Explanation   `json:"sandbox"`
			Caches     []toolchain.Cache     `json:"caches"`
			NetworkFor []string              `json:"network_for,omitempty"`
			Bypass     []string              `json:"bypass_missing"`
		}{plan.Rules, ex, nil, networkFor, bypassMissing(plan, ex)}
		if caches != nil {
			out.Caches = caches.Caches
		}
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
	if len(networkFor) > 0 {
		fmt.Fprintf(a.stdout, "\nNetwork on for these commands only (every part of the command must match one, or only read): %s\n", strings.Join(networkFor, ", "))
	}
	a.explainCaches(s, caches)
	if m := bypassMissing(plan, ex); len(m) > 0 {
		fmt.Fprintf(a.stdout, "\nBypass mode is refused with these settings: %s\n", strings.Join(m, "; "))
	} else {
		fmt.Fprintln(a.stdout, "\nBypass mode may run here: every blocked path is blocked by the kernel.")
	}
	return exitOK
}

// explainCaches says where the command's toolchains keep their caches.
func (a *app) explainCaches(s *config.Settings, caches *toolchain.Plan) {
	if caches == nil {
		fmt.Fprintln(a.stdout, "\nToolchain caches: off (a read rule blocks guard's cache directory); the toolchains find the user's own, read-only.")
		return
	}
	if s.Sandbox.ShareCaches {
		fmt.Fprintln(a.stdout, "\nToolchain caches: the user's own, writable (share_caches = true). A command can plant a compiled")
		fmt.Fprintln(a.stdout, "package, module or crate there that builds outside the sandbox use: code execution later, outside it.")
	} else {
		fmt.Fprintf(a.stdout, "\nToolchain caches: the workspace's own, in %s (no other workspace's command sees them);\nthe user's own are read, never written:\n", caches.Dir)
	}
	for _, c := range caches.Caches {
		line := fmt.Sprintf("  %-17s %s", c.Var, c.Path)
		if c.ReadOnly != "" {
			line += "  (then " + c.ReadOnly + ", read-only)"
		}
		fmt.Fprintln(a.stdout, line)
	}
}
