package cassette

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScrub scrubs a 100 KB prompt of many lines with ten secrets in
// the environment, as a recording does at every agent call.
func BenchmarkScrub(b *testing.B) {
	var env []string
	for i := range 10 {
		env = append(env, fmt.Sprintf("S%d_TOKEN=tok-%d-0123456789abcdef", i, i))
	}
	s, err := NewScrubber(env, nil)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("a line of a prompt, with https://example.com/x and no secret in it\n", 1500)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.Scrub(text)
	}
}
