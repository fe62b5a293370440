//go:build linux && cgo

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// benchWorld is the benchmark's policy: three blocked paths in a home, a
// writable workspace, a private TMPDIR, no network (bench/sandbox runs the
// same through the launcher).
func benchWorld(b *testing.B) (Policy, string) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(root, "home")
	for _, d := range []string{".ssh", ".aws", ".gnupg", "proj", ".config", ".cache", ".local"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return Policy{
		Blocked: []BlockedPath{
			{Path: filepath.Join(home, ".ssh"), Kind: Dir},
			{Path: filepath.Join(home, ".aws"), Kind: Dir},
			{Path: filepath.Join(home, ".gnupg"), Kind: Dir},
		},
		Writable: []string{filepath.Join(home, "proj")},
		TempDir:  true,
	}, filepath.Join(home, "proj")
}

// BenchmarkStartWait is the launcher's own cost: Start and Wait of
// /bin/true, without the Go start of a process.
func BenchmarkStartWait(b *testing.B) {
	requireKernelB(b)
	p, dir := benchWorld(b)
	for i := 0; i < b.N; i++ {
		proc, err := Start(p, Command{Path: "/bin/true", Dir: dir, Env: []string{}})
		if err != nil {
			b.Fatal(err)
		}
		if code, err := proc.Wait(); code != 0 || err != nil {
			b.Fatal(code, err)
		}
	}
}

// BenchmarkPlan is the policy resolved against the file system.
func BenchmarkPlan(b *testing.B) {
	p, _ := benchWorld(b)
	p, err := p.clean()
	if err != nil {
		b.Fatal(err)
	}
	k := currentKernel()
	pre := &prepared{mounts: readMountTable()}
	pre.tmp, pre.tmpOK = tmpMountpoint()
	for i := 0; i < b.N; i++ {
		if _, err := newPlan(p, k, pre); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeccompFilter is the built-in program decoded.
func BenchmarkSeccompFilter(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := seccompFilter(netOff); err != nil {
			b.Fatal(err)
		}
	}
}

func requireKernelB(b *testing.B) {
	k := currentKernel()
	if k.abi < 6 || !k.seccomp || !k.mountNS {
		b.Skip("needs Landlock ABI 6, seccomp and a mount namespace")
	}
}
