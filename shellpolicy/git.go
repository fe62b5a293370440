package shellpolicy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitCommandKeys are git configuration keys (lower case, * for a
// subsection or name) whose value git runs as a shell command. Given with
// git -c, the value is read as shell code: "git -c core.pager='rm -rf ~' log"
// runs rm.
var gitCommandKeys = []reason{
	{"alias.*", "an alias that starts with ! runs a shell command"},
	{"core.pager", "the pager runs through the shell"},
	{"pager.*", "a command's pager runs through the shell"},
	{"core.editor", "the editor runs through the shell"},
	{"sequence.editor", "the rebase editor runs through the shell"},
	{"core.sshcommand", "the ssh command runs through the shell"},
	{"core.askpass", "the password prompt program runs"},
	{"core.fsmonitor", "the file-system monitor hook runs"},
	{"core.gitproxy", "the proxy command runs"},
	{"diff.external", "the external diff runs through the shell"},
	{"diff.*.command", "the diff driver runs through the shell"},
	{"diff.*.textconv", "the text conversion runs through the shell"},
	{"filter.*.clean", "the clean filter runs through the shell"},
	{"filter.*.smudge", "the smudge filter runs through the shell"},
	{"filter.*.process", "the filter process runs through the shell"},
	{"merge.*.driver", "the merge driver runs through the shell"},
	{"credential.helper", "a credential helper that starts with ! runs a shell command"},
	{"credential.*.helper", "a credential helper that starts with ! runs a shell command"},
	{"gpg.program", "the signing program runs"},
	{"gpg.*.program", "the signing program runs"},
	{"uploadpack.packobjectshook", "the pack-objects hook runs"},
	{"remote.*.uploadpack", "the remote upload-pack program runs"},
	{"remote.*.receivepack", "the remote receive-pack program runs"},
	{"web.browser", "the browser command runs"},
	{"browser.*.cmd", "the browser command runs through the shell"},
}

// gitLoaderKeys name files or directories git loads configuration or hooks
// from: what they hold is not visible in the command.
var gitLoaderKeys = []reason{
	{"core.hookspath", "hooks are run from the directory it names"},
	{"include.path", "more configuration is read from the file it names"},
	{"includeif.*.path", "more configuration is read from the file it names"},
	{"init.templatedir", "hooks are copied from the directory it names"},
}

func gitKeyIn(table []reason, key string) bool {
	key = strings.ToLower(key)
	for _, e := range table {
		pat := e.name
		if ok, _ := path.Match(pat, key); ok {
			return true
		}
		// A subsection may hold dots: diff.my.driver.command.
		if strings.Count(pat, "*") == 1 && strings.Count(key, ".") > 2 {
			pre, post, _ := strings.Cut(pat, "*")
			if strings.HasPrefix(key, pre) && strings.HasSuffix(key, post) {
				return true
			}
		}
	}
	return false
}

// gitConfig follows git -c and --config-env: a command set in the
// configuration is read as shell code, and an alias that names another git
// command becomes that command.
func (w *walker) gitConfig(cmd *command, p *plan) {
	args := cmd.words[1:]
	r := gitGlobalOpts.parse(args, true, false)
	aliases := map[string]string{}
	for _, o := range r.opts {
		switch o.name {
		case "--config-env":
			head, _ := literalHead(o.value)
			key, _, _ := strings.Cut(head, "=")
			if gitKeyIn(gitCommandKeys, key) || gitKeyIn(gitLoaderKeys, key) {
				p.setUnv("git --config-env " + key + " takes a command from the environment")
			}
		case "-c":
			s, ok := o.value.Literal()
			head, _ := literalHead(o.value)
			key, val, _ := strings.Cut(head, "=")
			lkey := strings.ToLower(key)
			switch {
			case gitKeyIn(gitLoaderKeys, key):
				why, _ := reasonFor(gitLoaderKeys, strings.ToLower(key))
				p.setUnv("git -c " + key + ": " + why + ", which guard does not read")
			case !gitKeyIn(gitCommandKeys, key):
			case !ok:
				p.setUnv("git -c " + key + " sets a command known only at run time")
			default:
				_, val, _ = strings.Cut(s, "=")
				if strings.HasPrefix(lkey, "alias.") || strings.HasPrefix(lkey, "credential.") {
					if code, isShell := strings.CutPrefix(val, "!"); isShell {
						w.code(p, code, syntax.LangPOSIX, "git -c "+key, false)
					} else if strings.HasPrefix(lkey, "alias.") {
						aliases[strings.TrimPrefix(lkey, "alias.")] = val
					}
					continue
				}
				w.code(p, val, syntax.LangPOSIX, "git -c "+key, false)
			}
		}
	}
	if len(aliases) == 0 || r.end >= len(args) {
		return
	}
	sub, ok := args[r.end].Literal()
	if !ok {
		return
	}
	if val, isAlias := aliases[strings.ToLower(sub)]; isAlias {
		words := []Word{cmd.words[0]}
		for _, f := range strings.Fields(val) {
			words = append(words, known(f))
		}
		words = append(words, args[r.end+1:]...)
		p.inner = append(p.inner, innerCmd{words: words, via: "git alias " + sub})
	}
}

func (p *plan) setUnv(why string) {
	if p.unv == "" {
		p.unv = why
	}
}

// commandVars are environment variables whose value programs run as a
// shell command: set for a command, or exported, their value is read as
// shell code.
var commandVars = []reason{
	{"PAGER", "pagers run through the shell (man, git, ...)"},
	{"MANPAGER", "man runs it through the shell"},
	{"GIT_PAGER", "git runs it through the shell"},
	{"EDITOR", "editors run through the shell (git, crontab, ...)"},
	{"VISUAL", "editors run through the shell"},
	{"GIT_EDITOR", "git runs it through the shell"},
	{"GIT_SEQUENCE_EDITOR", "git runs it through the shell"},
	{"GIT_SSH_COMMAND", "git runs it through the shell"},
	{"GIT_EXTERNAL_DIFF", "git runs it as its diff program"},
	{"GIT_ASKPASS", "git runs it to ask for passwords"},
	{"SSH_ASKPASS", "ssh runs it to ask for passwords"},
	{"SUDO_ASKPASS", "sudo runs it to ask for passwords"},
	{"LESSOPEN", "less runs it on every file it opens"},
	{"LESSCLOSE", "less runs it on every file it closes"},
	{"BROWSER", "programs run it to open a web page"},
}

// hiddenConfigVars carry configuration in which a command can hide
// (GIT_CONFIG_PARAMETERS="'alias.x=!rm -rf ~'"): guard does not read them.
var hiddenConfigVars = []reason{
	{"GIT_CONFIG_PARAMETERS", "git reads configuration, aliases that run commands included, from it"},
	{"GIT_CONFIG_COUNT", "git reads configuration, aliases that run commands included, from GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n"},
}

// assignCode reads the value of an assignment that programs run as a shell
// command.
func (w *walker) assignCode(a Assign, p *plan) {
	name := baseName(a.Name)
	if why, ok := reasonFor(hiddenConfigVars, name); ok || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		if !ok {
			why, _ = reasonFor(hiddenConfigVars, "GIT_CONFIG_COUNT")
		}
		p.setUnv(name + " is set: " + why)
		return
	}
	why, ok := reasonFor(commandVars, name)
	if !ok {
		return
	}
	s, ok := a.Value.Literal()
	if !ok {
		p.setUnv(name + " is set to a command known only at run time, and " + why)
		return
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	w.code(p, s, syntax.LangPOSIX, name+"=", false)
}
