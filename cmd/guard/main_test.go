package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the guard command inside scripts: each
// "exec guard ..." line in testdata/script runs main in a real process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"guard": main,
	})
}

// TestScripts runs the terminal sessions in testdata/script, one behaviour
// per file. Each runs with its own empty home, config and state directories.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			for _, d := range []string{home, filepath.Join(home, ".config"), filepath.Join(home, ".local", "state")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					return err
				}
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("GUARD_MANAGED_SETTINGS", filepath.Join(env.WorkDir, "managed.toml"))
			env.Setenv("GUARD_SESSION", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits runs a command and checks its exact exit status, which the
// contract fixes (64 usage, 77 refused, 78 configuration, ...):
//
//	exits 77 guard exec -- rm -rf /
//
// Its stdout and stderr are then checked as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
