package sandbox

import (
	"fmt"
	"io"
	"strings"
)

// Explanation says, for one policy on one machine, how each of its parts is
// enforced: by the kernel (and which mechanism), or at guard's gate only,
// and why. `guard sandbox explain` prints it; bypass mode needs it to have
// no blocked path enforced at the gate only.
type Explanation struct {
	Items []Item `json:"items"`
	// Kernel are the machine's own shortfalls for bypass mode (Landlock ABI
	// 4, seccomp), whatever the policy.
	Kernel []string `json:"kernel,omitempty"`
}

// Item is one part of a policy and how it is enforced.
type Item struct {
	// What is "blocked", "read-only", "writable", "tmpdir", "network",
	// "unix-socket", "outside-writable" (the metadata changes Landlock does
	// not cover), "syscalls" (the seccomp filter) or "signals".
	What string `json:"what"`
	Path string `json:"path,omitempty"`
	Rule string `json:"rule,omitempty"` // the rule or reason it comes from
	// Kernel is true when the kernel enforces it; false means guard's gate
	// only (it judges the commands it sees, not what they do).
	Kernel bool   `json:"kernel"`
	By     string `json:"by"`
	Note   string `json:"note,omitempty"`
}

// noMountNS is why a mount namespace is missing, and what to do.
func (k kernel) noMountNS() string {
	why := "no mount namespace can be made here"
	if k.mountErr != "" {
		why += " (" + k.mountErr + ")"
	}
	return why + ": run guard as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0)"
}

// Explain says how each part of p is enforced on a machine of status s. It
// looks at the policy only (the Kind of each path as given), so that it
// can be shown before anything runs; [Start] looks at the file system again
// and enforces the same.
func Explain(p Policy, s Status) (Explanation, error) {
	p, err := p.clean()
	if err != nil {
		return Explanation{}, err
	}
	return p.explain(s.kernel()), nil
}

