package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseCorpus parses every corpus skill per iteration; bytes/s is
// over the markdown, JSON and YAML bytes of the skills.
func BenchmarkParseCorpus(b *testing.B) {
	idx := skills(b)
	var size int64
	for _, e := range idx {
		_ = filepath.WalkDir(filepath.Join(corpusDir, e.Dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil
		})
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range idx {
			if _, err := Dir(filepath.Join(corpusDir, e.Dir)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
