package shellpolicy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// BenchmarkTypicalPipelineParts splits BenchmarkTypicalPipeline into its
// stages: the shell library's parser alone, guard's reading (parser and
// walk: Parse), and the judging of the parsed segments (Policy.Judge).
func BenchmarkTypicalPipelineParts(b *testing.B) {
	p := benchPolicy(b)
	b.Run("parser", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := syntax.NewParser().Parse(strings.NewReader(typicalPipeline), ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		opts := p.options()
		for b.Loop() {
			if s := Parse(typicalPipeline, opts); len(s.Segments) != 6 {
				b.Fatalf("%d segments", len(s.Segments))
			}
		}
	})
	b.Run("judge", func(b *testing.B) {
		s := Parse(typicalPipeline, p.options())
		b.ReportAllocs()
		for b.Loop() {
			if v := p.Judge(s); v.Decision != "allow" {
				b.Fatal(describe(v))
			}
		}
	})
}
