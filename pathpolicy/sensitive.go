package pathpolicy

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/guard-sh/guard/rule"
)

// SensitiveEntry is a path whose change runs code later, outside any
// sandbox, without anyone choosing to run it: a git hook, a shell's startup
// file, an editor's tasks, an agent's MCP servers. A write or delete there
// always asks, even in accept-edits; an allow rule applies only if it names
// the path itself; bypass may allow it only where the sandbox protects it.
//
// Source files are not on the list: they run code too, but only when the
// user runs the project. The list is of files that act on ordinary actions
// (opening a shell, a commit, opening the folder in an editor, starting an
// agent).
type SensitiveEntry struct {
	// Path is relative and slash-separated: ".git/hooks".
	Path string `json:"path"`
	// Dir: a directory, and everything inside it is sensitive too.
	Dir bool `json:"dir"`
	// Home: only at this place in the home directory. Otherwise the entry
	// matches anywhere, as components of any path (a nested repository's
	// hooks, a dotfile kept in a repository and linked into home).
	Home bool   `json:"home"`
	Why  string `json:"why"`
}

// sensitive is the list, one reason per entry. Names are compared without
// regard to case: on a case-insensitive file system .GIT/HOOKS is
// .git/hooks.
var sensitive = []SensitiveEntry{
	// git
	{Path: ".git/hooks", Dir: true, Why: "git runs these programs on commit, checkout, merge and push"},
	{Path: ".git/config", Why: "core.hooksPath, core.fsmonitor, core.sshCommand, aliases, filters and diff drivers name programs git runs"},
	{Path: ".git/config.worktree", Why: "a worktree's own git configuration: the same programs as .git/config"},
	{Path: ".git/modules", Dir: true, Why: "the submodules' own git directories: their config and hooks"},
	{Path: ".git/worktrees", Dir: true, Why: "linked worktrees' own configuration (config.worktree)"},
	{Path: ".git/commondir", Why: "git takes the repository's configuration and hooks from the directory it names"},
	{Path: ".gitmodules", Why: "where `git submodule update` fetches code from (and the source of past code-execution bugs)"},
	{Path: ".gitconfig", Why: "the user's git configuration: the programs of .git/config, for every repository"},
	{Path: ".config/git", Dir: true, Home: true, Why: "the user's git configuration (XDG location): the programs of .git/config, for every repository"},
	{Path: ".husky", Dir: true, Why: "husky's git hooks, run on commit once core.hooksPath points here"},
	{Path: ".pre-commit-config.yaml", Why: "pre-commit fetches and runs the hooks it lists on every commit"},
	{Path: ".hg/hgrc", Why: "Mercurial runs the [hooks] it lists on commit, pull and update"},
	{Path: ".hgrc", Home: true, Why: "the user's Mercurial configuration: hooks and extensions for every repository"},

	// shells and sessions
	{Path: ".bashrc", Why: "bash runs it at the start of every interactive shell"},
	{Path: ".bash_profile", Why: "bash runs it at every login"},
	{Path: ".bash_login", Why: "bash runs it at login when there is no .bash_profile"},
	{Path: ".bash_logout", Why: "bash runs it at every logout"},
	{Path: ".bash_aliases", Why: "sourced by the usual .bashrc: aliases can replace any command"},
	{Path: ".profile", Why: "sh, bash and the desktop session run it at login"},
	{Path: ".zshrc", Why: "zsh runs it at the start of every interactive shell"},
	{Path: ".zshenv", Why: "zsh runs it at the start of every shell, scripts included"},
	{Path: ".zprofile", Why: "zsh runs it at every login"},
	{Path: ".zlogin", Why: "zsh runs it at every login"},
	{Path: ".zlogout", Why: "zsh runs it at every logout"},
	{Path: ".inputrc", Why: "readline key bindings can type commands into the shell"},
	{Path: ".config/fish", Dir: true, Home: true, Why: "fish runs config.fish and conf.d/ at the start of every shell"},
	{Path: ".xprofile", Home: true, Why: "the display manager runs it at graphical login"},
	{Path: ".xinitrc", Home: true, Why: "startx runs it to start the session"},
	{Path: ".xsessionrc", Home: true, Why: "the X session runs it at login"},
	{Path: ".pam_environment", Home: true, Why: "sets the environment (LD_PRELOAD, PATH) of every login"},
	{Path: ".envrc", Why: "direnv runs it on entering the directory"},
	{Path: ".config/direnv", Dir: true, Home: true, Why: "direnv runs direnvrc for every .envrc"},
	{Path: ".local/bin", Dir: true, Home: true, Why: "usually on PATH before the system's programs: a file here replaces a command"},
	{Path: "bin", Dir: true, Home: true, Why: "~/bin is usually on PATH before the system's programs: a file here replaces a command"},
	{Path: ".config/autostart", Dir: true, Home: true, Why: "the desktop session starts these programs at login"},
	{Path: ".config/systemd", Dir: true, Home: true, Why: "user services that systemd starts"},
	{Path: ".config/environment.d", Dir: true, Home: true, Why: "the environment (LD_PRELOAD, PATH) of every user service"},

	// editors and IDEs
	{Path: ".vscode", Dir: true, Why: "VS Code runs tasks on folder open and programs named in its settings"},
	{Path: ".idea", Dir: true, Why: "JetBrains IDEs run the run configurations and external tools defined here"},
	{Path: ".devcontainer", Dir: true, Why: "postCreateCommand and the like run when the folder is opened in a container"},
	{Path: ".exrc", Why: "vim runs it from the current directory when 'exrc' is set"},
	{Path: ".nvimrc", Why: "neovim runs it from the current directory when 'exrc' is set"},
	{Path: ".nvim.lua", Why: "neovim runs it from the current directory when 'exrc' is set"},
	{Path: ".vimrc", Why: "vim runs it at every start"},
	{Path: ".vim", Dir: true, Home: true, Why: "vim runs the plugins and scripts here at every start"},
	{Path: ".config/nvim", Dir: true, Home: true, Why: "neovim runs init.lua and the plugins here at every start"},
	{Path: ".emacs", Home: true, Why: "emacs runs it at every start"},
	{Path: ".emacs.d", Dir: true, Home: true, Why: "emacs runs init.el at every start"},
	{Path: ".dir-locals.el", Why: "emacs evaluates eval: forms of directory-local variables"},
	{Path: ".pdbrc", Why: "Python's debugger runs it from the current directory at every start"},
	{Path: ".irbrc", Why: "Ruby's irb runs it from the current directory at every start"},
	{Path: ".Rprofile", Why: "R runs it from the current directory at every start"},

	// agents
	{Path: ".mcp.json", Why: "agents start the MCP servers it lists, as programs with the user's rights"},
	{Path: ".claude", Dir: true, Why: "Claude Code's settings: hooks (shell commands it runs), MCP servers and permission rules"},
	{Path: ".cursor", Dir: true, Why: "Cursor's MCP servers and rules"},
	{Path: ".codex", Dir: true, Why: "Codex's configuration: MCP servers and the notify command"},
	{Path: ".gemini", Dir: true, Why: "Gemini CLI's settings: MCP servers and tool commands"},
	{Path: ".aider.conf.yml", Why: "aider runs its lint-cmd and test-cmd"},

	// package managers and build tools
	{Path: ".npmrc", Why: "script-shell, node-options (--require) and the registry decide what runs on every npm command"},
	{Path: ".yarnrc", Why: "yarn-path names the program run as yarn itself"},
	{Path: ".yarnrc.yml", Why: "yarnPath names the program run as yarn itself"},
	{Path: ".pnpmfile.cjs", Why: "pnpm runs it on every install"},
	{Path: ".cargo/config.toml", Why: "build.rustc-wrapper, target runners and aliases name programs cargo runs"},
	{Path: ".cargo/config", Why: "build.rustc-wrapper, target runners and aliases name programs cargo runs"},

	// credentials whose configuration runs programs
	{Path: ".ssh", Dir: true, Home: true, Why: "authorized_keys lets others log in; config's ProxyCommand and LocalCommand, and rc, run programs"},
	{Path: ".gnupg", Dir: true, Home: true, Why: "gpg.conf and gpg-agent.conf name programs gpg runs (pinentry)"},
	{Path: ".aws/config", Home: true, Why: "credential_process names a program every AWS tool runs"},
	{Path: ".kube/config", Home: true, Why: "exec credential plugins name programs kubectl runs"},
}

