package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/agents/claudecode"
	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/rule"
)

const importHelp = `
Reads a Claude Code settings.json and carries its permissions over to guard:
permissions.allow, ask and deny become guard rules, defaultMode the mode,
additionalDirectories readable (and, by hand, writable) places. Each entry
that cannot be carried over, or whose meaning changes, gets a warning on
stderr saying why. Deny and ask rules are never carried over narrower than
Claude Code reads them; an allow rule that comes out wider is warned about.

PATH defaults to .claude/settings.json in the workspace, else
~/.claude/settings.json. Without --write the guard settings are printed as
TOML; with --write they are added to your global settings (--scope global)
or this workspace's own (--scope workspace; the default when PATH lies in the
workspace).`

func runImport(a *app, args []string) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if args[0] != "claude-code" {
			return a.usageError("import", "unknown agent %q: guard imports claude-code settings", args[0])
		}
		args = args[1:]
	} else if len(args) == 0 || args[0] != "-h" && args[0] != "--help" {
		return a.usageError("import", "which agent's settings? guard import claude-code [PATH]")
	}
	fs := a.flagSet("import claude-code", "import claude-code [PATH] [--write] [--scope global|workspace]", importHelp)
	var c commonFlags
	c.registerFiles(fs)
	write := fs.Bool("write", false, "add the rules to guard's settings instead of printing them")
	scope := fs.String("scope", "", "with --write: global or workspace (default: workspace when PATH is in the workspace, else global)")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return a.usageError("import claude-code", "want at most one PATH")
	}
	if *scope != "" && *scope != "global" && *scope != "workspace" {
		return a.usageError("import claude-code", "--scope %q: want global or workspace", *scope)
	}
	o, code := a.loadOptions(&c)
	if code != exitOK {
		return code
	}
	paths := config.DefaultPaths(o)
	src := ""
	if fs.NArg() == 1 {
		src = fs.Arg(0)
		if !filepath.IsAbs(src) {
			wd, err := os.Getwd()
			if err != nil {
				a.errorf("import: cannot tell the current directory: %v", err)
				return exitConfig
			}
			src = filepath.Join(wd, src)
		}
	} else {
		for _, p := range []string{filepath.Join(paths.Workspace, ".claude", "settings.json"), filepath.Join(paths.Home, ".claude", "settings.json")} {
			if _, err := os.Stat(p); err == nil {
				src = p
				break
			}
		}
		if src == "" {
			a.errorf("import: no Claude Code settings in %s or %s; give the file: guard import claude-code PATH",
				filepath.Join(paths.Workspace, ".claude", "settings.json"), filepath.Join(paths.Home, ".claude", "settings.json"))
			return 1
		}
	}
	data, err := readRegular(src, claudecode.MaxSettings)
	if err != nil {
		a.errorf("import: %s: %v", src, err)
		return 1
	}
	im, err := claudecode.Import(data)
	if err != nil {
		a.errorf("import: %s: %v", src, err)
		return exitConfig
	}
	for _, w := range im.Warnings {
		a.warnf("%s: %s", safeText(src), safeText(w.String()))
	}
	if !*write {
		fmt.Fprint(a.stdout, importTOML(src, im))
		return exitOK
	}
	if *scope == "" {
		*scope = "global"
		if within(src, paths.Workspace) {
			*scope = "workspace"
		}
	}
	file, opts := paths.GlobalFile, []config.EditOption(nil)
	if *scope == "workspace" {
		file, opts = paths.WorkspaceFile, []config.EditOption{workspaceHeader(paths.Workspace)}
	}
	added, kept := 0, 0
	add := func(action rule.Action, text, from string) int {
		ed, err := config.AddRule(file, action, text, opts...)
		if err != nil {
			return a.editError("import", err)
		}
		if ed.Changed {
			added++
			fmt.Fprintf(a.stdout, "added %s %s (from %s) to %s:%d\n", action, text, safeText(from), ed.File, ed.Line)
		} else {
			kept++
		}
		return exitOK
	}
	for _, r := range im.Rules {
		if code := add(r.Action, r.Text, r.From); code != exitOK {
			return code
		}
	}
	for _, d := range im.Dirs {
		if code := add(rule.Allow, "read("+d.Path+")", "additionalDirectories "+d.From); code != exitOK {
			return code
		}
	}
	if im.Mode != "" {
		ed, err := config.SetMode(file, im.Mode, opts...)
		if err != nil {
			return a.editError("import", err)
		}
		if ed.Changed {
			fmt.Fprintf(a.stdout, "set permission_mode = %q (from defaultMode %q) in %s:%d\n", im.Mode, safeText(im.ModeFrom), ed.File, ed.Line)
		}
	}
	fmt.Fprintf(a.stdout, "%d rule%s added to %s", added, plural(added), file)
	if kept > 0 {
		fmt.Fprintf(a.stdout, " (%d already there)", kept)
	}
	fmt.Fprintln(a.stdout)
	if len(im.Dirs) > 0 {
		var ds []string
		for _, d := range im.Dirs {
			ds = append(ds, config.QuoteTOML(d.Path))
		}
		fmt.Fprintf(a.stdout, "To let commands write in the additional directories too, add to [sandbox] in %s:\n  allow_write = [%s]\n", file, strings.Join(ds, ", "))
	}
	return exitOK
}

// readRegular reads a regular file of at most limit bytes: a FIFO or a
// device could stall guard or feed it without end.
func readRegular(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d bytes: not a settings file", limit)
	}
	return os.ReadFile(name)
}

// importTOML is the imported settings as a TOML file, each rule with the
// Claude Code rule it came from.
func importTOML(src string, im *claudecode.Imported) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# guard settings carried over from %s\n", safeText(src))
	w("# by guard import claude-code. What could not be carried over is on stderr.\n")
	w("# Claude Code reads relative path rules from the directory it started in;\n")
	w("# guard reads them from the workspace (the top of the git repository).\n")
	if im.Mode != "" {
		w("\n[guard]\npermission_mode = %s  # defaultMode %s\n", config.QuoteTOML(string(im.Mode)), safeText(im.ModeFrom))
	}
	w("\n[permissions]\n")
	for _, action := range []rule.Action{rule.Deny, rule.Ask, rule.Allow} {
		w("%s = [\n", action)
		for _, r := range im.Rules {
			if r.Action == action {
				w("  %-40s # %s\n", config.QuoteTOML(r.Text)+",", safeText(r.From))
			}
		}
		if action == rule.Allow {
			for _, d := range im.Dirs {
				w("  %-40s # additionalDirectories %s\n", config.QuoteTOML("read("+d.Path+")")+",", safeText(d.From))
			}
		}
		w("]\n")
	}
	if len(im.Dirs) > 0 {
		w("\n[sandbox]\n")
		var ds []string
		for _, d := range im.Dirs {
			ds = append(ds, config.QuoteTOML(d.Path))
		}
		w("allow_write = [%s]  # additionalDirectories\n", strings.Join(ds, ", "))
	}
	return b.String()
}
