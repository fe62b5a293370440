package config

import (
	"path/filepath"
	"strings"

	"github.com/guard-sh/guard/rule"
)

// A dangerous location is one whose opening lets a sandboxed command act
// outside the sandbox later: code that runs at the user's next login, keys
// that log in as the user, a socket that hands over the machine. An
// allow_write or allow_unix_sockets entry that reaches one is refused unless
// it is written as {path = "...", dangerous = true}.
//
// An entry reaches a location when it is the location, contains it (writing
// all of ~ includes ~/.bashrc), or, for locations marked inside, lies within
// it (~/.ssh/authorized_keys).
type dangerous struct {
	path   string // "~/" is the home directory, "$XDG_RUNTIME_DIR/" the runtime dir
	inside bool   // everything within it is dangerous too
	why    string
}

// dangerousWrites are the places allow_write must not open by accident.
var dangerousWrites = []dangerous{
	{"/", false, "the whole file system"},
	{"~", false, "the home directory holds shell start-up files, keys and every tool's configuration"},
	{"~/.ssh", true, "keys and authorized_keys: log in as the user"},
	{"~/.gnupg", true, "signing keys and gpg-agent's configuration"},
	{"~/.bashrc", true, "runs in every new interactive shell, outside the sandbox"},
	{"~/.bash_profile", true, "runs at login, outside the sandbox"},
	{"~/.bash_login", true, "runs at login, outside the sandbox"},
	{"~/.bash_logout", true, "runs at logout, outside the sandbox"},
	{"~/.profile", true, "runs at login, outside the sandbox"},
	{"~/.zshrc", true, "runs in every new zsh, outside the sandbox"},
	{"~/.zshenv", true, "runs in every zsh, scripts included"},
	{"~/.zprofile", true, "runs at zsh login"},
	{"~/.zlogin", true, "runs at zsh login"},
	{"~/.inputrc", true, "key bindings of every readline program"},
	{"~/.gitconfig", true, "git runs core.pager, core.fsmonitor and aliases from it"},
	{"~/.vimrc", true, "the editor runs it"},
	{"~/.emacs", true, "the editor runs it"},
	{"~/.emacs.d", true, "the editor runs it"},
	{"~/.config", false, "holds guard's own settings and other programs' autostart entries"},
	{"~/.config/guard", true, "guard's own settings and trust records"},
	{"~/.config/git", true, "git's configuration: pager, hooks path, aliases"},
	{"~/.config/systemd", true, "user services that systemd starts outside the sandbox"},
	{"~/.config/autostart", true, "programs the desktop starts at login"},
	{"~/.config/fish", true, "runs in every new fish shell"},
	{"~/.config/nvim", true, "the editor runs it"},
	{"~/.local", false, "holds ~/.local/bin and guard's state"},
	{"~/.local/bin", true, "on PATH: a program put there runs in place of the real one"},
	{"~/bin", true, "on PATH: a program put there runs in place of the real one"},
	{"~/.local/state/guard", true, "guard's audit log and sessions"},
	{"~/.local/share/systemd", true, "user timers and services"},
	{"~/.docker", true, "docker's configuration: credential helpers it runs"},
	{"~/.kube", true, "cluster credentials"},
	{"~/.aws", true, "cloud credentials"},
	{"/etc", true, "the system's configuration"},
	{"/usr", true, "the system's programs"},
	{"/bin", true, "the system's programs"},
	{"/sbin", true, "the system's programs"},
	{"/lib", true, "the system's libraries"},
	{"/lib64", true, "the system's libraries"},
	{"/boot", true, "the kernel and boot loader"},
	{"/home", false, "every user's home"},
	{"/var", false, "system state, spool and service data"},
	{"/var/spool", true, "cron and at jobs"},
	{"/proc", true, "kernel and process state"},
	{"/sys", true, "kernel settings"},
	{"/dev", true, "devices"},
	{"/run", false, "the system's sockets"},
	{"$XDG_RUNTIME_DIR", false, "the session's sockets (D-Bus, systemd, the display)"},
}

// dangerousSockets are the Unix sockets that hand over the machine or the
// user's session. A "*" in a path matches any run of characters.
var dangerousSockets = []dangerous{
	{"/var/run/docker.sock", true, "docker: root on the machine"},
	{"/run/docker.sock", true, "docker: root on the machine"},
	{"$XDG_RUNTIME_DIR/docker.sock", true, "rootless docker: the user's whole account"},
	{"/run/containerd", true, "containerd: root on the machine"},
	{"/run/podman", true, "podman: root on the machine"},
	{"$XDG_RUNTIME_DIR/podman", true, "rootless podman: the user's whole account"},
	{"/run/crio", true, "cri-o: root on the machine"},
	{"/var/run/crio", true, "cri-o: root on the machine"},
	{"/run/dbus/system_bus_socket", true, "the system D-Bus: services that act as root"},
	{"/var/run/dbus/system_bus_socket", true, "the system D-Bus: services that act as root"},
	{"$XDG_RUNTIME_DIR/bus", true, "the session D-Bus: starts programs outside the sandbox"},
	{"/run/systemd", true, "systemd: starts services"},
	{"$XDG_RUNTIME_DIR/systemd", true, "systemd --user: starts programs outside the sandbox"},
	{"/tmp/.X11-unix", true, "X11: reads and types into every window"},
	{"$XDG_RUNTIME_DIR/wayland-*", true, "the Wayland display: other windows"},
	{"/run/libvirt", true, "libvirt: virtual machines and their disks"},
	{"/var/run/libvirt", true, "libvirt: virtual machines and their disks"},
	{"/run/snapd.socket", true, "snapd: installs software as root"},
	{"/run/user/*/bus", true, "a session D-Bus"},
}

