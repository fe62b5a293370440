// Package presets holds guard's settings for everyday work in one
// ecosystem (go, node, python, rust, java): the build and test commands
// that may run without asking (inside the sandbox their code cannot reach
// outside the workspace), the commands that publish (asked each time), the
// credentials only publishing needs (blocked), and the commands that fetch
// dependencies (the only ones that get the network). The toolchains' caches
// need no setting: guard gives each workspace its own (docs/toolchains.md).
//
// guard init --preset NAME writes one; each is data, with a reason per
// entry, and [TOML] renders it as a commented settings file.
package presets

import (
	"fmt"
	"sort"
	"strings"

	"github.com/guard-sh/guard/config"
)

// Rule is an entry of a preset and why it is there.
type Rule struct {
	Rule string // a rule as settings write it: kind(pattern)
	Why  string
}

// Preset is the settings of one ecosystem.
type Preset struct {
	Name    string
	Summary string
	Allow   []Rule // [permissions] allow
	Ask     []Rule // [permissions] ask
	Deny    []Rule // [permissions] deny
	// NetworkFor is [sandbox] allow_network_for: the network is on for a
	// command only when every part of it matches one (or only reads).
	NetworkFor []Rule
	// Notes are comments for the [sandbox] table.
	Notes []string
}

// table is every preset.
var table = []Preset{
	{
		Name:    "go",
		Summary: "Go modules: build, test and vet without asking; module downloads get the network",
		Allow: []Rule{
			{"shell(go build *)", "compiles; build constraints and cgo run no code of the module's but the compiler's"},
			{"shell(go test *)", "runs the module's tests, inside the sandbox"},
			{"shell(go vet *)", "static checks"},
			{"shell(go run *)", "runs the module's program, inside the sandbox"},
			{"shell(go fmt *)", "rewrites files in the workspace"},
			{"shell(gofmt *)", "rewrites files in the workspace"},
			{"shell(go list *)", "reads the module graph"},
			{"shell(go env *)", "prints settings (go env -w writes outside the workspace: the sandbox refuses it)"},
			{"shell(go version *)", "prints versions"},
			{"shell(go mod tidy *)", "rewrites go.mod and go.sum in the workspace"},
		},
		Ask: []Rule{
			{"shell(go generate *)", "runs whatever the //go:generate lines name"},
		},
		NetworkFor: []Rule{
			{"shell(go mod download *)", "fetches the modules go.sum lists"},
			{"shell(go mod tidy *)", "fetches what the imports need"},
			{"shell(go get *)", "adds or upgrades a dependency"},
		},
		Notes: []string{
			"Modules you already have are found without the network: guard serves",
			"your module cache read-only (GOPROXY=file://...), and your build cache",
			"read-only too, to each workspace's own caches.",
		},
	},
	{
		Name:    "node",
		Summary: "npm, yarn and pnpm: tests and scripts without asking; installs get the network",
		Allow: []Rule{
			{"shell(npm test *)", "runs the package's tests, inside the sandbox"},
			{"shell(npm run *)", "runs the package's scripts, inside the sandbox"},
			{"shell(npm ls *)", "reads the dependency tree"},
			{"shell(node *)", "runs a script, inside the sandbox"},
			{"shell(npx tsc *)", "the TypeScript compiler of the workspace"},
			{"shell(npx eslint *)", "the linter of the workspace"},
			{"shell(npx prettier *)", "the formatter of the workspace"},
			{"shell(yarn test *)", "runs the package's tests"},
			{"shell(pnpm test *)", "runs the package's tests"},
		},
		Ask: []Rule{
			{"shell(npm publish *)", "publishes the package under your name"},
			{"shell(yarn publish *)", "publishes the package under your name"},
			{"shell(pnpm publish *)", "publishes the package under your name"},
		},
		NetworkFor: []Rule{
			{"shell(npm install *)", "fetches dependencies; their install scripts run with the network on too (npm install --ignore-scripts avoids that)"},
			{"shell(npm ci *)", "fetches the locked dependencies (same note)"},
			{"shell(npm update *)", "upgrades dependencies"},
			{"shell(yarn install *)", "fetches dependencies"},
			{"shell(pnpm install *)", "fetches dependencies"},
		},
		Notes: []string{
			"npm's cache is the workspace's own (npm_config_cache): installs write",
			"nothing that later installs outside the sandbox would trust.",
		},
	},
	{
		Name:    "python",
		Summary: "pytest, venvs and linters without asking; pip, uv and poetry installs get the network",
		Allow: []Rule{
			{"shell(pytest *)", "runs the tests, inside the sandbox"},
			{"shell(python -m pytest *)", "runs the tests"},
			{"shell(python3 -m pytest *)", "runs the tests"},
			{"shell(python -m unittest *)", "runs the tests"},
			{"shell(python3 -m unittest *)", "runs the tests"},
			{"shell(python3 -m venv *)", "makes a virtual environment in the workspace"},
			{"shell(ruff *)", "lints and formats"},
			{"shell(mypy *)", "type checks"},
		},
		Ask: []Rule{
			{"shell(twine upload *)", "publishes the package under your name"},
			{"shell(poetry publish *)", "publishes the package under your name"},
			{"shell(uv publish *)", "publishes the package under your name"},
		},
		Deny: []Rule{
			{"read(~/.pypirc)", "PyPI upload tokens: only publishing needs them"},
		},
		NetworkFor: []Rule{
			{"shell(pip install *)", "fetches packages; building an sdist runs its setup.py with the network on"},
			{"shell(python -m pip install *)", "the same"},
			{"shell(python3 -m pip install *)", "the same"},
			{"shell(.venv/bin/pip install *)", "the same, in the workspace's virtual environment"},
			{"shell(uv sync *)", "fetches the locked dependencies"},
			{"shell(uv pip install *)", "fetches packages"},
			{"shell(poetry install *)", "fetches the locked dependencies"},
		},
		Notes: []string{
			"pip's cache (PIP_CACHE_DIR) and every XDG cache (uv, poetry, pre-commit)",
			"are the workspace's own.",
		},
	},
	{
		Name:    "rust",
		Summary: "cargo build, test, check and clippy without asking; fetching crates gets the network",
		Allow: []Rule{
			{"shell(cargo build *)", "compiles; build scripts and proc macros run inside the sandbox"},
			{"shell(cargo test *)", "runs the tests, inside the sandbox"},
			{"shell(cargo check *)", "type checks"},
			{"shell(cargo clippy *)", "lints"},
			{"shell(cargo fmt *)", "rewrites files in the workspace"},
			{"shell(cargo run *)", "runs the program, inside the sandbox"},
			{"shell(cargo doc *)", "builds the documentation"},
		},
		Ask: []Rule{
			{"shell(cargo publish *)", "publishes the crate under your name"},
			{"shell(cargo install *)", "puts a program on PATH, which runs later outside the sandbox"},
		},
		Deny: []Rule{
			{"read(~/.cargo/credentials.toml)", "crates.io token: only publishing needs it"},
			{"read(~/.cargo/credentials)", "the same, older name"},
		},
		NetworkFor: []Rule{
			{"shell(cargo fetch *)", "fetches the locked crates: run it once, then builds work offline"},
			{"shell(cargo update *)", "upgrades the lock file"},
			{"shell(cargo generate-lockfile *)", "resolves the dependencies"},
		},
		Notes: []string{
			"Each workspace has its own CARGO_HOME (registry and git checkouts): the",
			"first 'cargo fetch' there needs the network, even for crates you have.",
		},
	},
	{
		Name:    "java",
		Summary: "Maven and Gradle builds and tests without asking; dependency resolution gets the network",
		Allow: []Rule{
			{"shell(mvn compile *)", "compiles; plugins run inside the sandbox"},
			{"shell(mvn test *)", "runs the tests"},
			{"shell(mvn package *)", "builds the artifacts in target/"},
			{"shell(mvn verify *)", "runs the checks"},
			{"shell(./mvnw *)", "the project's Maven wrapper (deploy is asked below)"},
			{"shell(gradle build *)", "compiles and tests"},
			{"shell(gradle test *)", "runs the tests"},
			{"shell(./gradlew build *)", "the project's Gradle wrapper"},
			{"shell(./gradlew test *)", "the project's Gradle wrapper"},
		},
		Ask: []Rule{
			{"shell(mvn deploy *)", "publishes the artifacts"},
			{"shell(./mvnw deploy *)", "publishes the artifacts"},
			{"shell(gradle publish *)", "publishes the artifacts"},
			{"shell(./gradlew publish *)", "publishes the artifacts"},
		},
		Deny: []Rule{
			{"read(~/.m2/settings-security.xml)", "Maven's master password for the repository passwords"},
		},
		NetworkFor: []Rule{
			{"shell(mvn dependency:go-offline *)", "fetches every plugin and dependency: then builds work offline"},
			{"shell(mvn dependency:resolve *)", "fetches the dependencies"},
			{"shell(./mvnw dependency:go-offline *)", "the same, with the wrapper"},
			{"shell(gradle dependencies *)", "resolves the dependencies"},
			{"shell(./gradlew dependencies *)", "the same, with the wrapper"},
		},
		Notes: []string{
			"Maven's repository (-Dmaven.repo.local) and Gradle's home are the",
			"workspace's own; Maven 3.9 and Gradle also read yours, read-only.",
		},
	},
}

