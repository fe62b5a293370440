// Command guard runs AI agents' shell commands through a rule gate and an
// OS sandbox. See README.md for what it does and docs/ for each part.
//
// This package only wires: it reads flags, calls guard's packages and turns
// their answers into exit statuses. Each file holds the commands of one area.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Exit statuses of the contract.
const (
	exitOK      = 0
	exitRefused = 77 // a deny rule, the user, the mode, no one to ask
	exitUsage   = 64 // bad flags or arguments
	exitConfig  = 78 // a settings file that does not parse, a corrupt store
	exitSandbox = 71 // the sandbox could not be set up where it was required
	// guard check: the verdict itself.
	exitCheckAllow = 0
	exitCheckAsk   = 3
	exitCheckDeny  = 4
)

// app is what every command works with. Commands write to a.stdout and
// a.stderr, never to os.Stdout directly, so that output stays where the
// contract says (guard's own messages on stderr, prefixed "guard:").
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	args0  string
}

// command is an entry of the command table.
type command struct {
	name    string
	summary string
	run     func(a *app, args []string) int
}

// commandTable lists every command guard has, each area's from its own file.
func commandTable() []command {
	var all []command
	all = append(all, configCommands()...)
	all = append(all, gateCommands()...)
	all = append(all, checkCommands()...)
	all = append(all, sandboxCommands()...)
	all = append(all, execCommands()...)
	all = append(all, agentCommands()...)
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	return all
}

func main() {
	if handled, code := sandboxInit(); handled {
		os.Exit(code)
	}
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, args0: "guard"}
	os.Exit(a.main(os.Args[1:]))
}

func (a *app) main(args []string) int {
	if len(args) == 0 {
		a.help(a.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		a.help(a.stdout)
		return exitOK
	case "--version":
		args = []string{"version"}
	}
	for _, c := range commandTable() {
		if c.name == args[0] {
			return c.run(a, args[1:])
		}
	}
	a.errorf("unknown command %q; run 'guard --help' for the list", args[0])
	return exitUsage
}

func (a *app) help(w io.Writer) {
	fmt.Fprintln(w, "guard runs commands through a rule gate and an OS sandbox.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: guard COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commandTable() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'guard COMMAND --help' for a command's flags.")
}

// errorf prints one of guard's own messages on stderr.
func (a *app) errorf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "guard: "+format+"\n", args...)
}

// warnf prints a warning on stderr.
func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "guard: warning: "+format+"\n", args...)
}

// usageError reports a usage problem of a command: exit 64.
func (a *app) usageError(cmd string, format string, args ...any) int {
	a.errorf("%s: %s", cmd, fmt.Sprintf(format, args...))
	fmt.Fprintf(a.stderr, "Run 'guard %s --help' for usage.\n", cmd)
	return exitUsage
}

// flagSet makes the flag set of a command. usage is the synopsis shown by
// --help, and more (optional) the text after the flags.
func (a *app) flagSet(name, usage, more string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(a.stdout, "Usage: guard %s\n", usage)
		if fs.HasFlags() {
			fmt.Fprintln(a.stdout, "\nFlags:")
			fs.SetOutput(a.stdout)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
		if more != "" {
			fmt.Fprintln(a.stdout)
			fmt.Fprintln(a.stdout, strings.TrimSpace(more))
		}
	}
	return fs
}

// parse parses a command's flags. When it returns done, the command returns
// code at once: --help was shown (0) or the flags were wrong (64).
func (a *app) parse(fs *pflag.FlagSet, args []string) (done bool, code int) {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		return true, exitOK // pflag has shown fs.Usage already
	}
	if err != nil {
		return true, a.usageError(fs.Name(), "%v", err)
	}
	return false, 0
}

// subcommand dispatches "guard NAME SUB ..." to one of subs.
func (a *app) subcommand(name string, args []string, subs map[string]func(a *app, args []string) int, help string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := a.stdout
		code := exitOK
		if len(args) == 0 {
			w, code = a.stderr, exitUsage
		}
		fmt.Fprintln(w, strings.TrimSpace(help))
		return code
	}
	if run, ok := subs[args[0]]; ok {
		return run(a, args[1:])
	}
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	return a.usageError(name, "unknown subcommand %q (want %s)", args[0], strings.Join(names, ", "))
}
