package sandbox

import (
	"strings"
	"testing"
)

var (
	fullKernel  = kernel{abi: 7, signalScope: true, seccomp: true, userNotif: true, mountNS: true, mountHow: "CAP_SYS_ADMIN"}
	noMountNS   = kernel{abi: 7, signalScope: true, seccomp: true, userNotif: true, mountErr: "no CAP_SYS_ADMIN, and no user namespace was made"}
	oldLandlock = kernel{abi: 3, seccomp: true, userNotif: true, mountNS: true}
	noLandlock  = kernel{abiErr: "Landlock is not enabled", seccomp: true, userNotif: true, mountNS: true}
	noSeccomp   = kernel{abi: 7, signalScope: true, seccompErr: "seccomp filters are not available", mountNS: true}
	noUserNotif = kernel{abi: 7, signalScope: true, seccomp: true, userNotifErr: "pidfd_getfd is not available (Linux 5.6)", mountNS: true}
)

func examplePolicy() Policy {
	return Policy{
		Blocked: []BlockedPath{
			{Path: "/home/u/.ssh", Kind: Dir, Rule: "read(~/.ssh/**)"},
			{Path: "/home/u/.aws", Kind: Missing, Rule: "read(~/.aws/**)"},
			{Path: "/home/u/proj/.env", Kind: File, Rule: "read(*/.env)"},
			{Path: "/home/u/proj/secrets", Kind: Missing, Rule: "read(*/secrets)"},
		},
		Writable: []string{"/home/u/proj"},
		ReadOnly: []ReadOnlyPath{
			{Path: "/home/u/proj/.git/hooks", Kind: Dir, Why: "git hooks"},
			{Path: "/home/u/proj/.guard", Kind: Missing, Why: "guard's project settings"},
			{Path: "/home/u/.config/guard", Kind: Dir, Why: "guard's settings"},
		},
		TempDir: true,
	}
}

