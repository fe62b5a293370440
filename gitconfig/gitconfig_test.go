package gitconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree is a home and a repository in a temp dir.
type tree struct {
	root, home, repo string
}

func newTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	tr := tree{root: root, home: filepath.Join(root, "home"), repo: filepath.Join(root, "home", "proj")}
	for _, d := range []string{tr.home, filepath.Join(tr.repo, ".git", "hooks"), filepath.Join(tr.repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (tr tree) places(t *testing.T, dir string) ([]Place, []error) {
	t.Helper()
	return Places(Options{Dir: dir, Home: tr.home, System: "-"})
}

// paths returns the places' paths, with the tree's root written $R.
func (tr tree) paths(ps []Place) []string {
	var out []string
	for _, p := range ps {
		s := strings.Replace(p.Path, tr.root, "$R", 1)
		if p.Dir {
			s += "/"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestPlaces: each variable that makes git run code or read configuration
// from a path yields that path, resolved as git resolves it.
func TestPlaces(t *testing.T) {
	cases := []struct {
		name   string
		config string // the repository's .git/config
		want   []string
	}{
		{"no configuration: the hooks directory", "", nil},
		{"core.hooksPath relative to the working tree", "[core]\n\thooksPath = .githooks\n", []string{"$R/home/proj/.githooks/"}},
		{"core.hooksPath absolute", "[core]\nhooksPath = /opt/hooks\n", []string{"/opt/hooks/"}},
		{"core.hooksPath under ~", "[core]\nhooksPath = ~/hooks\n", []string{"$R/home/hooks/"}},
		{"core.hooksPath with odd case and quotes", "[CORE]\nHooksPath = \"tools/git hooks\"\n", []string{"$R/home/proj/tools/git hooks/"}},
		{"core.hooksPath in an old-style section is another variable", "[core.x]\nhooksPath = .githooks\n", nil},
		{"include.path relative to the including file", "[include]\npath = ../tools/git.conf\n", []string{"$R/home/proj/tools/git.conf"}},
		{"includeIf counts whatever its condition", "[includeIf \"gitdir:/nowhere/\"]\npath = ../extra.conf\n", []string{"$R/home/proj/extra.conf"}},
		{"include with a subsection is no include", "[include \"x\"]\npath = ../no.conf\n", nil},
		{"init.templateDir", "[init]\ntemplateDir = ./templates\n", []string{"$R/home/proj/templates/"}},
		{"fsmonitor program", "[core]\nfsmonitor = .git/../tools/fsmon\n", []string{"$R/home/proj/tools/fsmon"}},
		{"fsmonitor as a boolean names no program", "[core]\nfsmonitor = true\n", nil},
		{"filter driver with arguments", "[filter \"x\"]\nclean = ./scripts/clean.sh %f\n", []string{"$R/home/proj/scripts/clean.sh"}},
		{"single-quoted program with a blank", "[diff \"bin\"]\ntextconv = './my tools/conv' --x\n", []string{"$R/home/proj/my tools/conv"}},
		{"escaped blank", "[diff \"bin\"]\ntextconv = ./my\\\\ tools/conv\n", []string{"$R/home/proj/my tools/conv"}},
		{"git removes double quotes: sh then splits", "[diff \"bin\"]\ntextconv = \"./my tools/conv\" --x\n", []string{"$R/home/proj/my", "$R/home/proj/tools/conv"}},
		{"a script run by an interpreter", "[filter \"x\"]\nclean = sh ./scripts/clean.sh\n", []string{"$R/home/proj/scripts/clean.sh"}},
		{"a library by assignment", "[alias]\nx = !LD_PRELOAD=./evil.so git status\n", []string{"$R/home/proj/evil.so"}},
		{"shell alias", "[alias]\nup = !./bin/up.sh && echo done\n", []string{"$R/home/proj/bin/up.sh"}},
		{"alias that is git's own", "[alias]\nst = status\n", nil},
		{"program found on PATH is not a place", "[core]\nsshCommand = ssh -i key\n", nil},
		{"credential helper by path", "[credential]\nhelper = ~/bin/cred\n", []string{"$R/home/bin/cred"}},
		{"pager per command", "[pager]\nlog = ./pager.sh\n", []string{"$R/home/proj/pager.sh"}},
		{"a variable that runs nothing", "[user]\nname = ./not/a/program\n", nil},
		{"~user is not followed", "[core]\nhooksPath = ~root/hooks\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			write(t, filepath.Join(tr.repo, ".git", "config"), tc.config)
			got, errs := tr.places(t, filepath.Join(tr.repo, "src"))
			if len(errs) > 0 {
				t.Fatalf("problems: %v", errs)
			}
			want := append([]string{"$R/home/proj/.git/hooks/"}, tc.want...)
			slices.Sort(want)
			if g := tr.paths(got); !slices.Equal(g, want) {
				t.Fatalf("places %q, want %q", g, want)
			}
			for _, p := range got {
				if p.Why == "" {
					t.Errorf("%s has no reason", p.Path)
				}
			}
		})
	}
}

// TestIncludesAreFollowed: an included file's own variables count, through
// nested includes, without looping on a cycle.
func TestIncludesAreFollowed(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.repo, ".git", "config"), "[include]\npath = ../shared.conf\n")
	write(t, filepath.Join(tr.repo, "shared.conf"), "[include]\npath = more/deeper.conf\n")
	write(t, filepath.Join(tr.repo, "more", "deeper.conf"), "[core]\nhooksPath = .hooks\n[include]\npath = ../shared.conf\n")
	got, errs := tr.places(t, tr.repo)
	if len(errs) > 0 {
		t.Fatalf("problems: %v", errs)
	}
	want := []string{"$R/home/proj/.git/hooks/", "$R/home/proj/.hooks/", "$R/home/proj/more/deeper.conf", "$R/home/proj/shared.conf", "$R/home/proj/shared.conf"}
	if g := tr.paths(got); !slices.Equal(g, want) {
		t.Fatalf("places %q, want %q", g, want)
	}
}

// TestUserConfiguration: the user's own files count too: a relative
// core.hooksPath there names a directory in every repository.
func TestUserConfiguration(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".gitconfig"), "[core]\nhooksPath = .githooks\n")
	write(t, filepath.Join(tr.home, ".config", "git", "config"), "[include]\npath = ~/extra.conf\n")
	got, errs := tr.places(t, tr.repo)
	if len(errs) > 0 {
		t.Fatalf("problems: %v", errs)
	}
	want := []string{"$R/home/extra.conf", "$R/home/proj/.git/hooks/", "$R/home/proj/.githooks/"}
	if g := tr.paths(got); !slices.Equal(g, want) {
		t.Fatalf("places %q, want %q", g, want)
	}
}

