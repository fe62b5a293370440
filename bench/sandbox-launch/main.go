// Command sandbox-launch runs one command in guard's sandbox, without
// guard's gate: the benchmark's launcher (bench/sandbox) until guard exec
// exists, and a way to try a policy by hand.
//
//	sandbox-launch [--block PATH]... [--write PATH]... [--read-only PATH]...
//	               [--tmpdir] [--network] [--tcp PORT]... [--partial] -- PROGRAM [ARGS...]
//
// It exits with the command's status, or 71 when the sandbox cannot be set
// up. --export-bpf writes the policy's seccomp program to FILE (and, with no
// command, exits). --partial runs where part of the policy cannot be
// enforced.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/guard-sh/guard/sandbox"
)

func main() {
	// The launching thread gets ready while the arguments are read, as in
	// guard exec while it loads its settings.
	launcher := sandbox.Prepare()
	var p sandbox.Policy
	exportBPF := ""
	args := os.Args[1:]
	for len(args) > 0 && args[0] != "--" {
		flag := args[0]
		switch flag {
		case "--tmpdir":
			p.TempDir = true
			args = args[1:]
			continue
		case "--network":
			p.Network = true
			args = args[1:]
			continue
		case "--partial":
			p.AllowPartial = true
			args = args[1:]
			continue
		}
		if len(args) < 2 {
			usage("%s needs a value", flag)
		}
		v := args[1]
		args = args[2:]
		switch flag {
		case "--block":
			p.Blocked = append(p.Blocked, sandbox.BlockedPath{Path: v, Rule: "--block " + v})
		case "--write":
			p.Writable = append(p.Writable, v)
		case "--read-only":
			p.ReadOnly = append(p.ReadOnly, sandbox.ReadOnlyPath{Path: v, Kind: sandbox.Dir, Why: "--read-only"})
		case "--export-bpf":
			exportBPF = v
			continue
		case "--tcp":
			port, err := strconv.ParseUint(v, 10, 16)
			if err != nil {
				usage("--tcp %s: not a port", v)
			}
			p.TCPConnect = append(p.TCPConnect, uint16(port))
		default:
			usage("unknown flag %s", flag)
		}
	}
	if exportBPF != "" {
		launcher.Close()
		// The seccomp program of this policy, for bubblewrap's --seccomp.
		prog, err := sandbox.SeccompBPF(p)
		if err == nil {
			err = os.WriteFile(exportBPF, prog, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sandbox-launch:", err)
			os.Exit(71)
		}
		if len(args) < 2 {
			os.Exit(0)
		}
	}
	if len(args) < 2 {
		usage("no command")
	}
	proc, err := launcher.Start(p, sandbox.Command{Path: args[1], Args: args[1:]})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox-launch:", err)
		os.Exit(71)
	}
	status, err := proc.Wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox-launch:", err)
	}
	os.Exit(status)
}

func usage(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sandbox-launch: "+format+"\n", args...)
	fmt.Fprintln(os.Stderr, "usage: sandbox-launch [--block PATH]... [--write PATH]... [--read-only PATH]... [--tmpdir] [--network] [--tcp PORT]... [--partial] [--export-bpf FILE] -- PROGRAM [ARGS...]")
	os.Exit(64)
}
