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
	"time"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/gitconfig"
	"github.com/guard-sh/guard/sandbox"
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
// because the sandbox does not keep them read-only: they did not exist when
// it started (a read-only bind needs something to bind over), no mount
// namespace could be made, or there is no sandbox. After the command, it
// says what changed, in every mode: an approved command can still do more
// than the user read in it.
type watcher struct {
	before map[string]string
	// links are the watched paths that were symbolic links, and their
	// targets: a link cannot be bound read-only (a mount follows it), so
	// one the command changed is put back after it (see report).
	links map[string]string
	// gitMissing are the places git's configuration names (an included
	// file, a driver's program) that were not there: one the command
	// creates is moved aside after it, since git acts on it at once.
	gitMissing map[string]bool
	// roots are where the command could write, resolved: guard changes
	// nothing after the command (quarantine, restoreLink) outside them.
	roots []string
}

// resolved returns p with its directory's symbolic links resolved, when
// that directory lies inside the roots: a link the command left must not
// send guard, which runs as the user, to act elsewhere.
func (w *watcher) resolved(p string) (string, bool) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil || !insideAny(dir, w.roots) {
		return "", false
	}
	return filepath.Join(dir, filepath.Base(p)), true
}

// isLink reports whether p is a symbolic link.
func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// snapshot notes a watched path's state.
func (w *watcher) snapshot(p string) {
	w.before[p] = fingerprint(p)
	if t, err := os.Readlink(p); err == nil { // fails but for a link
		w.links[p] = t
	}
}

// watchSensitive snapshots the sensitive paths that the command could
// write (inside a writable root; anywhere in the workspace and the home
// without a sandbox) and that the kernel does not keep read-only.
func (a *app) watchSensitive(s *config.Settings, j *judge, policy sandbox.Policy, ex sandbox.Explanation, sandboxed bool) *watcher {
	roots := policy.Writable
	if !sandboxed {
		roots = []string{s.Paths.Workspace, s.Paths.Home}
	}
	kept := map[string]bool{}
	for _, it := range ex.Items {
		if it.What == "read-only" && it.Kernel {
			kept[it.Path] = true
		}
	}
	w := &watcher{before: map[string]string{}, links: map[string]string{}, gitMissing: map[string]bool{}}
	for _, r := range roots {
		if c, err := filepath.EvalSymlinks(r); err == nil {
			w.roots = append(w.roots, c)
		}
	}
	for _, l := range j.sensitivePaths() {
		switch {
		case !insideAny(l.Path, roots):
		case !l.Exists:
			// Most of the list is not there, as SensitivePaths just
			// found: no need to look again.
			w.before[l.Path] = ""
		case kept[l.Path] && !isLink(l.Path):
			// A symbolic link is watched even where its target is bound
			// read-only: the command could point it elsewhere.
		default:
			w.snapshot(l.Path)
		}
	}
	// A workspace whose .git is a symbolic link to the git directory: the
	// command could point it at one of its own.
	if dotGit := filepath.Join(s.Paths.Workspace, ".git"); insideAny(dotGit, roots) && isLink(dotGit) {
		w.snapshot(dotGit)
	}
	for _, gp := range j.gitConfigPlaces().places {
		if !insideAny(gp.Path, roots) {
			continue
		}
		if !kept[gp.Path] || isLink(gp.Path) {
			w.snapshot(gp.Path)
			if w.before[gp.Path] == "" && !gp.Dir {
				w.gitMissing[gp.Path] = true
			}
		}
	}
	return w
}