// TestLinkedWorktree: a working tree whose .git is a file finds the common
// directory's configuration and hooks, and its own config.worktree.
func TestLinkedWorktree(t *testing.T) {
	tr := newTree(t)
	main := tr.repo
	wt := filepath.Join(tr.root, "wt")
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	write(t, filepath.Join(wt, ".git"), "gitdir: "+gitDir+"\n")
	write(t, filepath.Join(gitDir, "commondir"), "../..\n")
	write(t, filepath.Join(main, ".git", "config"), "[core]\nhooksPath = .githooks\n")
	write(t, filepath.Join(gitDir, "config.worktree"), "[filter \"f\"]\nsmudge = ./smudge\n")
	got, errs := tr.places(t, wt)
	if len(errs) > 0 {
		t.Fatalf("problems: %v", errs)
	}
	want := []string{"$R/home/proj/.git/hooks/", "$R/wt/.githooks/", "$R/wt/smudge"}
	if g := tr.paths(got); !slices.Equal(g, want) {
		t.Fatalf("places %q, want %q", g, want)
	}
}

// TestProblemsAreReported: a file git would refuse, or one too large to
// read, is a problem the caller hears of; what came before it still counts.
func TestProblemsAreReported(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.repo, ".git", "config"), "[core]\nhooksPath = .githooks\n[broken\n")
	got, errs := tr.places(t, tr.repo)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "config") {
		t.Fatalf("problems: %v", errs)
	}
	if !slices.Contains(tr.paths(got), "$R/home/proj/.githooks/") {
		t.Fatalf("the hooks path before the problem was lost: %q", tr.paths(got))
	}
	write(t, filepath.Join(tr.repo, ".git", "config"), "[include]\npath = ../big.conf\n")
	write(t, filepath.Join(tr.repo, "big.conf"), strings.Repeat("# x\n", maxFileSize/4+1))
	if _, errs := tr.places(t, tr.repo); len(errs) != 1 || !strings.Contains(errs[0].Error(), "larger") {
		t.Fatalf("problems: %v", errs)
	}
}

