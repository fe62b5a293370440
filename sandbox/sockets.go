package sandbox

import (
	"path"
	"strings"
)

// dangerousSockets are the Unix sockets whose server does what the sandbox
// exists to prevent: runs commands as root or as the user outside the
// sandbox, types into other windows or terminals. A socket listed in
// [Policy.UnixSockets] that matches one is refused unless it is marked
// Dangerous.
//
// A pattern without a slash matches the socket's base name wherever it is
// (docker.sock in a home directory is still Docker's); a pattern with one
// matches the whole path. Both are path.Match patterns. guard's settings
// refuse the well-known locations already; this table is the sandbox's
// own check, by name, of what reaches it.
var dangerousSockets = []struct{ pattern, why string }{
	{"docker.sock", "Docker's API: root on the machine (or the user's whole account, rootless)"},
	{"dockershim.sock", "a container runtime's API: root on the machine"},
	{"cri-dockerd.sock", "a container runtime's API: root on the machine"},
	{"containerd.sock", "containerd's API: root on the machine"},
	{"containerd.sock.ttrpc", "containerd's API: root on the machine"},
	{"crio.sock", "CRI-O's API: root on the machine"},
	{"podman.sock", "Podman's API: root on the machine (or the user's whole account, rootless)"},
	{"buildkitd.sock", "BuildKit runs build steps with the daemon's privileges"},
	{"kubelet.sock", "the kubelet: the node's pods"},
	{"libvirt-sock", "libvirt: virtual machines and their disks"},
	{"virtqemud-sock", "libvirt: virtual machines and their disks"},
	{"snapd.socket", "snapd installs software as root"},
	{"snapd-snap.socket", "snapd installs software as root"},
	{"system_bus_socket", "the system D-Bus: services that act as root"},
	{"/run/systemd/*", "systemd: starts and stops services as root"},
	{"/run/user/*/bus", "the session D-Bus: starts programs outside the sandbox"},
	{"/run/user/*/systemd/*", "systemd --user: starts programs outside the sandbox"},
	{"/tmp/.X11-unix/*", "X11: reads and types into every window"},
	{"wayland-[0-9]*", "the Wayland display: other windows"},
	{"/tmp/tmux-*/*", "tmux: types into the user's other terminals"},
	{"/run/screen/*/*", "screen: types into the user's other terminals"},
	{"vscode-ipc-*.sock", "the editor's IPC: runs commands outside the sandbox"},
	{"/var/lib/lxd/unix.socket", "LXD: root on the machine"},
	{"/var/snap/lxd/common/lxd/unix.socket", "LXD: root on the machine"},
	{"/var/lib/incus/unix.socket", "Incus: root on the machine"},
}

// SocketDanger returns why connecting to the Unix socket at p (absolute,
// clean) hands over the machine or the session, or "" when nothing is known
// against it.
func SocketDanger(p string) string {
	base := path.Base(p)
	for _, d := range dangerousSockets {
		subject := base
		if strings.Contains(d.pattern, "/") {
			subject = p
		}
		if ok, _ := path.Match(d.pattern, subject); ok {
			return d.why
		}
	}
	return ""
}