// Sensitive returns the list of sensitive paths (a copy), for the sandbox
// to protect and for guard exec to watch.
func Sensitive() []SensitiveEntry { return append([]SensitiveEntry(nil), sensitive...) }

// sensitiveIndex finds entries by their first component, so that a check
// costs a map lookup per component of the path, not a scan of the list.
type sensitiveIndex struct {
	// anywhere and home hold, for each first component, the indexes of
	// the entries that start with it, in the list's order.
	anywhere, home map[string][]int
	lower          []string // each entry's path, lower case
}

// sensIdx is derived from the sensitive table on first use, not when the
// package starts (a run that checks no write or delete never needs it), and
// never changed.
var sensIdx = sync.OnceValue(newSensitiveIndex)

func newSensitiveIndex() *sensitiveIndex {
	n := len(sensitive)
	x := &sensitiveIndex{anywhere: make(map[string][]int, n), home: make(map[string][]int, n), lower: make([]string, n)}
	first := make([]string, n)
	// order holds every index once, grouped by place and first component
	// and in the list's order within a group: the maps' slices are windows
	// of it, rather than one allocation per component.
	order := make([]int, n)
	for i, e := range sensitive {
		x.lower[i] = strings.ToLower(e.Path)
		first[i], _, _ = strings.Cut(x.lower[i], "/")
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if sensitive[a].Home != sensitive[b].Home {
			if sensitive[a].Home {
				return 1
			}
			return -1
		}
		return strings.Compare(first[a], first[b])
	})
	for i := 0; i < n; {
		j := i + 1
		for j < n && sensitive[order[j]].Home == sensitive[order[i]].Home && first[order[j]] == first[order[i]] {
			j++
		}
		m := x.anywhere
		if sensitive[order[i]].Home {
			m = x.home
		}
		m[first[order[i]]] = order[i:j:j]
		i = j
	}
	return x
}

