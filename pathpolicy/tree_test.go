package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree is a real directory tree in a temp dir: a home with secrets, a
// workspace with every kind of hostile link, and guard's own files.
type tree struct {
	root, home, ws, cfg, state, outside string
}

// newTree builds the tree. Specs are "path" (a file), "path/" (a
// directory) or "path -> target" (a symlink); paths are relative to root.
func newTree(t testing.TB) tree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{
		root: root, home: root + "/home/u", ws: root + "/home/u/proj",
		cfg: root + "/home/u/.config/guard", state: root + "/home/u/.local/state/guard", outside: root + "/outside",
	}
	build(t, root,
		"home/u/.ssh/id_rsa",
		"home/u/.ssh/config",
		"home/u/.aws/credentials",
		"home/u/.bashrc",
		"home/u/notes.txt",
		"home/u/.config/guard/settings.toml",
		"home/u/.config/guard/approvals.json",
		"home/u/.local/state/guard/audit.jsonl",
		"home/u/proj/src/main.go",
		"home/u/proj/README.md",
		"home/u/proj/.env",
		"home/u/proj/.guard/settings.toml",
		"home/u/proj/.git/hooks/",
		"home/u/proj/.git/config",
		"home/u/proj/sub/deeper/",
		"home/u/proj/sub/x",
		"home/u/proj/x",
		"home/u/proj/ok.txt -> ../.ssh/id_rsa",
		"home/u/proj/chain1 -> chain2",
		"home/u/proj/chain2 -> sub/chain3",
		"home/u/proj/sub/chain3 -> ../../.ssh/id_rsa",
		"home/u/proj/sshdir -> ../.ssh",
		"home/u/proj/abs -> "+root+"/home/u/.ssh",
		"home/u/proj/up -> sub/deeper",
		"home/u/proj/loop1 -> loop2",
		"home/u/proj/loop2 -> loop1",
		"home/u/proj/selfloop -> selfloop",
		"home/u/proj/dangling -> nowhere/at/all",
		"home/u/proj/hooks -> .git/hooks",
		"home/u/proj/cfglink -> ../.config/guard",
		"home/u/proj/notes -> ../notes.txt",
		"outside/data.txt",
		"outside/secret.pem",
	)
	return tr
}

func build(t testing.TB, root string, specs ...string) {
	t.Helper()
	for _, s := range specs {
		name, target, isLink := strings.Cut(s, " -> ")
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case isLink:
			err = os.Symlink(target, p)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(name+"\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
