package shellpolicy

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// cpuTime is the CPU time the process has used. Benchmarks report it per
// operation beside the wall time, which on a shared machine also counts
// waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// typicalPipeline is a 100-character command of the kind agents run.
const typicalPipeline = `cd src && git status --short && rg -n "TODO|FIXME" --type go . | head -20 && go test ./... 2>&1 | tail`

func benchPolicy(b *testing.B) Policy {
	return testPolicy(b,
		"deny shell(rm -rf *)", "deny shell(sudo *)", "deny shell(git push --force *)",
		"ask shell(git push *)", "deny read(~/.ssh)", "deny read(~/.aws)", "deny write(/etc)",
		"allow shell(go test *)", "allow shell(go build *)", "allow shell(make *)", "allow shell(npm run *)",
		"allow write(/w)")
}

// BenchmarkTypicalPipeline checks a typical 100-character pipeline end to
// end: parse, readings, rules, files, read-only defaults. Target: < 20 µs.
func BenchmarkTypicalPipeline(b *testing.B) {
	if len(typicalPipeline) < 95 || len(typicalPipeline) > 105 {
		b.Fatalf("the pipeline is %d characters", len(typicalPipeline))
	}
	p := benchPolicy(b)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		v := Evaluate(typicalPipeline, p)
		if v.Decision != "allow" {
			b.Fatalf("%s", describe(v))
		}
	}
	reportCPU(b, start)
}

// scriptOf builds a realistic script of about n bytes from blocks of about
// 12 KiB: a function with a conditional and a pipeline, a loop over a
// substitution, and a here-document. The number of blocks grows with n, so
// the work per byte stays the same (1 MiB holds about 870 commands, under
// MaxSegments).
func scriptOf(n int) string {
	const block = `
# build and check one package
build_pkg() {
	local pkg="$1"
	if [ -d "$pkg" ]; then
		echo "building $pkg"
		go build ./"$pkg"/... 2>&1 | tail -n 5
	fi
}
for f in $(git ls-files '*.go' | head -n 3); do
	wc -l "$f" | sort -n
done
cat <<'EOF'
%s
EOF
`
	const blockSize = 12 << 10
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	body := strings.Repeat(line, (blockSize-len(block))/len(line))
	var sb strings.Builder
	for range max(1, n/blockSize) {
		fmt.Fprintf(&sb, block, strings.TrimSuffix(body, "\n"))
	}
	return sb.String()
}

// BenchmarkScript shows that judging is linear in the size of the script:
// 128 KiB to 1 MiB. Target: 1 MiB in < 200 ms.
func BenchmarkScript(b *testing.B) {
	p := benchPolicy(b)
	for _, kib := range []int{128, 256, 512, 1024} {
		src := scriptOf(kib << 10)
		b.Run(fmt.Sprintf("%dKiB", kib), func(b *testing.B) {
			s := Parse(src, p.options())
			if len(s.Problems) > 0 {
				b.Fatalf("%d bytes: %v", len(src), s.Problems)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				Evaluate(src, p)
			}
			reportCPU(b, start)
			b.ReportMetric(float64(len(s.Segments)), "segments")
		})
	}
}

// BenchmarkPathological: inputs built to be slow stay bounded.
func BenchmarkPathological(b *testing.B) {
	p := benchPolicy(b)
	cases := map[string]string{
		"parens":    strings.Repeat("(", MaxInputBytes/2),
		"semicolon": strings.Repeat("a;", MaxInputBytes/2),
		"and-chain": strings.Repeat("a&&", MaxInputBytes/3) + "a",
		"evals":     strings.Repeat("eval ", MaxInputBytes/5-1) + "ls",
	}
	for name, src := range cases {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if v := Evaluate(src, p); v.Decision == "allow" {
					b.Fatal("allowed")
				}
			}
		})
	}
}

// BenchmarkParserAlone is the shell parser by itself on the typical
// pipeline: the floor under BenchmarkTypicalPipeline on this machine.
func BenchmarkParserAlone(b *testing.B) {
	start := cpuTime()
	for b.Loop() {
		if _, err := syntax.NewParser().Parse(strings.NewReader(typicalPipeline), ""); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkCommandIndex is the cost of joining the tables by command name,
// which the first command a process reads pays once (the package builds
// nothing when it starts; docs/performance.md).
func BenchmarkCommandIndex(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if m := newCommandIndex(); m["git"] == nil {
			b.Fatal("git is not in the index")
		}
	}
}
