package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/guard-sh/guard/config"
)

// commonFlags are the flags of every command that reads settings. A
// command registers them on its flag set, then calls [app.loadSettings].
type commonFlags struct {
	workspace string
	config    string
	mode      string
	session   string
	allow     []string
	deny      []string
}

// register adds --workspace, --config, --mode, --session, --allow and
// --deny: the flags of commands that evaluate requests (check, gate, exec).
func (c *commonFlags) register(fs *pflag.FlagSet) {
	c.registerFiles(fs)
	fs.StringVar(&c.mode, "mode", "", "permission mode for this run (default, accept-edits, auto, plan, dont-ask, bypass)")
	fs.StringVar(&c.session, "session", "", "session ID for \"this session\" approvals (default $GUARD_SESSION)")
	fs.StringArrayVar(&c.allow, "allow", nil, "an allow rule for this run, like 'shell(make *)' (repeatable)")
	fs.StringArrayVar(&c.deny, "deny", nil, "a deny rule for this run, like 'shell(curl *)' (repeatable)")
}

// registerFiles adds only --workspace and --config: the flags that say
// which settings files a command reads or edits.
func (c *commonFlags) registerFiles(fs *pflag.FlagSet) {
	fs.StringVar(&c.workspace, "workspace", "", "the workspace (default: the top of the git repository holding the current directory, else the current directory)")
	fs.StringVar(&c.config, "config", "", "use this settings file instead of the global settings.toml")
}

// sessionID is --session, else $GUARD_SESSION ("" when neither is set).
func (c *commonFlags) sessionID() string {
	if c.session != "" {
		return c.session
	}
	return os.Getenv("GUARD_SESSION")
}

// loadOptions resolves the workspace and where every settings file is. On
// failure it has printed why and returns the exit status: 64 for a
// workspace guard cannot use, 78 for an environment it cannot work in.
func (a *app) loadOptions(c *commonFlags) (config.LoadOptions, int) {
	o, err := config.OptionsFromEnv(os.Getenv)
	if err != nil {
		a.errorf("%v", err)
		return o, exitConfig
	}
	o.LookupEnv = os.LookupEnv
	cwd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot tell the current directory: %v", err)
		return o, exitConfig
	}
	if o.Workspace, err = config.ResolveWorkspace(c.workspace, cwd); err != nil {
		// The fix is in how guard is run: another directory or --workspace.
		a.errorf("%v", err)
		return o, exitUsage
	}
	if c.config != "" {
		o.ConfigFile = c.config
		if !filepath.IsAbs(o.ConfigFile) {
			o.ConfigFile = filepath.Join(cwd, o.ConfigFile)
		}
	}
	return o, exitOK
}

// loadSettings loads the settings for a command: the workspace, every
// settings file, and the flags (c's, plus more, a command's own such as
// --network or --allow-write). It prints each warning on stderr as
// "guard: warning: FILE:LINE: ...". On failure it prints the error and
// returns nil and the exit status: 78 for a settings file guard cannot use
// (naming FILE:LINE:COL), 64 for a flag that is invalid or that managed
// settings forbid.
func (a *app) loadSettings(c *commonFlags, more config.Flags) (*config.Settings, int) {
	return a.loadSettingsQuiet(c, more, "")
}

// loadSettingsQuiet is loadSettings that leaves out warnings of one Code
// (a command that shows the same thing itself).
func (a *app) loadSettingsQuiet(c *commonFlags, more config.Flags, skip string) (*config.Settings, int) {
	o, code := a.loadOptions(c)
	if code != exitOK {
		return nil, code
	}
	more.Mode = c.mode
	more.Allow = append(append([]string(nil), c.allow...), more.Allow...)
	more.Deny = append(append([]string(nil), c.deny...), more.Deny...)
	o.Flags = more
	s, err := config.Load(o)
	if err != nil {
		var fe *config.FileError
		var fl *config.FlagError
		switch {
		case errors.As(err, &fe):
			a.errorf("%s", safeText(fe.Error()))
			return nil, exitConfig
		case errors.As(err, &fl):
			a.errorf("%s", safeText(fl.Error()))
			return nil, exitUsage
		}
		a.errorf("%s", safeText(err.Error()))
		return nil, exitConfig
	}
	seen := map[string]bool{}
	for _, w := range s.Warnings {
		if w.Code != "" && w.Code == skip || seen[w.String()] {
			continue
		}
		seen[w.String()] = true
		a.warnf("%s", safeText(w.String()))
	}
	return s, exitOK
}

// safeText escapes control characters in a message that may quote a
// settings file or a path (both can come with a repository), so that it
// cannot move the cursor, recolour or clear the user's terminal, or forge
// a line of guard's output.
func safeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
