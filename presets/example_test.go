package presets_test

import (
	"fmt"
	"strings"

	"github.com/guard-sh/guard/presets"
)

func ExampleTOML() {
	text, err := presets.TOML("rust")
	if err != nil {
		panic(err)
	}
	// The first lines: what the preset is for, and its rules.
	fmt.Println(strings.Join(strings.Split(text, "\n")[:6], "\n"))
	// Output:
	// # guard preset "rust": cargo build, test, check and clippy without asking; fetching crates gets the network.
	// # Inside guard's sandbox a build or a test cannot write outside the workspace
	// # or reach the network, so these run without asking; publishing asks.
	//
	// [permissions]
	// allow = [
}
