package parse

import "testing"

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