// sensitiveEntry returns the entry that one of the forms falls under, or
// nil.
func sensitiveEntry(home string, forms ...string) *SensitiveEntry {
	lhome := strings.ToLower(strings.TrimSuffix(home, "/"))
	idx := sensIdx()
	for i, f := range forms {
		if i > 0 && f == forms[i-1] {
			continue
		}
		lf := strings.ToLower(f)
		// Each component, and the entries that start with it.
		for at := 0; at < len(lf); {
			if lf[at] == '/' {
				at++
				continue
			}
			end := strings.IndexByte(lf[at:], '/')
			if end < 0 {
				end = len(lf)
			} else {
				end += at
			}
			for _, e := range idx.anywhere[lf[at:end]] {
				if hasPathPrefix(lf[at:], idx.lower[e]) {
					return &sensitive[e]
				}
			}
			at = end
		}
		if lhome != "" && len(lf) > len(lhome)+1 && within(lhome, lf) {
			rest := strings.TrimPrefix(lf[len(lhome):], "/")
			first, _, _ := strings.Cut(rest, "/")
			for _, e := range idx.home[first] {
				if hasPathPrefix(rest, idx.lower[e]) {
					return &sensitive[e]
				}
			}
		}
	}
	return nil
}

// hasPathPrefix reports whether p is prefix or inside it (both relative).
func hasPathPrefix(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

// names reports whether an allow rule names the sensitive entry itself
// (allow write(./.vscode/*) does; allow write(./*) does not): the rule's
// literal text, with its stars taken as nothing a name could hold, falls
// under the entry.
func (p *Policy) names(r *rule.Rule, e *SensitiveEntry) bool {
	if r.Bare {
		return false
	}
	lit := strings.ReplaceAll(p.sets[0].Env().ExpandPath(r.Pattern), "*", "\x00")
	return p.sensitiveAt(lit) == e
}

// SensitivePaths are the concrete places of the sensitive list for this
// policy: each entry in the home directory, and each entry that matches
// anywhere also at the top of the workspace. Paths that do not exist are
// listed too (creating one is a change), with Exists false.
//
// Most entries do not exist in a given home or workspace: rather than
// examine each of the hundred places, it lists the two directories once
// and examines only the entries whose first name is there (see
// [listedNames] for when it examines them all).
func (p *Policy) SensitivePaths() []Location {
	out := make([]Location, 0, 2*len(sensitive))
	seen := map[string]bool{}
	listed := map[string]map[string]bool{}
	add := func(dir string, e SensitiveEntry) {
		c := path.Join(dir, e.Path)
		if seen[c] {
			return
		}
		seen[c] = true
		l := Location{Path: c, Dir: e.Dir, Why: e.Why}
		names, ok := listed[dir]
		if !ok {
			names = listedNames(dir)
			listed[dir] = names
		}
		first, _, _ := strings.Cut(e.Path, "/")
		if names == nil || names[strings.ToLower(first)] {
			if st, err := lstat(c); err == nil {
				l.Exists, l.Dir = true, st.dir
			}
		}
		out = append(out, l)
	}
	for _, e := range sensitive {
		if !e.Home {
			add(p.workspace, e)
		}
	}
	for _, e := range sensitive {
		add(p.home, e)
	}
	return out
}
