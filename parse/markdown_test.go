package parse

import (
	"strings"
	"testing"
)

// "<!-->" and "<!--->" are whole, empty comments; the scan used to slice
// its body backwards and panic. A comment after them is still read, at
// its own line.
func TestEmptyComments(t *testing.T) {
	m := readMarkdown("phases/01-a.md", []byte("# A\n\n<!-->\n\n<!--->\n\n<!-- skillkit-disable fence-unclosed -->\n\ntext <!--> and <!-- x -->\n"))
	var got []string
	for _, c := range m.doc.Comments {
		got = append(got, c.Pos.String()+" "+c.Text)
	}
	want := []string{"phases/01-a.md:3:1 ", "phases/01-a.md:5:1 ", "phases/01-a.md:7:1 skillkit-disable fence-unclosed", "phases/01-a.md:9:6 ", "phases/01-a.md:9:16 x"}
	if len(got) != len(want) {
		t.Fatalf("comments = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("comment %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// A file saved with classic Mac OS line endings (a lone \r), or with a mix
// of endings, reads as the same lines as its \n version: the same steps,
// at the same positions, with the same diagnostics. It used to read as one
// line, and its phase ran no steps.
func TestCROnlyLines(t *testing.T) {
	lf := "---\nname: x\ndescription: d\n---\n# Phase 1: A\n\n## Execution Steps\n\n### Step 1: One\n\n```bash\ntrue\n```\n\n### Step 2: Two\n- **Timeout**: soon\n\n```bash\ntrue\n```\n"
	read := func(src string) (steps, diags []string) {
		s := mustDir(t, writeSkill(t, map[string]string{"phases/01-a.md": src}))
		if len(s.Phases) != 1 {
			t.Fatalf("%q: %d phases", src, len(s.Phases))
		}
		for _, st := range s.Phases[0].Steps {
			steps = append(steps, st.Pos.String()+" "+st.Title+" "+st.Code[0].Body.String())
		}
		for _, d := range s.Diagnostics {
			diags = append(diags, d.Pos.String()+" "+d.Message)
		}
		return steps, diags
	}
	wantSteps, wantDiags := read(lf)
	if len(wantSteps) != 2 || len(wantDiags) != 1 {
		t.Fatalf("LF file: steps %q, diagnostics %q", wantSteps, wantDiags)
	}
	for name, src := range map[string]string{
		"CR":    strings.ReplaceAll(lf, "\n", "\r"),
		"mixed": strings.Replace(strings.ReplaceAll(lf, "\n", "\r\n"), "\r\n", "\r", 7),
	} {
		steps, diags := read(src)
		if strings.Join(steps, "|") != strings.Join(wantSteps, "|") || strings.Join(diags, "|") != strings.Join(wantDiags, "|") {
			t.Errorf("%s: steps %q, diagnostics %q; want %q, %q", name, steps, diags, wantSteps, wantDiags)
		}
	}
}
