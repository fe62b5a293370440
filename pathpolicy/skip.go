package pathpolicy

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// WalkSkip is a directory the plan's walk does not enter for a rule that
// matches anywhere (read(*/.env)): one that holds huge trees of files
// programs made (packages, caches, toolchains, git's objects), not the
// user's secrets. Such a rule walks the whole home directory and workspace
// before every sandboxed command; these trees would make that walk take
// longer than the command, and reach [MaxWalkEntries] on an ordinary home.
//
// A skipped directory is named in the rule's plan ([RulePlan.Skipped]):
// reads of what it holds are stopped by the gate only, as reads outside
// home and the workspace are. A rule whose pattern names a directory
// literally (read(~/.cache/app/*), read(./node_modules/*/.env)) walks that
// directory as usual, skips and all: the list applies only to rules that
// match anywhere.
type WalkSkip struct {
	// Path is slash-separated. Home entries are relative to the home
	// directory; the others are matched at any depth, by their last
	// components (".git/objects" is any objects directory in a .git).
	Path string `json:"path"`
	Home bool   `json:"home"`
	Why  string `json:"why"`
}

// walkSkips is the list, one reason per entry. A directory that holds the
// workspace is never skipped, whatever its name.
var walkSkips = []WalkSkip{
	{Path: "node_modules", Why: "npm's installed packages: downloaded code, often hundreds of thousands of files"},
	{Path: ".git/objects", Why: "git's object store: compressed history that git reads, not files a program opens by name"},
	{Path: ".cache", Home: true, Why: "caches programs rebuild (XDG_CACHE_HOME): build and download caches of every tool"},
	{Path: ".rustup", Home: true, Why: "Rust toolchains as rustup installed them"},
	{Path: ".cargo/registry", Home: true, Why: "the sources of downloaded Rust crates"},
	{Path: ".cargo/git", Home: true, Why: "git checkouts of Rust dependencies"},
	{Path: "go/pkg/mod", Home: true, Why: "Go's module cache: downloaded modules, read-only"},
	{Path: ".npm", Home: true, Why: "npm's download cache"},
	{Path: ".m2/repository", Home: true, Why: "Maven's downloaded artifacts"},
	{Path: ".gradle/caches", Home: true, Why: "Gradle's downloaded artifacts and build caches"},
	{Path: ".nvm/versions", Home: true, Why: "Node.js versions as nvm installed them"},
	{Path: ".pyenv/versions", Home: true, Why: "Python versions as pyenv built them"},
	{Path: ".local/share/containers", Home: true, Why: "podman's image layers and containers: whole file systems"},
}

// MaxReportedSkips is the most skipped directories a rule's plan lists; it
// counts them all.
const MaxReportedSkips = 20

// walkBufSize is the buffer a walk reads directory entries into: 16 KiB
// holds about 400 entries, so most directories take one getdents.
const walkBufSize = 16 << 10

// WalkSkips returns the list of directories the plan's walk skips (a copy).
func WalkSkips() []WalkSkip { return append([]WalkSkip(nil), walkSkips...) }

// skipDir reports whether the directory name, in dir, is one of walkSkips
// and does not hold the workspace.
func (pl *planner) skipDir(dir string, name []byte, full func() string) bool {
	hit := false
	for i := range walkSkips {
		sk := &walkSkips[i]
		if sk.Home {
			continue
		}
		parent, last := path.Split(sk.Path)
		if bytes.Equal(name, []byte(last)) && (parent == "" || strings.HasSuffix(dir, "/"+strings.TrimSuffix(parent, "/"))) {
			hit = true
			break
		}
	}
	if !hit && pl.homeSkips != nil && within(pl.home, dir) {
		_, hit = pl.homeSkips[full()]
	}
	return hit && (pl.workspace == "" || !within(full(), pl.workspace))
}

// skippedNote is what a rule's why says of the directories its walk
// skipped.
func (pr *plannedRule) skippedNote() string {
	switch n := len(pr.skipped); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(", except inside %s, which the walk skips (packages, caches and git objects hold no secrets; see docs/pathpolicy.md)", pr.skipped[0])
	default:
		return fmt.Sprintf(", except inside %d directories the walk skips, like %s (packages, caches and git objects hold no secrets; see docs/pathpolicy.md)", n, pr.skipped[0])
	}
}