// item finds the item of what and path.
func item(t *testing.T, e Explanation, what, path string) Item {
	t.Helper()
	for _, it := range e.Items {
		if it.What == what && it.Path == path {
			return it
		}
	}
	t.Fatalf("no %s item for %q in %+v", what, path, e.Items)
	return Item{}
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name   string
		k      kernel
		policy func(p *Policy)
		what   string
		path   string
		kernel bool
		by     string
		note   string // a part of the note
	}{
		{"a blocked directory is covered", fullKernel, nil, "blocked", "/home/u/.ssh", true, "mount namespace", "empty, read-only directory"},
		{"a blocked file in the workspace is covered", fullKernel, nil, "blocked", "/home/u/proj/.env", true, "mount namespace", "cannot be opened"},
		{"a missing blocked path outside is refused by Landlock", fullKernel, nil, "blocked", "/home/u/.aws", true, "Landlock", "anything created there later"},
		{"a missing blocked path inside has nothing to cover", fullKernel, nil, "blocked", "/home/u/proj/secrets", true, "nothing there", "readable by it"},
		{"without a mount namespace, Landlock blocks outside", noMountNS, nil, "blocked", "/home/u/.ssh", true, "Landlock", "names in it can be listed"},
		{"without a mount namespace, a blocked path inside is gate only", noMountNS, nil, "blocked", "/home/u/proj/.env", false, "gate only", "run guard as root"},
		{"without Landlock, covers still block", noLandlock, nil, "blocked", "/home/u/.ssh", true, "mount namespace", ""},
		{"without Landlock, a missing path is gate only", noLandlock, nil, "blocked", "/home/u/.aws", false, "gate only", "Landlock is not enabled"},
		{"a read-only path inside is a read-only bind", fullKernel, nil, "read-only", "/home/u/proj/.git/hooks", true, "mount namespace", "read-only bind"},
		{"a missing read-only path cannot be bound", fullKernel, nil, "read-only", "/home/u/proj/.guard", false, "gate only", "could create it"},
		{"a read-only path outside is Landlock's", fullKernel, nil, "read-only", "/home/u/.config/guard", true, "Landlock", "outside every writable root"},
		{"without a mount namespace a read-only path inside is gate only", noMountNS, nil, "read-only", "/home/u/proj/.git/hooks", false, "gate only", ""},
		{"network off", fullKernel, nil, "network", "off", true, "Landlock, seccomp, network namespace", "Unix sockets only"},
		{"network off without a mount namespace has no network namespace", noMountNS, nil, "network", "off", true, "Landlock, seccomp", "Unix sockets only"},
		{"network off with an old Landlock is seccomp's", oldLandlock, nil, "network", "off", true, "seccomp", "seccomp alone"},
		{"network off without seccomp is gate only", noSeccomp, nil, "network", "off", false, "gate only", ""},
		{"TCP ports", fullKernel, func(p *Policy) { p.TCPConnect = []uint16{443, 22} }, "network", "tcp 443,22", true, "Landlock, seccomp", "no UDP"},
		{"TCP ports need Landlock ABI 4", oldLandlock, func(p *Policy) { p.TCPConnect = []uint16{443} }, "network", "tcp 443", false, "gate only", "ABI 4"},
		{"network on", fullKernel, func(p *Policy) { p.Network = true }, "network", "on", true, "nothing", "but to Unix sockets"},
		{"Unix sockets are checked by guard", fullKernel, nil, "unix-sockets", "", true, "seccomp user notification", "Docker's included"},
		{"Unix sockets with the network on too", fullKernel, func(p *Policy) { p.Network = true }, "unix-sockets", "", true, "seccomp user notification", "abstract names in the machine's network namespace"},
		{"without a network namespace, no servers", noMountNS, nil, "unix-sockets", "", true, "seccomp user notification", "may not bind or listen"},
		{"without user notification, no Unix connections", noUserNotif, nil, "unix-sockets", "", true, "seccomp", "no Unix socket connections at all"},
		{"without user notification and the network on, every socket is reachable", noUserNotif, func(p *Policy) { p.Network = true }, "unix-sockets", "", false, "nothing", "Docker's included"},
		{"an allowed socket", fullKernel, func(p *Policy) { p.UnixSockets = []UnixSocket{{Path: "/run/user/1/ssh.sock"}} }, "unix-socket", "/run/user/1/ssh.sock", true, "seccomp user notification", "allowed"},
		{"an allowed socket without user notification", noUserNotif, func(p *Policy) { p.UnixSockets = []UnixSocket{{Path: "/run/user/1/ssh.sock"}} }, "unix-socket", "/run/user/1/ssh.sock", true, "seccomp", "refused like every Unix socket"},
		{"a socket named docker.sock is refused", fullKernel, func(p *Policy) { p.UnixSockets = []UnixSocket{{Path: "/home/u/run/docker.sock"}} }, "unix-socket", "/home/u/run/docker.sock", true, "seccomp user notification", "dangerous = true"},
		{"a socket named docker.sock marked dangerous is allowed", fullKernel, func(p *Policy) { p.UnixSockets = []UnixSocket{{Path: "/home/u/run/docker.sock", Dangerous: true}} }, "unix-socket", "/home/u/run/docker.sock", true, "seccomp user notification", "marked dangerous: Docker"},
		{"a private directory is covered", fullKernel, func(p *Policy) {
			p.Private = []string{"/home/u/.cache/guard/caches"}
			p.Writable = append(p.Writable, "/home/u/.cache/guard/caches/proj-1")
		}, "private", "/home/u/.cache/guard/caches", true, "mount namespace", "only /home/u/.cache/guard/caches/proj-1 is visible"},
		{"a private directory without a mount namespace is Landlock's", noMountNS, func(p *Policy) { p.Private = []string{"/home/u/.cache/guard/caches"} }, "private", "/home/u/.cache/guard/caches", true, "Landlock", "nothing in it is visible"},
		{"a private directory in a writable root needs a mount namespace", noMountNS, func(p *Policy) { p.Private = []string{"/home/u/proj/cache"} }, "private", "/home/u/proj/cache", false, "nothing", "visible to the command"},
		{"chmod outside without a mount namespace", noMountNS, nil, "outside-writable", "", false, "gate only", "chmod"},
		{"the seccomp filter", noSeccomp, nil, "syscalls", "", false, "gate only", "ptrace"},
		{"signals without scoping", oldLandlock, nil, "signals", "", false, "gate only", "signal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := examplePolicy()
			if tc.policy != nil {
				tc.policy(&p)
			}
			p, err := p.clean()
			if err != nil {
				t.Fatal(err)
			}
			it := item(t, p.explain(tc.k), tc.what, tc.path)
			if it.Kernel != tc.kernel || it.By != tc.by || !strings.Contains(it.Note, tc.note) {
				t.Fatalf("got %+v, want kernel=%v by=%q note containing %q", it, tc.kernel, tc.by, tc.note)
			}
		})
	}
}

