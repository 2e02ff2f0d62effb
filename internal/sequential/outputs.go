package sequential

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/plan"
)

// OutputError is a declared output that failed verification.
type OutputError struct {
	// Phase is the id of the phase that declared the output.
	Phase  string
	Output *plan.Output
	Err    error
	// Diagnostics say more: the schema violations, one per line.
	Diagnostics []string
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("%s: output %s: %v", e.Output.Pos, e.Output.File, e.Err)
}

func (e *OutputError) Unwrap() error { return e.Err }

// verifyOutputs checks a phase's declared outputs in the work dir: each
// exists (a glob pattern must match something), a JSON or YAML one parses,
// and one with a schema (a path in the skill folder) satisfies it.
func verifyOutputs(phase, workDir, skillDir string, outs []*plan.Output) error {
	var errs []error
	for _, o := range outs {
		if err := verifyOutput(workDir, skillDir, o); err != nil {
			if oe, ok := err.(*OutputError); ok {
				oe.Phase = phase
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// placeholder is a part of an output path the model fills in:
// [sessionId], {name}, <slug>, ${VAR}. The file it names can only be
// matched, with * in its place.
var placeholder = regexp.MustCompile(`\[[A-Za-z_][\w-]*\]|\$?\{[A-Za-z_][\w.-]*\}|<[A-Za-z_][\w-]*>`)

func verifyOutput(workDir, skillDir string, o *plan.Output) error {
	fail := func(err error, diag ...string) error { return &OutputError{Output: o, Err: err, Diagnostics: diag} }
	if why := o.Outside(); why != "" {
		// The run gate refuses such a skill; a resume of a run begun
		// before that, or a run of the skill as a library, still must
		// not read outside.
		return fail(errors.New(why))
	}
	file := placeholder.ReplaceAllString(o.File, "*")
	path := filepath.Join(workDir, filepath.FromSlash(file))
	if strings.ContainsAny(file, "*?[") {
		matches, err := filepath.Glob(path)
		if err != nil {
			return fail(fmt.Errorf("bad pattern: %w", err))
		}
		// An output is a file: a folder the pattern matches is not one.
		matches = slices.DeleteFunc(matches, func(m string) bool {
			st, err := os.Stat(m)
			return err == nil && st.IsDir()
		})
		if len(matches) == 0 {
			return fail(errors.New("no file matches"))
		}
		for _, m := range matches {
			one := *o
			one.File, _ = filepath.Rel(workDir, m)
			// The match is a file, whatever its name holds: check it as
			// one, not as another pattern.
			if err := verifyFile(workDir, skillDir, &one, m); err != nil {
				return err
			}
		}
		return nil
	}
	return verifyFile(workDir, skillDir, o, path)
}

// verifyFile checks the output o at path: it exists, parses as its
// format, and satisfies its schema.
func verifyFile(workDir, skillDir string, o *plan.Output, path string) error {
	fail := func(err error, diag ...string) error { return &OutputError{Output: o, Err: err, Diagnostics: diag} }
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fail(errors.New("not found in the work dir"))
		}
		return fail(err)
	}
	format := o.Format
	if format == "" && o.Schema != "" {
		format = formatOf(o.File)
	}
	var doc any
	switch format {
	case "json":
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			return fail(fmt.Errorf("not valid JSON: %w", err))
		}
		if _, err := d.Token(); err != io.EOF {
			return fail(fmt.Errorf("not valid JSON: more after the value at byte %d", d.InputOffset()))
		}
	case "yaml":
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fail(fmt.Errorf("not valid YAML: %w", err))
		}
		// The validator wants JSON values: YAML's ints and map keys differ.
		doc, err = jsonValue(doc)
		if err != nil {
			return fail(fmt.Errorf("YAML that has no JSON form: %w", err))
		}
	}
	if o.Schema == "" {
		return nil
	}
	if doc == nil && format != "json" && format != "yaml" {
		return fail(fmt.Errorf("a schema is given but the format %q is neither JSON nor YAML", o.Format))
	}
	sch, err := stateschema.CompileFile(skillDir, o.Schema)
	if err != nil {
		return fail(fmt.Errorf("loading schema %s: %w", o.Schema, err))
	}
	violations, err := sch.Validate(doc)
	if err != nil {
		return fail(err)
	}
	if len(violations) > 0 {
		var diag []string
		for _, v := range violations {
			loc := v.Pointer
			if loc == "" {
				loc = "/"
			}
			diag = append(diag, loc+": "+v.Message)
		}
		return fail(fmt.Errorf("does not satisfy %s", o.Schema), diag...)
	}
	return nil
}

// formatOf guesses a format from a file name, for outputs that give a
// schema but no format.
func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	}
	return ""
}

func jsonValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out any
	err = d.Decode(&out)
	return out, err
}
