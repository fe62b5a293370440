package pathpolicy

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/guard-sh/guard/rule"
)

// TestBindMount: a directory mounted a second time elsewhere is caught by
// its identity. It needs the right to mount (root); elsewhere it skips.
func TestBindMount(t *testing.T) {
	tr := newTree(t)
	mnt := tr.outside + "/mnt"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(tr.home+"/.ssh", mnt, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	p := newPolicy(t, tr, "deny read(~/.ssh/*)", "ask read(~/.ssh)")
	runChecks(t, tr, p, []checkCase{
		{name: "a file through a bind mount of a denied dir", op: rule.Read, path: mnt + "/id_rsa", decision: rule.Deny, reason: ReasonRuleDeny, rule: "read(~/.ssh/*)", on: FormSameFile},
		{name: "the bind mount itself", op: rule.Read, path: mnt, decision: rule.Ask, reason: ReasonRuleAsk, rule: "read(~/.ssh)", on: FormSameFile},
	})
}
