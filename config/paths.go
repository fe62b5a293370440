package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SystemManagedFile is where an administrator puts managed settings.
const SystemManagedFile = "/etc/guard/managed.toml"

// LoadOptions says where to find every source of settings. [OptionsFromEnv]
// fills it from the environment; Workspace comes from [ResolveWorkspace].
type LoadOptions struct {
	Home       string // the user's home directory; required
	ConfigHome string // $XDG_CONFIG_HOME; "" means Home/.config
	StateHome  string // $XDG_STATE_HOME; "" means Home/.local/state
	RuntimeDir string // $XDG_RUNTIME_DIR, where the session's sockets are; may be ""

	// ManagedFile is $GUARD_MANAGED_SETTINGS. It is used only while
	// SystemManagedFile does not exist: once an administrator has written
	// managed settings, an environment variable cannot swap them out.
	ManagedFile string
	// SystemManagedFile is "" for the real /etc/guard/managed.toml.
	SystemManagedFile string

	Workspace  string // absolute, symlinks resolved
	ConfigFile string // --config: replaces the global settings file for this run
	Flags      Flags

	// LookupEnv expands $VAR in allow_write and allow_unix_sockets; nil
	// expands nothing (such entries are dropped with a warning).
	LookupEnv func(string) (string, bool)
}

// Flags are settings given on the command line for one run. Rules from
// flags have source "flag".
type Flags struct {
	Mode       string   // --mode
	Allow      []string // --allow RULE
	Deny       []string // --deny RULE
	Permit     []string // --permit RULE: an unattended run's permissions, replacing [unattended]
	Network    string   // --network on|off, "" when not given
	AllowWrite []string // --allow-write PATH
}

// FlagError is a flag that asks for something invalid or something the
// managed settings forbid. The CLI exits 64: the command line must change.
type FlagError struct {
	Flag string // without dashes
	Msg  string
}

func (e *FlagError) Error() string { return fmt.Sprintf("--%s: %s", e.Flag, e.Msg) }

// OptionsFromEnv fills the parts of LoadOptions the environment decides:
// HOME, the XDG directories and GUARD_MANAGED_SETTINGS. XDG variables that
// hold a relative path are ignored, as the XDG specification says.
func OptionsFromEnv(getenv func(string) string) (LoadOptions, error) {
	o := LoadOptions{
		Home:        getenv("HOME"),
		ConfigHome:  xdg(getenv("XDG_CONFIG_HOME")),
		StateHome:   xdg(getenv("XDG_STATE_HOME")),
		RuntimeDir:  xdg(getenv("XDG_RUNTIME_DIR")),
		ManagedFile: getenv("GUARD_MANAGED_SETTINGS"),
	}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return o, fmt.Errorf("no home directory: set HOME")
		}
		o.Home = h
	}
	if !filepath.IsAbs(o.Home) {
		return o, fmt.Errorf("HOME=%q is not an absolute path", o.Home)
	}
	if o.ManagedFile != "" && !filepath.IsAbs(o.ManagedFile) {
		return o, fmt.Errorf("GUARD_MANAGED_SETTINGS=%q is not an absolute path", o.ManagedFile)
	}
	return o, nil
}

func xdg(v string) string {
	if filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return ""
}

// DefaultPaths returns where guard's files are for these options.
func DefaultPaths(o LoadOptions) Paths {
	home := filepath.Clean(o.Home)
	cfg := o.ConfigHome
	if cfg == "" {
		cfg = filepath.Join(home, ".config")
	}
	state := o.StateHome
	if state == "" {
		state = filepath.Join(home, ".local", "state")
	}
	p := Paths{
		Home:        home,
		Workspace:   o.Workspace,
		ConfigDir:   filepath.Join(cfg, "guard"),
		StateDir:    filepath.Join(state, "guard"),
		ManagedFile: managedFile(o),
	}
	p.GlobalFile = filepath.Join(p.ConfigDir, "settings.toml")
	if o.ConfigFile != "" {
		p.GlobalFile = filepath.Clean(o.ConfigFile)
	}
	if o.Workspace != "" {
		p.WorkspaceFile = WorkspaceFile(p.ConfigDir, o.Workspace)
		p.ProjectFiles = []string{
			filepath.Join(o.Workspace, ".guard", "settings.toml"),
			filepath.Join(o.Workspace, ".guard", "settings.local.toml"),
		}
	}
	p.ApprovalsFile = filepath.Join(p.ConfigDir, "approvals.json")
	p.TrustFile = filepath.Join(p.ConfigDir, "trust.json")
	p.AuditFile = filepath.Join(p.StateDir, "audit.jsonl")
	p.SessionsDir = filepath.Join(p.StateDir, "sessions")
	return p
}

func systemManaged(o LoadOptions) string {
	if o.SystemManagedFile != "" {
		return o.SystemManagedFile
	}
	return SystemManagedFile
}

// managedFile picks the managed settings file: the system's when it exists
// (or cannot be checked), else $GUARD_MANAGED_SETTINGS, else the system's.
func managedFile(o LoadOptions) string {
	sys := systemManaged(o)
	if o.ManagedFile == "" || filepath.Clean(o.ManagedFile) == sys {
		return sys
	}
	if _, err := os.Lstat(sys); errors.Is(err, fs.ErrNotExist) {
		return filepath.Clean(o.ManagedFile)
	}
	return sys
}

// WorkspaceFile is the user's own settings file for a workspace:
// <configDir>/workspaces/<name>-<hash>.toml, the name for people reading
// the directory and the hash (of the whole path) to tell apart workspaces
// of the same name.
func WorkspaceFile(configDir, workspace string) string {
	return filepath.Join(configDir, "workspaces", WorkspaceKey(workspace)+".toml")
}

// WorkspaceKey names a workspace among others in one of guard's
// directories (its settings file, its toolchain caches): the directory's
// base name, made safe, and a hash of its whole path.
func WorkspaceKey(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return safeName(filepath.Base(workspace)) + "-" + hex.EncodeToString(sum[:])[:12]
}

// safeName keeps a directory name's letters, digits, '.', '_' and '-', so
// that a hostile name cannot reach outside the workspaces directory.
func safeName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() >= 40 {
			break
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && b.Len() > 0 {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "root"
	}
	return b.String()
}

// ResolveWorkspace finds the workspace: the --workspace flag (relative to
// cwd), else the top of the git repository holding cwd (the nearest
// directory with a .git directory or file), else cwd. The answer is
// absolute with symlinks resolved. The root directory is refused: a
// workspace is where commands may write.
func ResolveWorkspace(flag, cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("current directory %q is not absolute", cwd)
	}
	var dir string
	if flag != "" {
		p := flag
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", fmt.Errorf("workspace %s: %v", p, unwrapPath(err))
		}
		fi, err := os.Stat(real)
		if err != nil {
			return "", fmt.Errorf("workspace %s: %v", p, unwrapPath(err))
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("workspace %s is not a directory", p)
		}
		dir = real
	} else {
		real, err := filepath.EvalSymlinks(cwd)
		if err != nil {
			return "", fmt.Errorf("current directory: %v", unwrapPath(err))
		}
		dir = real
		for d := real; ; {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				dir = d
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	if dir == "/" {
		return "", errors.New("the workspace would be / (the whole file system); run guard inside a project or pass --workspace DIR")
	}
	return dir, nil
}