// makeGitDirs creates the directories of a workspace's .git that git makes
// on demand and runs code from (hooks; the submodules' and worktrees'
// git directories, with their own config and hooks), where .git is a
// directory that lacks them, and a hooks directory that git's
// configuration names (core.hooksPath) inside the workspace but that is
// not there: a missing directory cannot be bound read-only, so a command
// could otherwise create .git/hooks/pre-commit. Creating them changes
// nothing git does. An error is returned for the caller to warn of: the
// path is then only watched.
func makeGitDirs(workspace string, places []gitconfig.Place) error {
	var dirs []string
	git := filepath.Join(workspace, ".git")
	if fi, err := os.Lstat(git); err == nil && fi.IsDir() {
		for _, d := range []string{"hooks", "modules", "worktrees"} {
			dirs = append(dirs, filepath.Join(git, d))
		}
	}
	for _, p := range places {
		if p.Dir && p.Hooks && insideAny(p.Path, []string{workspace}) {
			dirs = append(dirs, p.Path)
		}
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if _, err := os.Lstat(d); err == nil {
			continue
		}
		// Only the last component, in a directory that really is inside
		// the workspace: a hooks path under a directory that is not there
		// is left to the watch, not invented, and one under a symbolic
		// link an earlier command left (tools -> ~/.config) is not
		// followed out of the workspace.
		parent, err := filepath.EvalSymlinks(filepath.Dir(d))
		if err != nil || !insideAny(parent, []string{ws}) {
			continue
		}
		if err := os.Mkdir(filepath.Join(parent, filepath.Base(d)), 0o755); err != nil && !os.IsExist(err) && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
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
	for p, was := range w.before {
		if was == "" && (isMainCommonDir(p) || w.gitMissing[p]) && fingerprint(p) != "" {
			w.quarantine(a, p)
		}
	}
	for p, target := range w.links {
		if fingerprint(p) != w.before[p] {
			w.restoreLink(a, p, target)
		}
	}
}

// restoreLink puts back a symbolic link the command changed or removed
// (.git/hooks -> ../scripts/hooks, re-pointed at a directory of the
// command's): what is there now is moved aside, not lost.
func (w *watcher) restoreLink(a *app, p, target string) {
	real, ok := w.resolved(p)
	if !ok {
		a.warnf("the link %s -> %s was changed and its directory now leads out of the workspace: restore it before you use the workspace", p, target)
		return
	}
	p = real
	if _, err := os.Lstat(p); err == nil {
		aside := fmt.Sprintf("%s.guard-quarantined-%d", p, time.Now().Unix())
		if err := os.Rename(p, aside); err != nil {
			a.warnf("could not put back the link %s -> %s (%v): restore it before you use the workspace", p, target, err)
			return
		}
		a.warnf("moved what the command put at %s to %s", p, aside)
	}
	if err := os.Symlink(target, p); err != nil {
		a.warnf("could not put back the link %s -> %s (%v): restore it before you use the workspace", p, target, err)
		return
	}
	a.warnf("put back the link %s -> %s", p, target)
}

// isMainCommonDir reports whether p is the commondir file of a main
// repository's .git: git writes one only in a linked worktree's own git
// directory (.git/worktrees/NAME/commondir), and one in .git itself sends
// every git command in the repository to the configuration and hooks of
// another directory.
func isMainCommonDir(p string) bool {
	if filepath.Base(p) != "commondir" || filepath.Base(filepath.Dir(p)) != ".git" {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && !fi.IsDir()
}

// quarantine moves aside a file the command created that git would act on
// at once (.git/commondir; a file git's configuration includes or runs),
// so that the user's next git command, outside the sandbox, does not run
// what it leads to. Nothing is lost: the file keeps its content under
// another name.
func (w *watcher) quarantine(a *app, p string) {
	real, ok := w.resolved(p)
	if !ok {
		a.warnf("%s was created and its directory leads out of the workspace: remove it before you run git here, git would act on it", p)
		return
	}
	p = real
	aside := fmt.Sprintf("%s.guard-quarantined-%d", p, time.Now().Unix())
	if err := os.Rename(p, aside); err != nil {
		a.warnf("could not move %s aside (%v): remove it before you run git here, git would act on it", p, err)
		return
	}
	a.warnf("moved %s to %s: git would have acted on it (configuration or a program it runs), outside any sandbox", p, aside)
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
		// Not blocking, not following: what was a file at the lstat may
		// be a named pipe or a link by now.
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
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
