package pathpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/guard-sh/guard/rule"
)

// helperEnv makes the test binary resolve one path and print the result,
// so that a test can watch resolution as another user.
const helperEnv = "GUARD_PATHPOLICY_RESOLVE"

func TestHelperResolve(t *testing.T) {
	p := os.Getenv(helperEnv)
	if p == "" {
		t.Skip("a helper, run by TestPermissionDenied")
	}
	rp, err := Resolve(p, "/", "")
	out := map[string]any{"canonical": rp.Canonical, "unknown": rp.Unknown, "why": rp.UnknownWhy}
	if err != nil {
		out["err"] = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// TestPermissionDenied: a directory guard may not look into could hold a
// link to anywhere (a command run through sudo could follow it), so what
// lies beyond it is unknown, which every deny rule matches. As root the
// test runs the resolution as nobody.
func TestPermissionDenied(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	build(t, root, "locked/inner/file", "open/file")
	for _, d := range []string{filepath.Dir(root), root, root + "/open"} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(root+"/locked", 0o700); err != nil {
		t.Fatal(err)
	}
	target := root + "/locked/inner/file"

	var result map[string]any
	if os.Geteuid() != 0 {
		if err := os.Chmod(root+"/locked", 0o000); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(root+"/locked", 0o700)
		rp, err := Resolve(target, "/", "")
		if err != nil {
			t.Fatal(err)
		}
		result = map[string]any{"canonical": rp.Canonical, "unknown": rp.Unknown}
	} else {
		// A copy of the test binary that nobody may run.
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		bin := root + "/open/pathpolicy.test"
		copyFile(t, exe, bin)
		cmd := exec.Command(bin, "-test.run=^TestHelperResolve$")
		cmd.Env = append(os.Environ(), helperEnv+"="+target)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("cannot run as nobody: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		if err := dec.Decode(&result); err != nil {
			t.Fatalf("helper said %q: %v", out, err)
		}
	}
	t.Logf("resolved as another user: %v", result)
	if result["unknown"] != root+"/locked/inner" {
		t.Errorf("unknown = %v, want %s/locked/inner (%v)", result["unknown"], root, result)
	}

	// The same verdict through a policy: the unknown part meets the deny.
	set := rule.NewSet([]rule.Rule{{Action: rule.Deny, Kind: rule.Read, Pattern: "/etc/shadow", Written: "read(/etc/shadow)"}}, rule.Env{Home: root, Workspace: root})
	p, err := New(set, Options{Home: root, Workspace: root + "/open"})
	if err != nil {
		t.Fatal(err)
	}
	rp := Path{Given: target, Absolute: target, Canonical: fmt.Sprint(result["unknown"]) + "/file", Unknown: fmt.Sprint(result["unknown"])}
	rp.NoFollow = rp.Canonical
	if v := p.evaluate(rule.Read, rp); v.m.Deny == nil || v.m.Deny.Match != MatchUnknown {
		t.Errorf("an unknown path does not meet the deny rule: %+v", v.m)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