func TestBypassNeedsEveryBlockedPathBlocked(t *testing.T) {
	p, err := examplePolicy().clean()
	if err != nil {
		t.Fatal(err)
	}
	if m := p.explain(fullKernel).BypassMissing(); len(m) != 0 {
		t.Fatalf("a full kernel: want bypass possible, got %q", m)
	}
	m := p.explain(noMountNS).BypassMissing()
	if len(m) != 1 || !strings.Contains(m[0], "/home/u/proj/.env") || !strings.Contains(m[0], "read(*/.env)") {
		t.Fatalf("no mount namespace: want the blocked .env named with its rule, got %q", m)
	}
	m = p.explain(oldLandlock).BypassMissing()
	if len(m) != 1 || !strings.Contains(m[0], "Landlock ABI 4") {
		t.Fatalf("Landlock ABI 3: want it named, got %q", m)
	}
	m = p.explain(noSeccomp).BypassMissing()
	if len(m) != 1 || !strings.Contains(m[0], "seccomp") {
		t.Fatalf("no seccomp: want it named, got %q", m)
	}
}

func TestExplainText(t *testing.T) {
	p, _ := examplePolicy().clean()
	var b strings.Builder
	if err := p.explain(noMountNS).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"blocked          /home/u/proj/.env  (read(*/.env))\n                 gate only: inside the writable root /home/u/proj",
		"blocked          /home/u/.ssh  (read(~/.ssh/**))\n                 kernel: Landlock: unreadable",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in:\n%s", want, b.String())
		}
	}
	b.Reset()
	p.explain(oldLandlock).WriteText(&b)
	if !strings.Contains(b.String(), "bypass mode is refused on this machine: Landlock ABI 4") {
		t.Errorf("want the bypass refusal in:\n%s", b.String())
	}
}

func TestFeatures(t *testing.T) {
	for _, f := range fullKernel.features() {
		if !f.Provided {
			t.Errorf("a full kernel lacks %q: %s", f.Name, f.Missing)
		}
	}
	missing := map[string]string{}
	for _, f := range oldLandlock.features() {
		if !f.Provided {
			missing[f.Name] = f.Missing
		}
	}
	for name, want := range map[string]string{
		"network off: no TCP":                             "Landlock ABI 4",
		"no signals to processes outside":                 "Landlock ABI 6 signal scoping",
		"ioctl only on terminals and the allowed devices": "Landlock ABI 5",
	} {
		if missing[name] != want {
			t.Errorf("Landlock ABI 3: %q: want missing %q, got %q", name, want, missing[name])
		}
	}
	if len(missing) != 5 {
		t.Errorf("Landlock ABI 3: want 5 features missing, got %v", missing)
	}
	for _, f := range noUserNotif.features() {
		if want := f.Name == "Unix sockets: only the allowed ones and the command's own"; f.Provided == want {
			t.Errorf("without user notification: %q provided=%v", f.Name, f.Provided)
		}
	}
}

func TestPolicyClean(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		err  string
	}{
		{"a relative blocked path", Policy{Blocked: []BlockedPath{{Path: ".ssh"}}}, "must be absolute"},
		{"a relative writable root", Policy{Writable: []string{"proj"}}, "must be absolute"},
		{"an empty read-only path", Policy{ReadOnly: []ReadOnlyPath{{Path: ""}}}, "must be absolute"},
		{"a NUL in a path", Policy{Writable: []string{"/a\x00b"}}, "must be absolute"},
		{"a blocked path holding the workspace", Policy{Writable: []string{"/home/u/proj"}, Blocked: []BlockedPath{{Path: "/home/u", Rule: "read(~)"}}}, "holds the writable root /home/u/proj"},
		{"a blocked path that is the workspace", Policy{Writable: []string{"/w"}, Blocked: []BlockedPath{{Path: "/w/"}}}, "holds the writable root /w"},
		{"a fine policy", examplePolicy(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.p.clean()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got %v, want an error with %q", err, tc.err)
			}
		})
	}
	q, _ := Policy{Writable: []string{"/b/", "/a", "/b"}}.clean()
	if len(q.Writable) != 2 || q.Writable[0] != "/a" || q.Writable[1] != "/b" {
		t.Fatalf("want clean, sorted, unique paths, got %q", q.Writable)
	}
}
