package sequential_test

import (
	"context"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

const countSchema = `{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer", "minimum": 0}}}`

func TestOutputVerification(t *testing.T) {
	tests := []struct {
		name    string
		write   string // the step's shell command
		output  plan.Output
		wantErr string
		diag    string
	}{
		{name: "text file present", write: "echo hi > out.txt", output: plan.Output{File: "out.txt", Format: "text"}},
		{name: "missing file", write: "true", output: plan.Output{File: "out.txt"}, wantErr: "output out.txt: not found in the work dir"},
		{name: "file outside the work dir", write: "true", output: plan.Output{File: "../../../../tmp/x"}, wantErr: "the file ../../../../tmp/x is outside the work dir"},
		{name: "absolute file", write: "true", output: plan.Output{File: "/etc/passwd"}, wantErr: "the file /etc/passwd is outside the work dir"},
		{name: "schema outside the skill", write: `echo '{}' > c.json`, output: plan.Output{File: "c.json", Schema: "../../outside.json"}, wantErr: "the schema ../../outside.json is outside the skill folder"},
		{name: "valid JSON", write: `echo '{"count": 3}' > c.json`, output: plan.Output{File: "c.json", Format: "json"}},
		{name: "bad JSON", write: `echo '{"count": 3' > c.json`, output: plan.Output{File: "c.json", Format: "json"}, wantErr: "not valid JSON"},
		{name: "JSON with trailing text", write: `echo '{"count": 3} oops' > c.json`, output: plan.Output{File: "c.json", Format: "json"}, wantErr: "more after the value"},
		{name: "bad YAML", write: `printf 'a: [1\n' > c.yaml`, output: plan.Output{File: "c.yaml", Format: "yaml"}, wantErr: "not valid YAML"},
		{name: "schema satisfied", write: `echo '{"count": 3}' > c.json`, output: plan.Output{File: "c.json", Format: "json", Schema: "schemas/count.json"}},
		{name: "schema violated", write: `echo '{"count": -1}' > c.json`, output: plan.Output{File: "c.json", Format: "json", Schema: "schemas/count.json"},
			wantErr: "does not satisfy schemas/count.json", diag: "/count: must be >= 0 but found -1"},
		{name: "YAML against a schema", write: `echo 'count: 2' > c.yaml`, output: plan.Output{File: "c.yaml", Format: "yaml", Schema: "schemas/count.json"}},
		{name: "YAML violating a schema", write: `echo 'count: two' > c.yml`, output: plan.Output{File: "c.yml", Schema: "schemas/count.json"},
			wantErr: "does not satisfy", diag: "/count: expected integer, but got string"},
		{name: "glob matches", write: "mkdir -p r && echo x > r/a.md", output: plan.Output{File: "r/*.md", Format: "markdown"}},
		{name: "glob matches nothing", write: "true", output: plan.Output{File: "r/*.md"}, wantErr: "no file matches"},
		{name: "missing schema file", write: `echo '{}' > c.json`, output: plan.Output{File: "c.json", Format: "json", Schema: "schemas/none.json"}, wantErr: "loading schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ph := phase("01-x.md", bashStep("write", tt.write))
			out := tt.output
			out.Pos = plan.Pos{File: "phases/01-x.md", Line: 9, Col: 3}
			ph.Outputs = []*plan.Output{&out}
			s := newSkill(t, ph)
			testfs.WriteFile(t, s.Dir+"/schemas/count.json", countSchema)
			res, err := lifecycle.Run(context.Background(), opts(t, s))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), "phases/01-x.md:9:3") {
				t.Errorf("err %q does not name the output's position", err)
			}
			p := progress(t, res.Dir)
			if p.RunState != runstore.RunFailed || p.Error == nil || p.Error.ID != "01-x" {
				t.Fatalf("progress: state %s, error %+v", p.RunState, p.Error)
			}
			if tt.diag != "" && !strings.Contains(strings.Join(p.Error.Diagnostics.Lines(), "\n"), tt.diag) {
				t.Errorf("diagnostics %q lack %q", p.Error.Diagnostics, tt.diag)
			}
		})
	}
}
