package main

import (
	"fmt"
	"strings"

	"github.com/guard-sh/guard/config"
	"github.com/guard-sh/guard/presets"
)

// starterRule is one rule of the starter settings, with the comment that
// says why it is there.
type starterRule struct {
	rule string
	why  string
}

// starterDeny are the deny rules every starter file has: secrets an agent
// has no business reading, and commands whose damage cannot be undone.
// They are a seatbelt; the sandbox is the wall (a deny rule cannot foresee
// every spelling of a command).
var starterDeny = []starterRule{
	{"read(~/.ssh)", "SSH keys. (git over SSH needs ~/.ssh: push from your own shell.)"},
	{"read(~/.aws)", "AWS credentials"},
	{"read(~/.gnupg)", "GPG keys"},
	{"read(~/.config/gh)", "the GitHub CLI's token"},
	{"read(~/.netrc)", "passwords for hosts, used by curl and git"},
	{"read(~/.git-credentials)", "git's stored passwords"},
	{"read(~/.config/gcloud)", "Google Cloud credentials"},
	{"read(~/.azure)", "Azure credentials"},
	{"read(~/.kube/config)", "Kubernetes credentials"},
	{"read(~/.docker/config.json)", "registry passwords"},
	{"read(*/.env)", "a project's secrets, in any directory"},
	{"read(*/.env.*)", ".env.local, .env.production, ... (and .env.example: narrow this if agents need it)"},
	{"shell(rm -rf /)", "the whole machine (also catches rm -rf /* and rm -rf $VAR)"},
	{"shell(rm -rf ~)", "the home directory (also rm -rf ~/ and $HOME)"},
	{"shell(sudo *)", "root: nothing an agent does needs it"},
	{"shell(su *)", "root, another way"},
	{"shell(doas *)", "root, another way"},
	{"shell(git push --force *)", "rewriting the remote's history"},
	{"shell(git push -f *)", "the same, short"},
	{"shell(git push --force-with-lease *)", "the same, politer"},
	{"shell(mkfs *)", "formatting a disk"},
	{"shell(dd * of=/dev/sd*)", "writing over a disk"},
	{"shell(dd * of=/dev/nvme*)", "writing over a disk"},
	{"shell(shutdown *)", "stopping the machine"},
	{"shell(reboot *)", "restarting the machine"},
}

// starterAsk are the ask rules of the starter file: actions that are fine,
// but that you want to see each time because others see their result.
var starterAsk = []starterRule{
	{"shell(git push *)", "publishing commits"},
	{"shell(git reset --hard *)", "throwing away uncommitted work"},
	{"shell(git clean *)", "deleting untracked files"},
}

// preset is a set of rules for one ecosystem (package presets): guard init
// writes each chosen preset's section after the starter rules.
type preset struct {
	name       string
	comment    string
	allow      []starterRule
	ask        []starterRule
	deny       []starterRule
	networkFor []starterRule
}

// loadPreset turns presets.Get(name) into the starter file's form.
func loadPreset(name string) (preset, error) {
	p, err := presets.Get(name)
	if err != nil {
		return preset{}, err
	}
	conv := func(rs []presets.Rule) []starterRule {
		out := make([]starterRule, len(rs))
		for i, r := range rs {
			out[i] = starterRule{r.Rule, r.Why}
		}
		return out
	}
	return preset{name: p.Name, comment: p.Summary, allow: conv(p.Allow), ask: conv(p.Ask), deny: conv(p.Deny), networkFor: conv(p.NetworkFor)}, nil
}

// starterSettings is the text of the starter settings file.
func starterSettings(agent string, chosen []preset) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# guard's settings, written by guard init --agent %s.\n", agent)
	w("# Every setting is in docs/settings.md. Check a rule before you rely on it:\n")
	w("#   guard check shell 'git push --force origin main'\n")
	w("#   guard check read ~/.ssh/id_ed25519\n")
	w("# and see every rule with its file and line: guard rules list\n\n")
	w("[guard]\n")
	w("# default asks you about whatever no rule decides. Others: accept-edits,\n")
	w("# auto (asks [permissions.auto] first), plan, dont-ask, bypass (only under\n")
	w("# the sandbox). Set it per workspace with 'guard mode MODE'.\n")
	w("permission_mode = \"default\"\n\n")
	w("[permissions]\n")
	w("# Any matching deny wins, then ask, then allow. Path rules match the path and\n")
	w("# everything under it; * matches any run of characters, / included.\n")
	writeList(&b, "deny", starterDeny, chosen, func(p preset) []starterRule { return p.deny })
	writeList(&b, "ask", starterAsk, chosen, func(p preset) []starterRule { return p.ask })
	writeList(&b, "allow", nil, chosen, func(p preset) []starterRule { return p.allow })
	w("# guard's built-in rules allow read-only commands (ls, cat, git status, ...).\n")
	w("read_only_defaults = true\n\n")
	w("[sandbox]\n")
	w("# What a command guard runs (guard exec) may reach. Network is off unless\n")
	w("# a command is listed here, e.g. allow_network_for = [\"npm install *\"].\n")
	w("network = \"off\"\n")
	writeList(&b, "allow_network_for", nil, chosen, func(p preset) []starterRule { return p.networkFor })
	w("# Writable places besides the workspace, e.g. [\"~/scratch\"].\n")
	w("allow_write = []\n")
	return b.String()
}

func writeList(b *strings.Builder, key string, base []starterRule, chosen []preset, of func(preset) []starterRule) {
	fmt.Fprintf(b, "%s = [\n", key)
	for _, r := range base {
		fmt.Fprintf(b, "  %-40s # %s\n", config.QuoteTOML(r.rule)+",", r.why)
	}
	for _, p := range chosen {
		rs := of(p)
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(b, "  # preset %s: %s\n", p.name, p.comment)
		for _, r := range rs {
			fmt.Fprintf(b, "  %-40s # %s\n", config.QuoteTOML(r.rule)+",", r.why)
		}
	}
	b.WriteString("]\n")
}