// TestNoRepository: outside a repository only the user's files are read,
// and relative places, which would be relative to no tree, are left out.
func TestNoRepository(t *testing.T) {
	tr := newTree(t)
	dir := filepath.Join(tr.root, "plain")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.home, ".gitconfig"), "[core]\nhooksPath = .githooks\n[include]\npath = ~/x.conf\n")
	got, _ := tr.places(t, dir)
	want := []string{"$R/home/x.conf"}
	if g := tr.paths(got); !slices.Equal(g, want) {
		t.Fatalf("places %q, want %q", g, want)
	}
}

// BenchmarkPlaces: what reading git's configuration costs a guard run, in a
// repository with a user configuration and no includes.
func BenchmarkPlaces(b *testing.B) {
	root := b.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(repo, ".git", "hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = x\n\temail = x@example.com\n[core]\n\teditor = vim\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = git@example.com:x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ps, errs := Places(Options{Dir: repo, Home: home}); len(ps) != 1 || len(errs) > 0 {
			b.Fatalf("%v %v", ps, errs)
		}
	}
}

// TestNamedPipeIsNotRead: a named pipe where an included file is looked
// for (a command could leave one) is a problem, not a hang.
func TestNamedPipeIsNotRead(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.repo, ".git", "config"), "[include]\npath = ../pipe.conf\n")
	if err := syscall.Mkfifo(filepath.Join(tr.repo, "pipe.conf"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []error, 1)
	go func() {
		_, errs := tr.places(t, tr.repo)
		done <- errs
	}()
	select {
	case errs := <-done:
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "not a regular file") {
			t.Fatalf("problems: %v", errs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the configuration hangs on a named pipe")
	}
}

// TestEnvironment: the files and variables git's environment gives count
// too, besides the usual files.
func TestEnvironment(t *testing.T) {
	tr := newTree(t)
	global := filepath.Join(tr.root, "elsewhere", "global.conf")
	write(t, global, "[core]\nhooksPath = ~/global-hooks\n")
	write(t, filepath.Join(tr.home, ".gitconfig"), "[include]\npath = ~/usual.conf\n")
	env := map[string]string{
		"GIT_CONFIG_GLOBAL":  global,
		"GIT_CONFIG_COUNT":   "3",
		"GIT_CONFIG_KEY_0":   "Filter.Lfs.Clean",
		"GIT_CONFIG_VALUE_0": "./tools/lfs-clean",
		"GIT_CONFIG_KEY_1":   "include.path",
		"GIT_CONFIG_VALUE_1": "relative.conf",
		"GIT_CONFIG_KEY_2":   "nodot",
		"GIT_CONFIG_VALUE_2": "./x",
	}
	got, errs := Places(Options{Dir: tr.repo, Home: tr.home, System: "-", Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if len(errs) > 0 {
		t.Fatalf("problems: %v", errs)
	}
	want := []string{"$R/elsewhere/global.conf", "$R/home/global-hooks/", "$R/home/proj/.git/hooks/", "$R/home/proj/tools/lfs-clean", "$R/home/usual.conf"}
	if g := tr.paths(got); !slices.Equal(g, want) {
		t.Fatalf("places %q, want %q", g, want)
	}
}

// TestIncludeFanOutIsBounded: includes that fan out are read up to a bound,
// past which the rest is a problem reported, not an unbounded walk.
func TestIncludeFanOutIsBounded(t *testing.T) {
	tr := newTree(t)
	var b strings.Builder
	b.WriteString("[include]\n")
	for i := 0; i < 2*maxFiles; i++ {
		fmt.Fprintf(&b, "path = ../inc%d.conf\n", i)
		write(t, filepath.Join(tr.repo, fmt.Sprintf("inc%d.conf", i)), "[core]\nhooksPath = .h\n")
	}
	write(t, filepath.Join(tr.repo, ".git", "config"), b.String())
	_, errs := tr.places(t, tr.repo)
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "more than") {
		t.Fatalf("problems: %v", errs)
	}
}
