package gitconfig

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitList is what git itself reads from a configuration file: its
// variables as "name=value" lines (a bare key has the value "true", as
// parse gives it), and whether it refused the file.
func gitList(t testing.TB, src string) ([]string, bool) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "--file", f, "--list", "-z")
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
		return nil, false
	}
	var got []string
	for _, item := range strings.Split(out.String(), "\x00") {
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "\n")
		if !ok {
			value = "true"
		}
		got = append(got, name+"="+value)
	}
	return got, true
}

func ourList(src string) ([]string, bool) {
	entries, err := parse(src)
	if err != nil {
		return nil, false
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.name+"="+e.value)
	}
	return got, true
}

func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the reader cannot be compared with git's own")
	}
}

// checkAgainstGit holds parse to git's own reading of src.
func checkAgainstGit(t *testing.T, src string) {
	t.Helper()
	want, wantOK := gitList(t, src)
	got, gotOK := ourList(src)
	if wantOK != gotOK {
		t.Fatalf("%q: git reads it: %v, guard: %v (git: %q; guard: %q)", src, wantOK, gotOK, want, got)
	}
	if strings.Join(want, "\x00") != strings.Join(got, "\x00") {
		t.Fatalf("%q:\n git reads   %q\n guard reads %q", src, want, got)
	}
}

// TestParseAsGitDoes: the reader agrees with git on every corner of the
// syntax that could hide a hooks path or an include from a reader that is
// less careful than git.
func TestParseAsGitDoes(t *testing.T) {
	requireGit(t)
	cases := []struct{ name, src string }{
		{"plain", "[core]\n\thooksPath = .githooks\n"},
		{"case of section and key", "[CoRe]\nHOOKSPATH=x\n"},
		{"subsection keeps its case", "[filter \"Lfs\"]\nclean = ./x\n"},
		{"old-style subsection is lower-cased", "[filter.Lfs]\nclean = ./x\n"},
		{"quoted value", "[core]\nhooksPath = \"a b\"\n"},
		{"quotes in the middle", "[core]\nhooksPath = a\" b \"c\n"},
		{"escapes", "[core]\nhooksPath = a\\\\b\\\"c\\td\\ne\n"},
		{"backspace escape", "[core]\nhooksPath = ab\\bc\n"},
		{"unknown escape", "[core]\nhooksPath = a\\qb\n"},
		{"continued line", "[core]\nhooksPath = .git\\\nhooks\n"},
		{"continued line at the end", "[core]\nhooksPath = x\\"},
		{"comment after value", "[core]\nhooksPath = x # y\n"},
		{"semicolon comment", "[core]\nhooksPath = x;y\n"},
		{"comment char in quotes", "[core]\nhooksPath = \"x#y\"\n"},
		{"inner blanks kept", "[core]\nhooksPath = a \t b  \n"},
		{"CRLF lines", "[core]\r\nhooksPath = x\r\n"},
		{"lone CR in value", "[core]\nhooksPath = a\rb\n"},
		{"CR before the end of value", "[core]\nhooksPath = a\r\n[x]\n"},
		{"bare key is true", "[core]\nbare\n"},
		{"bare key then comment", "[core]\nbare # c\n"},
		{"key and header on one line", "[core] hooksPath = x\n"},
		{"two headers on one line", "[a][core]hooksPath=x\n"},
		{"unterminated quote", "[core]\nhooksPath = \"x\n"},
		{"unterminated header", "[core\nhooksPath = x\n"},
		{"subsection escapes", "[include \"a\\\"b\\\\c\"]\npath = x\n"},
		{"subsection with a newline", "[include \"a\nb\"]\npath = x\n"},
		{"space before the subsection", "[includeIf   \"gitdir:~/w/\"]\n path = x\n"},
		{"empty section", "[]\nx = y\n"},
		{"key with digits and dashes", "[a]\nk-1 = v\n"},
		{"key starting with a digit", "[a]\n1k = v\n"},
		{"key with an underscore", "[a]\nk_1 = v\n"},
		{"byte order mark", "\ufeff[core]\nhooksPath = x\n"},
		{"vertical tab is no blank", "[core]\n\vhooksPath = x\n"},
		{"form feed in value", "[core]\nhooksPath = a\fb\n"},
		{"value with only blanks", "[core]\nhooksPath =   \n"},
		{"empty value", "[core]\nhooksPath =\n"},
		{"no newline at the end", "[core]\nhooksPath = x"},
		{"header with a dot and a subsection", "[a.b \"c\"]\nk = v\n"},
		{"equals without key", "[a]\n= v\n"},
		{"tab around equals", "[a]\nk\t=\tv\n"},
		{"NUL byte", "[a]\nk = v\x00w\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkAgainstGit(t, tc.src) })
	}
}

// FuzzParse holds the reader to git's own on any input: where git reads a
// variable, guard reads the same, or the file's places could hide.
func FuzzParse(f *testing.F) {
	requireGit(f)
	for _, s := range []string{
		"[core]\n\thooksPath = .githooks\n",
		"[include]\npath = ../x\n[includeIf \"gitdir:/w/\"]\npath = y\n",
		"[filter \"lfs\"]\nclean = \"./a b\" %f\n",
		"[alias]\nx = !./run.sh\n",
		"[a]k=\"v\\\n\"#c\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkAgainstGit(t, src)
	})
}
