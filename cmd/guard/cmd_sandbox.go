package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/guard-sh/guard/sandbox"
)

// version is guard's version, set at build time with
// -ldflags "-X main.version=v1.2.3"; otherwise the module's version when
// built by "go install", else "dev".
var version = ""

func sandboxCommands() []command {
	return []command{
		{name: "sandbox", summary: "what the kernel offers the sandbox, and how each rule is enforced", run: (*app).sandboxCmd},
		{name: "version", summary: "guard's version, and the Landlock ABI and seccomp support found", run: (*app).versionCmd},
	}
}

// sandboxInit runs before anything else in main. guard needs no init step
// of its own: the sandbox confines one thread of guard and starts the
// command from it, and the user namespace of an unprivileged guard exec is
// made by a constructor before the Go runtime starts (sandbox/userns_linux.c).
// It returns handled=false in every run.
func sandboxInit() (handled bool, code int) { return false, 0 }

const sandboxHelp = `
Usage: guard sandbox SUBCOMMAND [flags]

Subcommands:
  status   what this kernel offers (Landlock ABI, seccomp, namespaces),
           which of the sandbox's promises it keeps, and whether bypass
           mode can run here
  explain  for the current settings: how each deny rule and protected
           path is enforced here, by the kernel or at the gate only

Run 'guard sandbox SUBCOMMAND --help' for its flags.
`

func (a *app) sandboxCmd(args []string) int {
	return a.subcommand("sandbox", args, map[string]func(*app, []string) int{
		"status":  (*app).sandboxStatus,
		"explain": (*app).sandboxExplain,
	}, sandboxHelp)
}

func (a *app) sandboxStatus(args []string) int {
	fs := a.flagSet("sandbox status", "sandbox status [--json]", `
Landlock confines the file system, TCP and signals; seccomp refuses the
system calls that go around it; a mount namespace (as root, or inside a
user namespace) keeps paths inside the workspace read-only or hidden.
Bypass mode needs Landlock ABI 4 or later and seccomp. See docs/sandbox.md.`)
	asJSON := fs.Bool("json", false, "print JSON")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("sandbox status", "unexpected argument %q", fs.Arg(0))
	}
	s := sandbox.Probe()
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			a.errorf("sandbox status: %v", err)
			return exitSandbox
		}
		return exitOK
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "kernel:\t%s (%s)\n", s.Kernel, s.Arch)
	fmt.Fprintf(w, "Landlock:\t%s\n", landlockText(s.Landlock))
	fmt.Fprintf(w, "seccomp:\t%s\n", availability(s.Seccomp.Available, "libseccomp "+s.Seccomp.Library, s.Seccomp.Error))
	fmt.Fprintf(w, "mount namespace:\t%s\n", availability(s.MountNamespace.Available, s.MountNamespace.How, s.MountNamespace.Error))
	fmt.Fprintf(w, "user namespace:\t%s\n", availability(s.UserNamespace.Available, s.UserNamespace.How, s.UserNamespace.Error))
	if s.Bypass.Possible {
		fmt.Fprintf(w, "bypass mode:\tpossible\n")
	} else {
		fmt.Fprintf(w, "bypass mode:\trefused: needs %s\n", strings.Join(s.Bypass.Missing, "; "))
	}
	w.Flush()
	fmt.Fprintln(a.stdout, "\nWhat the sandbox promises, and whether this machine keeps it:")
	w = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, f := range s.Features {
		mark, by := "yes", f.By
		if !f.Provided {
			mark, by = "NO", "needs "+f.Missing
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", mark, f.Name, by)
	}
	w.Flush()
	return exitOK
}

func landlockText(l sandbox.LandlockStatus) string {
	if l.ABI == 0 {
		return "no: " + l.Error
	}
	s := fmt.Sprintf("ABI %d", l.ABI)
	if l.ABI >= 6 && !l.SignalScope {
		s += " (signal scoping off: the kernel lacks the fix of erratum 2)"
	}
	return s
}

func availability(ok bool, how, why string) string {
	if !ok {
		return "no: " + why
	}
	if how == "" {
		return "yes"
	}
	return "yes (" + how + ")"
}

// guardVersion is the version guard reports.
func guardVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func (a *app) versionCmd(args []string) int {
	fs := a.flagSet("version", "version", "")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("version", "unexpected argument %q", fs.Arg(0))
	}
	s := sandbox.Probe()
	fmt.Fprintf(a.stdout, "guard %s (%s, %s/%s)\n", guardVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(a.stdout, "Landlock: %s\n", landlockText(s.Landlock))
	fmt.Fprintf(a.stdout, "seccomp: %s\n", availability(s.Seccomp.Available, "libseccomp "+s.Seccomp.Library, s.Seccomp.Error))
	return exitOK
}
