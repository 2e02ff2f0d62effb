package skilltest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Found is a skill with tests, and its cases.
type Found struct {
	Skill *plan.Skill
	Cases []*Case
	// Bad are the test files that cannot run, as results.
	Bad []*Result
}

// skipDirs are folders no skill's tests are looked for in: runs, version
// control, dependencies.
var skipDirs = []string{".skillkit", ".git", "node_modules"}

// Find finds the skills under paths that have tests/*.yaml, and reads
// their cases whose "skill/case" name match filter (nil: all). A skill
// that cannot be read is an error; a test file that cannot be used is a
// bad result of its skill. project is the folder whose .mcp.json
// configures MCP servers ("" for none), with each skill's skillkit.yaml.
func Find(paths []string, filter *regexp.Regexp, project string) ([]*Found, error) {
	var dirs []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Name() == "SKILL.md" {
				dir := filepath.Dir(path)
				if st, err := os.Stat(filepath.Join(dir, Dir)); err == nil && st.IsDir() && !slices.Contains(dirs, dir) {
					dirs = append(dirs, dir)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out []*Found
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, Dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			continue
		}
		// A replay starts no server, but the plan must class the steps
		// as the recorded run did: native where their servers are
		// configured.
		servers, err := mcp.Load(project, dir, nil)
		if err != nil {
			return nil, err
		}
		s, err := parse.DirWith(dir, parse.Options{MCPServers: servers.Names()})
		if err != nil {
			return nil, err
		}
		f := &Found{Skill: s}
		for _, file := range files {
			name := s.Name + "/" + trimExt(filepath.Base(file))
			if filter != nil && !filter.MatchString(name) {
				continue
			}
			c, err := LoadCase(file, s)
			if err != nil {
				f.Bad = append(f.Bad, &Result{Skill: s.Name, Case: trimExt(filepath.Base(file)), File: file, Bad: err.Error()})
				continue
			}
			f.Cases = append(f.Cases, c)
		}
		if len(f.Cases)+len(f.Bad) > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }

// RunAll runs every case found, parallel at a time, and returns the
// results in the order found, bad test files first of their skill.
func RunAll(ctx context.Context, found []*Found, o Options, parallel int) []*Result {
	type job struct {
		s *plan.Skill
		c *Case
		i int
	}
	var results []*Result
	var jobs []job
	for _, f := range found {
		results = append(results, f.Bad...)
		for _, c := range f.Cases {
			jobs = append(jobs, job{f.Skill, c, len(results)})
			results = append(results, nil)
		}
	}
	parallel = max(parallel, 1)
	ch := make(chan job)
	var wg sync.WaitGroup
	for range min(parallel, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range ch {
				results[j.i] = Run(ctx, j.s, j.c, o)
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return results
}