// Names lists the presets, sorted.
func Names() []string {
	out := make([]string, len(table))
	for i, p := range table {
		out[i] = p.Name
	}
	sort.Strings(out)
	return out
}

// Get returns a preset by name.
func Get(name string) (Preset, error) {
	for _, p := range table {
		if p.Name == name {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("no preset %q: want one of %s", name, strings.Join(Names(), ", "))
}

// TOML returns the settings a preset writes, as a commented settings file
// of its own (guard's settings merge from several files, so it can also be
// a workspace's settings).
func TOML(name string) (string, error) {
	p, err := Get(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# guard preset %q: %s.\n", p.Name, p.Summary)
	b.WriteString("# Inside guard's sandbox a build or a test cannot write outside the workspace\n")
	b.WriteString("# or reach the network, so these run without asking; publishing asks.\n\n")
	b.WriteString("[permissions]\n")
	writeList(&b, "allow", p.Allow)
	writeList(&b, "ask", p.Ask)
	writeList(&b, "deny", p.Deny)
	b.WriteString("\n[sandbox]\n")
	b.WriteString("# The network is on for these commands only (every part of a command line\n")
	b.WriteString("# must match one, or only read).\n")
	writeList(&b, "allow_network_for", p.NetworkFor)
	for _, n := range p.Notes {
		b.WriteString("# " + n + "\n")
	}
	return b.String(), nil
}

func writeList(b *strings.Builder, key string, rules []Rule) {
	if len(rules) == 0 {
		return
	}
	fmt.Fprintf(b, "%s = [\n", key)
	for _, r := range rules {
		fmt.Fprintf(b, "  %-40s # %s\n", config.QuoteTOML(r.Rule)+",", r.Why)
	}
	b.WriteString("]\n")
}
