package lint

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "regenerate the golden folders and outputs under testdata")

// TestRuleGolden lints testdata/<rule-id>/bad and good (each holding a
// skill folder named demo) and compares the text report with bad.out and
// good.out. With -update the folders are rebuilt from the examples of
// docs/lint-rules.md and the outputs rewritten.
func TestRuleGolden(t *testing.T) {
	// The examples give each folder its profile, and with -update its
	// files.
	examples := readExamples(t)
	for _, r := range Rules() {
		for _, kind := range []string{"bad", "good"} {
			t.Run(r.ID()+"/"+kind, func(t *testing.T) {
				dir := filepath.Join("testdata", r.ID(), kind)
				ex := examples[r.ID()][kind]
				if ex == nil {
					t.Fatalf("no %s example for %s in the docs", kind, r.ID())
				}
				if *updateGolden {
					if err := os.RemoveAll(dir); err != nil {
						t.Fatal(err)
					}
					ex.build(t, dir)
				}
				res, err := Lint([]string{dir}, Options{Base: dir, Profile: ex.profile})
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := WriteText(&got, res, TextOptions{}); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, dir+".out", got.Bytes())
			})
		}
	}
}

// checkGolden compares got with the golden file, or writes it with
// -update.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./lint -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test ./lint -run %s -update && git diff):\n--- got\n%s--- want\n%s", golden, t.Name(), got, want)
	}
}