func (p Policy) explain(k kernel) Explanation {
	var e Explanation
	e.Kernel = k.bypass().Missing
	add := func(it Item) { e.Items = append(e.Items, it) }
	landlock := "Landlock"
	if k.abi < 1 {
		landlock = ""
	}
	for _, b := range p.Blocked {
		it := Item{What: "blocked", Path: b.Path, Rule: b.Rule}
		w := p.insideWritable(b.Path)
		switch {
		case b.Kind != Missing && k.mountNS:
			it.Kernel, it.By = true, "mount namespace"
			it.Note = "covered by an empty, read-only directory"
			if b.Kind == File {
				it.Note = "covered by a node that cannot be opened"
			}
		case w != "" && b.Kind == Missing:
			it.Kernel, it.By = true, "nothing there"
			it.Note = "inside the writable root " + w + ": nothing to cover now; a file put there while the command runs is readable by it"
		case w != "":
			it.By = "gate only"
			it.Note = "inside the writable root " + w + ", where Landlock cannot refuse a read; " + k.noMountNS()
		case landlock == "":
			it.By = "gate only"
			it.Note = "no Landlock: " + k.abiErr
		default:
			it.Kernel, it.By = true, "Landlock"
			it.Note = "unreadable, as is anything created there later"
			if b.Kind == Dir {
				it.Note = "unreadable; the names in it can be listed (a mount namespace would hide them)"
			}
		}
		add(it)
	}
	for _, r := range p.ReadOnly {
		it := Item{What: "read-only", Path: r.Path, Rule: r.Why}
		w := p.insideWritable(r.Path)
		switch {
		case w == "" && landlock != "":
			it.Kernel, it.By, it.Note = true, "Landlock", "outside every writable root"
		case w == "":
			it.By, it.Note = "gate only", "no Landlock: "+k.abiErr
		case r.Kind == Missing:
			it.By, it.Note = "gate only", "not there: a read-only bind needs something to bind over, so the command could create it"
		case k.mountNS:
			it.Kernel, it.By, it.Note = true, "mount namespace", "a read-only bind inside the writable root "+w+"; the directories above it there cannot be renamed or removed"
		default:
			it.By, it.Note = "gate only", "inside the writable root "+w+"; "+k.noMountNS()
		}
		add(it)
	}
	for _, w := range p.Writable {
		it := Item{What: "writable", Path: w, Kernel: landlock != "", By: "Landlock", Note: "everything else is read-only"}
		if landlock == "" {
			it.By, it.Note = "nothing", "no Landlock: the command may write anywhere the user can"
		}
		add(it)
	}
	if p.TempDir {
		add(Item{What: "tmpdir", Kernel: landlock != "", By: "Landlock", Note: "a private directory, exported as TMPDIR and removed afterwards"})
	}
	if k.mountNS {
		add(Item{What: "outside-writable", Kernel: true, By: "mount namespace", Note: "the tree is mounted read-only: no chmod, utimes or xattr changes"})
	} else {
		add(Item{What: "outside-writable", By: "gate only", Note: "Landlock does not cover chmod, utimes and xattr changes; " + k.noMountNS()})
	}
	add(p.networkItem(k))
	if k.seccomp {
		add(Item{What: "syscalls", Kernel: true, By: "seccomp", Note: "no ptrace, io_uring, bpf, keyrings, mounts, new namespaces, TIOCSTI, set-user-ID files"})
	} else {
		add(Item{What: "syscalls", By: "gate only", Note: "no seccomp filter (" + k.seccompErr + "): ptrace, io_uring, mounts, new namespaces and TIOCSTI stay open"})
	}
	if k.signalScope {
		add(Item{What: "signals", Kernel: true, By: "Landlock", Note: "no signals to processes outside the sandbox"})
	} else {
		add(Item{What: "signals", By: "gate only", Note: "Landlock ABI 6 signal scoping missing: the command can signal the user's other processes"})
	}
	add(p.unixSocketsItem(k))
	for _, s := range p.UnixSockets {
		it := Item{What: "unix-socket", Path: s.Path}
		why := s.refused()
		switch {
		case why != "" && k.seccomp:
			it.Kernel, it.By = true, "seccomp"
			if k.userNotif {
				it.By = "seccomp user notification"
			}
			it.Note = fmt.Sprintf("refused: %s; if you mean it, write {path = %q, dangerous = true}", why, s.Path)
		case k.seccomp && k.userNotif:
			it.Kernel, it.By = true, "seccomp user notification"
			it.Note = "allowed: guard makes each connection to this socket itself (found again each time), with the network off or on"
			if s.Dangerous {
				it.Note += "; marked dangerous: " + orKnown(SocketDanger(s.Path))
			}
		case k.seccomp && p.netMode() != netOn:
			it.Kernel, it.By = true, "seccomp"
			it.Note = "refused like every Unix socket: guard cannot make connections for the command here (" + k.userNotifErr + ")"
		default:
			it.By = "nothing"
			it.Note = "reachable, as is every Unix socket the user can open: " + orKnown(k.userNotifErr+k.seccompErr)
		}
		add(it)
	}
	for _, d := range p.Private {
		it := Item{What: "private", Path: d}
		keeps := p.privateKeeps(d)
		but := "nothing in it is visible"
		if len(keeps) > 0 {
			but = "only " + strings.Join(keeps, ", ") + " is visible in it"
		}
		w := p.insideWritable(d)
		switch {
		case k.mountNS:
			it.Kernel, it.By, it.Note = true, "mount namespace", but+": an empty, read-only directory covers the rest"
		case w == "" && landlock != "":
			it.Kernel, it.By, it.Note = true, "Landlock", but+"; the names in it can be listed (a mount namespace would hide them)"
		default:
			it.By = "nothing"
			it.Note = "its contents are visible to the command: " + k.noMountNS()
		}
		add(it)
	}
	return e
}

// orKnown is s, or a word for nothing known.
func orKnown(s string) string {
	if s == "" {
		return "no reason known"
	}
	return s
}

