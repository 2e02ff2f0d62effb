// Command parsefloor is the floor of bench/run.sh: it reads every markdown
// file under its arguments and parses it with goldmark, doing nothing else.
// No linter that parses markdown with goldmark can be faster than this, so
// skillkit lint's time is reported as a multiple of it.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"
)

func main() {
	jobs := flag.Int("j", runtime.NumCPU(), "files parsed at once (skillkit lint lints skills in parallel on every CPU)")
	flag.Parse()
	files, err := markdownFiles(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsefloor:", err)
		os.Exit(2)
	}
	var (
		mu    sync.Mutex
		bytes int64
		nodes int
		wg    sync.WaitGroup
		first error
	)
	work := make(chan string)
	for range max(*jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			md := goldmark.New()
			for f := range work {
				src, err := os.ReadFile(f)
				n := 0
				if err == nil {
					doc := md.Parser().Parse(text.NewReader(src))
					n = doc.ChildCount()
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				bytes += int64(len(src))
				nodes += n
				mu.Unlock()
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	if first != nil {
		fmt.Fprintln(os.Stderr, "parsefloor:", first)
		os.Exit(1)
	}
	fmt.Printf("%d markdown files, %d bytes, %d top-level blocks\n", len(files), bytes, nodes)
}

// markdownFiles lists the .md files under the roots, skipping the folders
// skillkit lint skips.
func markdownFiles(roots []string) ([]string, error) {
	var out []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillkit") {
				return fs.SkipDir
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walking %s: %w", root, err)
		}
	}
	return out, nil
}
