package main

import (
	"errors"
	"fmt"
	"github.com/guard-sh/guard/presets"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// initAgents are the agents guard init knows, each with how to put guard
// in front of it. The texts are documented, one page each, in docs/agents/.
var initAgents = map[string]func(guard string) string{
	"claude-code": claudeCodeSetup,
	"codex":       codexSetup,
	"gemini":      geminiSetup,
	"aider":       aiderSetup,
	"generic":     genericSetup,
}

func initAgentNames() string {
	names := make([]string, 0, len(initAgents))
	for n := range initAgents {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func runInit(a *app, args []string) int {
	fs := a.flagSet("init", "init [--agent NAME] [--preset NAME]... [--force] [--config FILE]", `
Writes a commented starter settings file to your global settings
($XDG_CONFIG_HOME/guard/settings.toml, or --config FILE): deny rules for
secrets (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, .env files, ...) and for
commands that cannot be undone, ask rules for pushing. An existing file is
left alone unless --force, which keeps it as FILE.bak-TIME first.

Then prints what to add to the agent's own configuration. Agents:
claude-code, codex, gemini, aider, generic (see docs/agents/).

--preset adds an ecosystem's everyday commands (build and test without
asking, publishing asked, dependency downloads with the network): `+strings.Join(presets.Names(), ", ")+`
(see docs/toolchains.md).`)
	agent := fs.String("agent", "generic", "the agent to set up: "+initAgentNames())
	force := fs.Bool("force", false, "replace an existing settings file (a backup is kept)")
	presetNames := fs.StringArray("preset", nil, "an ecosystem preset to add: "+strings.Join(presets.Names(), ", ")+" (repeatable)")
	cfg := fs.String("config", "", "write this settings file instead of the global settings.toml")
	if done, code := a.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return a.usageError("init", "unexpected argument %q", fs.Arg(0))
	}
	setup, ok := initAgents[*agent]
	if !ok {
		return a.usageError("init", "--agent %q: want one of %s", *agent, initAgentNames())
	}
	file := *cfg
	if file == "" {
		p, code := a.guardPaths()
		if code != exitOK {
			return code
		}
		file = p.GlobalFile
	} else if !filepath.IsAbs(file) {
		wd, err := os.Getwd()
		if err != nil {
			a.errorf("init: cannot tell the current directory: %v", err)
			return exitConfig
		}
		file = filepath.Join(wd, file)
	}
	var chosen []preset
	for _, name := range *presetNames {
		p, err := loadPreset(name)
		if err != nil {
			return a.usageError("init", "--preset: %v", err)
		}
		chosen = append(chosen, p)
	}
	text := starterSettings(*agent, chosen)
	backup, written, err := writeStarter(file, []byte(text), *force, time.Now())
	switch {
	case err != nil:
		a.errorf("init: %v", err)
		return exitConfig
	case !written:
		a.warnf("%s exists: left as it is ('guard init --force' replaces it, keeping a backup)", file)
	case backup != "":
		fmt.Fprintf(a.stdout, "Wrote %s (your previous settings are in %s).\n", file, backup)
	default:
		fmt.Fprintf(a.stdout, "Wrote %s.\n", file)
	}
	fmt.Fprintln(a.stdout)
	fmt.Fprint(a.stdout, setup(guardProgram()))
	return exitOK
}

// writeStarter writes text to file unless the file exists (then written is
// false), or with force after copying the old file to a backup beside it.
// The file is written whole or not at all (a temporary file, then rename),
// 0600 in a 0700 directory, since settings can name private paths.
func writeStarter(file string, text []byte, force bool, now time.Time) (backup string, written bool, err error) {
	old, err := os.ReadFile(file)
	switch {
	case err == nil && !force:
		return "", false, nil
	case err == nil:
		backup, err = writeBackup(file, old, now)
		if err != nil {
			return "", false, err
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(file); lerr == nil {
			// A dangling symlink: writing through it would create a file
			// somewhere else; refuse and say so.
			return "", false, fmt.Errorf("%s is a symlink to nothing; remove it or point it at a file", file)
		}
	default:
		return "", false, fmt.Errorf("%s: %v", file, unwrapPathErr(err))
	}
	target := file
	if real, err := filepath.EvalSymlinks(file); err == nil {
		target = real // a settings file kept elsewhere through a symlink stays a symlink
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return backup, false, fmt.Errorf("%s: %v", dir, unwrapPathErr(err))
	}
	tmp, err := os.CreateTemp(dir, ".settings-*.toml")
	if err != nil {
		return backup, false, fmt.Errorf("%s: %v", dir, unwrapPathErr(err))
	}
	defer os.Remove(tmp.Name()) // gone after the rename; a leftover otherwise
	if _, err := tmp.Write(text); err != nil {
		tmp.Close()
		return backup, false, fmt.Errorf("%s: %v", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return backup, false, fmt.Errorf("%s: %v", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return backup, false, fmt.Errorf("%s: %v", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return backup, false, fmt.Errorf("%s: %v", target, unwrapPathErr(err))
	}
	return backup, true, nil
}

// writeBackup copies the old settings next to the file, under a name no
// other backup has: FILE.bak-20260102-150405, then -2, -3, ...
func writeBackup(file string, old []byte, now time.Time) (string, error) {
	base := file + ".bak-" + now.Format("20060102-150405")
	for n := 1; n < 100; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup %s: %v", name, unwrapPathErr(err))
		}
		_, werr := f.Write(old)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			os.Remove(name)
			return "", fmt.Errorf("backup %s: %v", name, errors.Join(werr, cerr))
		}
		return name, nil
	}
	return "", fmt.Errorf("backup of %s: too many backups already; remove some", file)
}

// hookEntry is Claude Code's settings.json hook entry for guard.
func hookEntry(guard, args string) string {
	q := jsonString(shellQuote(guard) + " hook claude-code" + args)
	return `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          { "type": "command", "command": ` + q + `, "timeout": 60 }
        ]
      }
    ]
  }
}
`
}

func claudeCodeSetup(guard string) string {
	return `To put guard in front of Claude Code, add this hook to ~/.claude/settings.json
(every project) or to a project's .claude/settings.json, merged with any
"hooks" already there:

` + hookEntry(guard, "") + `
guard then judges every tool call (Bash, Read, Edit, Write, WebFetch, MCP
tools, ...) with its rules and answers allow, deny or ask; Claude Code asks
you where guard says ask. To run Bash commands inside guard's sandbox too,
make the command "` + guard + ` hook claude-code --sandbox".

To carry over the permissions you already gave Claude Code:
  ` + guard + ` import claude-code            # shows them as guard rules
  ` + guard + ` import claude-code --write    # adds them to guard's settings
See docs/agents/claude-code.md.
`
}

func codexSetup(guard string) string {
	return `To put guard in front of Codex (0.124 or later, whose hooks take Claude Code's
input), add this to ~/.codex/config.toml:

[[hooks.PreToolUse]]
[[hooks.PreToolUse.hooks]]
type = "command"
command = ` + jsonString(shellQuote(guard)+" hook codex") + `
timeout = 60

Codex's hooks cannot ask you, so where guard would ask it refuses, saying
which rule would allow the call. See docs/agents/codex.md.
`
}

func geminiSetup(guard string) string {
	return `Gemini CLI's hooks (BeforeTool) do not take Claude Code's input, and guard has
no adapter for them yet. Run Gemini CLI inside guard's sandbox instead, so
that every tool it has obeys guard's read-deny rules and writable places:

  ` + guard + ` exec --network on --allow-write ~/.gemini -- gemini

See docs/agents/gemini.md for what this does and does not gate.
`
}

func aiderSetup(guard string) string {
	return `Aider runs shell commands with $SHELL -c COMMAND. Save this script as
~/.local/bin/guard-shell and make it executable (chmod +x):

` + shellWrapper(guard) + `
then start aider with it as the shell:

  SHELL=~/.local/bin/guard-shell aider

See docs/agents/aider.md.
`
}

func genericSetup(guard string) string {
	return `For an agent that runs shell commands, have it prefix each one:

  ` + guard + ` exec -c 'COMMAND'

or, if it runs commands with $SHELL -c COMMAND, give it this script as its
shell (save it as ~/.local/bin/guard-shell, chmod +x, and set SHELL to it):

` + shellWrapper(guard) + `
See docs/agents/generic.md.
`
}

// shellWrapper is a shell for agents that start "$SHELL -c COMMAND": it
// hands COMMAND to guard exec and refuses every other way of being started
// (an interactive shell would run commands guard never sees).
func shellWrapper(guard string) string {
	return `#!/bin/sh
# guard-shell: runs "guard-shell -c COMMAND" as guard exec -c COMMAND.
case "$1" in
-c | -lc)
	if [ "$#" -ne 2 ]; then
		echo "guard-shell: want -c COMMAND and nothing after it" >&2
		exit 64
	fi
	# Commands that start $SHELL themselves get a real shell, under guard.
	SHELL=/bin/bash exec ` + shellWord(guard) + ` exec -c "$2"
	;;
esac
echo "guard-shell: only -c COMMAND is supported" >&2
exit 64
`
}

func shellWord(s string) string { return shellQuote(s) }

// jsonString quotes s for JSON.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