// unixSocketsItem says how connections to Unix sockets are kept to the
// allowed ones and the command's own.
func (p Policy) unixSocketsItem(k kernel) Item {
	it := Item{What: "unix-sockets"}
	mode := p.netMode()
	switch {
	case !k.seccomp:
		it.By, it.Note = "gate only", "no seccomp: every Unix socket the user can open is reachable ("+k.seccompErr+")"
	case k.userNotif:
		it.Kernel, it.By = true, "seccomp user notification"
		it.Note = "guard makes every connection itself, after a check: to the allowed sockets below and to the command's own; " +
			"every other named or abstract Unix socket is refused (EACCES), Docker's included, with the network off or on. " +
			"Limits: datagrams sent with sendmsg to a named socket outside are not checked; the server sees guard (same user) as its peer"
		switch {
		case mode == netOff && !k.mountNS:
			it.Note += "; without a network namespace of its own the command may not bind or listen (an abstract name it took would be the machine's)"
		case mode != netOff:
			it.Note += "; the command may bind abstract names in the machine's network namespace"
		}
	case mode == netOn:
		it.By = "nothing"
		it.Note = "network on: every Unix socket the user can open is reachable, Docker's included (" + k.userNotifErr + ")"
	default:
		it.Kernel, it.By = true, "seccomp"
		it.Note = "no Unix socket connections at all (" + k.userNotifErr + "): allow_unix_sockets has no effect"
	}
	return it
}

func (p Policy) networkItem(k kernel) Item {
	switch p.netMode() {
	case netOn:
		return Item{What: "network", Path: "on", Kernel: true, By: "nothing", Note: "any connection, but to Unix sockets (see unix-sockets)"}
	case netTCP:
		ports := make([]string, len(p.TCPConnect))
		for i, port := range p.TCPConnect {
			ports[i] = fmt.Sprint(port)
		}
		it := Item{What: "network", Path: "tcp " + strings.Join(ports, ","), Note: "TCP connections to these ports only; no UDP (name lookups need a resolver over TCP); Unix sockets: see unix-sockets"}
		if k.abi >= 4 && k.seccomp {
			it.Kernel, it.By = true, "Landlock, seccomp"
		} else {
			it.By, it.Note = "gate only", "needs Landlock ABI 4 and seccomp"
		}
		return it
	}
	it := Item{What: "network", Path: "off"}
	switch {
	case k.abi >= 4 && k.seccomp && k.mountNS:
		it.Kernel, it.By, it.Note = true, "Landlock, seccomp, network namespace", "no IP, netlink or packet socket; Unix sockets only (see unix-sockets)"
	case k.abi >= 4 && k.seccomp:
		it.Kernel, it.By, it.Note = true, "Landlock, seccomp", "no IP, netlink or packet socket; Unix sockets only (see unix-sockets)"
	case k.seccomp:
		it.Kernel, it.By, it.Note = true, "seccomp", "Unix sockets only (without Landlock ABI 4, seccomp alone)"
	default:
		it.By, it.Note = "gate only", "no seccomp: "+k.seccompErr
	}
	return it
}

// Gaps are the items the kernel does not enforce here.
func (e Explanation) Gaps() []Item {
	var out []Item
	for _, it := range e.Items {
		if !it.Kernel {
			out = append(out, it)
		}
	}
	return out
}

// BypassMissing lists what keeps bypass mode from running with this policy
// on this machine: the kernel's shortfalls, and every blocked path that is
// not blocked by the kernel. Empty means bypass may run.
func (e Explanation) BypassMissing() []string {
	out := append([]string{}, e.Kernel...)
	for _, it := range e.Items {
		if it.What == "blocked" && !it.Kernel {
			out = append(out, fmt.Sprintf("the blocked path %s (%s) is enforced at the gate only: %s", it.Path, it.Rule, it.Note))
		}
	}
	return out
}

// WriteText prints the explanation for a person, one item a paragraph.
func (e Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, it := range e.Items {
		subject := it.Path
		if it.Rule != "" {
			subject += "  (" + it.Rule + ")"
		}
		how := "kernel: " + it.By
		if !it.Kernel {
			how = it.By
		}
		if it.Note != "" {
			how += ": " + it.Note
		}
		fmt.Fprintf(&b, "%-16s %s\n%-16s %s\n", it.What, subject, "", how)
	}
	if len(e.Kernel) > 0 {
		fmt.Fprintf(&b, "\nbypass mode is refused on this machine: %s\n", strings.Join(e.Kernel, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
