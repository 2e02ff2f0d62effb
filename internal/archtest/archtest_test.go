// Package archtest checks the module's import graph against the layer
// table of docs/architecture.md: every arrow runs down, so there is no
// cycle, and every package has its row.
package archtest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/skillkit/skillkit/"

// root is the module's folder, seen from this package's.
const root = "../.."

// TestLayers: no package imports one of its own layer or one above it,
// and the table names exactly the module's packages.
func TestLayers(t *testing.T) {
	layers, err := readLayers(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	imports, err := packageImports(root)
	if err != nil {
		t.Fatal(err)
	}
	arrows := 0
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		from, ok := layers[pkg]
		if !ok {
			t.Errorf("%s is not in the layer table of docs/architecture.md: give it a row", pkg)
			continue
		}
		for _, im := range imports[pkg] {
			dep, inside := strings.CutPrefix(im, module)
			to, ok := layers[dep]
			if !inside || !ok {
				continue // another module's, or reported as the package itself
			}
			arrows++
			if to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow that runs %s", pkg, from, dep, to, map[bool]string{true: "sideways", false: "up"}[to == from])
			}
		}
	}
	for pkg := range layers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is no package of the module", pkg)
		}
	}
	t.Logf("%d packages, %d arrows inside the module", len(imports), arrows)
}

// TestModelReadsNoFile: the model and what reads it statically touch no
// file: parse reads a skill, worker.yaml and skillkit.yaml included, and
// hands the bytes to plan, so that lint and a run decode the same.
func TestModelReadsNoFile(t *testing.T) {
	imports, err := packageImports(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"plan", "jsstatic", "graph"} {
		for _, im := range imports[pkg] {
			if slices.Contains([]string{"os", "io/fs", "io/ioutil", "os/exec", "net"}, im) {
				t.Errorf("%s imports %s: plan does no I/O; read in parse and keep it in the plan", pkg, im)
			}
		}
	}
}

// readLayers reads the table under "## Packages in layers": rows of
// | layer | role | packages, comma-separated |.
func readLayers(doc string) (map[string]int, error) {
	f, err := os.Open(doc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages in layers"
			continue
		case !in || !strings.HasPrefix(line, "|"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("%s:%d: a row of the layer table has 3 cells: layer | role | packages", doc, n)
		}
		layer, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header and its rule
		}
		for _, p := range strings.Split(cells[2], ",") {
			p = strings.TrimSpace(p)
			if _, dup := out[p]; dup {
				return nil, fmt.Errorf("%s:%d: %s is in two layers", doc, n, p)
			}
			out[p] = layer
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no layer table under \"## Packages in layers\"", doc)
	}
	return out, sc.Err()
}

// packageImports returns each package of the module (as its path inside
// the module) with what its non-test files import. It reads every file
// whatever its build constraints, so an arrow only one platform builds
// counts too.
func packageImports(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		deps := out[pkg]
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(deps, path) {
				deps = append(deps, path)
			}
		}
		out[pkg] = deps
		return nil
	})
	return out, err
}