// dangerReason returns why p (absolute and clean) reaches a location in
// table, or "" when it does not. home and runtime expand the table's "~" and
// "$XDG_RUNTIME_DIR"; an entry that needs an empty one is skipped.
func dangerReason(table []dangerous, p, home, runtime string) string {
	for _, d := range table {
		loc := d.path
		switch {
		case loc == "~" || strings.HasPrefix(loc, "~/"):
			if home == "" {
				continue
			}
			loc = filepath.Join(home, loc[1:])
		case strings.HasPrefix(loc, "$XDG_RUNTIME_DIR"):
			if runtime == "" {
				continue
			}
			loc = filepath.Join(runtime, strings.TrimPrefix(loc, "$XDG_RUNTIME_DIR"))
		}
		g := rule.CompileGlob(loc)
		if g.MatchString(p) || contains(p, loc) || (d.inside && within(p, g)) {
			return d.why
		}
	}
	return ""
}

// contains reports whether directory dir holds loc (a path or a glob whose
// literal beginning is a directory).
func contains(dir, loc string) bool {
	if i := strings.IndexByte(loc, '*'); i >= 0 {
		loc = loc[:i]
	}
	if dir == "/" {
		return true
	}
	return strings.HasPrefix(loc, dir+"/")
}

// within reports whether p lies below a location matched by g.
func within(p string, g rule.Glob) bool {
	for q := filepath.Dir(p); ; q = filepath.Dir(q) {
		if g.MatchString(q) {
			return true
		}
		if q == "/" || q == "." {
			return false
		}
	}
}

// defaultEnvDeny is the environment guard keeps from a sandboxed command
// unless [sandbox] env_deny in the user's settings replaces it. Each entry
// is a glob over variable names ("*" any run), case-sensitive.
var defaultEnvDeny = []struct{ glob, why string }{
	{"*_TOKEN", "API and CI tokens (GITHUB_TOKEN, NPM_TOKEN, CI_JOB_TOKEN, HF_TOKEN)"},
	{"*_TOKEN_*", "tokens with a suffix (GITLAB_TOKEN_RO)"},
	{"TOKEN", "a bare token"},
	{"*SECRET*", "client secrets and secret keys (AWS_SECRET_ACCESS_KEY, CLIENT_SECRET)"},
	{"*PASSWORD*", "passwords (PGPASSWORD, MYSQL_PASSWORD, DB_PASSWORD)"},
	{"*PASSWD*", "passwords, spelt short"},
	{"*_API_KEY*", "API keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY)"},
	{"*APIKEY*", "API keys, spelt as one word"},
	{"*_ACCESS_KEY*", "cloud access keys"},
	{"*PRIVATE_KEY*", "private keys passed in the environment"},
	{"*CREDENTIAL*", "credentials and the files that hold them (GOOGLE_APPLICATION_CREDENTIALS)"},
	{"AWS_*", "AWS credentials, session tokens and profiles"},
	{"GITHUB_TOKEN", "GitHub's token, named for clarity (already matched by *_TOKEN)"},
	{"GH_TOKEN", "the GitHub CLI's token"},
	{"DOCKER_AUTH_CONFIG", "registry credentials"},
	{"DATABASE_URL", "a connection string with its password"},
	{"*_DATABASE_URL", "connection strings with their passwords"},
	{"*_DSN", "connection strings (SENTRY_DSN, DB_DSN)"},
	{"*WEBHOOK*", "webhook URLs post as their owner"},
	{"*_AUTH_TOKEN", "npm and registry auth tokens"},
	{"NETRC", "a path to stored logins"},
}

// DefaultEnvDeny returns the built-in env_deny globs.
func DefaultEnvDeny() []string {
	out := make([]string, len(defaultEnvDeny))
	for i, e := range defaultEnvDeny {
		out[i] = e.glob
	}
	return out
}

// EnvAllowed reports whether a variable of this name may be passed to a
// sandboxed command: it matches no env_deny glob, or env_keep names it.
func (s Sandbox) EnvAllowed(name string) bool {
	for _, k := range s.EnvKeep {
		if k == name {
			return true
		}
	}
	return !matchesAny(s.EnvDeny, name)
}

func matchesAny(globs []string, name string) bool {
	for _, g := range globs {
		if rule.CompileGlob(g).MatchString(name) {
			return true
		}
	}
	return false
}
