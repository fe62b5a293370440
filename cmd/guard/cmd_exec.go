package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/sandbox"
)

func execCommands() []command { return nil }

// defaultShell is the shell exec -c runs a string with: bash, else sh.
func defaultShell() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// shellDialect is how shellpolicy must read a string the given shell runs:
// bash's own reading for bash, POSIX sh for the others.
func shellDialect(shell string) string {
	if strings.Contains(filepath.Base(shell), "bash") {
		return ""
	}
	return "sh"
}

// sandboxEnforced says whether a command run now would be under a sandbox
// that bypass may rely on, and if not, what is missing.
func (a *app) sandboxEnforced(s *config.Settings) (bool, string) {
	st := sandbox.Probe()
	if !st.Bypass.Possible {
		return false, strings.Join(st.Bypass.Missing, "; ")
	}
	return true, ""
}
