package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gate"
)

// watchMaxHash bounds how much of a sensitive file is hashed to notice a
// change: these are small configuration files, and a larger one is compared
// by size and modification time only.
const watchMaxHash = 1 << 20

// watchMaxEntries bounds the entries listed of a sensitive directory
// (.git/hooks, .vscode): past it, the directory is compared by its own
// modification time.
const watchMaxEntries = 256

// watcher remembers the state of the sensitive paths a command could change
// although the sandbox does not keep them read-only (they did not exist
// when it started, or no mount namespace could be made), so that a run in
// bypass or accept-edits can say what changed.
type watcher struct {
	before map[string]string
}

// watchSensitive snapshots the sensitive paths inside the workspace, when
// the mode let the command through without the user seeing it.
func (a *app) watchSensitive(s *config.Settings, j *judge, d gate.Decision) *watcher {
	if d.Mode != config.ModeBypass && d.Mode != config.ModeAcceptEdits {
		return nil
	}
	w := &watcher{before: map[string]string{}}
	for _, l := range j.paths.SensitivePaths() {
		if insideAny(l.Path, []string{s.Paths.Workspace}) {
			w.before[l.Path] = fingerprint(l.Path)
		}
	}
	return w
}

// report prints, on stderr, each watched path that changed.
func (w *watcher) report(a *app) {
	if w == nil {
		return
	}
	var changed []string
	for p, was := range w.before {
		now := fingerprint(p)
		switch {
		case was == now:
		case was == "":
			changed = append(changed, p+" (created)")
		case now == "":
			changed = append(changed, p+" (removed)")
		default:
			changed = append(changed, p+" (changed)")
		}
	}
	sort.Strings(changed)
	for _, c := range changed {
		a.warnf("the command changed %s: such a file runs code later, outside any sandbox; review it before you use the workspace", c)
	}
}

// fingerprint is a path's state: "" when it is not there.
func fingerprint(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	fp := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
	switch {
	case fi.Mode().IsRegular() && fi.Size() <= watchMaxHash:
		f, err := os.Open(p)
		if err == nil {
			h := sha256.New()
			io.Copy(h, f)
			f.Close()
			fp += fmt.Sprintf(" %x", h.Sum(nil))
		}
	case fi.Mode()&os.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		fp += " -> " + t
	case fi.IsDir():
		entries, _ := os.ReadDir(p)
		if len(entries) <= watchMaxEntries {
			for _, e := range entries {
				fp += " " + e.Name() + "=" + fingerprint(filepath.Join(p, e.Name()))
			}
		}
	}
	return fp
}

// runForwarding runs cmd, passing guard's signals on to it, and returns its
// exit status (128+N for signal N).
func runForwarding(a *app, cmd *exec.Cmd) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		a.errorf("could not start %s: %v", cmd.Path, err)
		return 126
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	a.errorf("%v", err)
	return 1
}
