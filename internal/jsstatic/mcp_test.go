package jsstatic

import (
	"strings"
	"testing"
)

func TestRewriteMCP(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"const r = mcp__ace-tool__search_context({ q: 1 })", "const r = mcp__ace$tool__search_context({ q: 1 })"},
		{"mcp__ccw-tools__team_msg(x); mcp__a-b-c__d-e(y)", "mcp__ccw$tools__team_msg(x); mcp__a$b$c__d$e(y)"},
		{"'mcp__ace-tool__x' // mcp__ace-tool__y\n`mcp__a-b`", "'mcp__ace-tool__x' // mcp__ace-tool__y\n`mcp__a-b`"},
		{"/* mcp__a-b */ mcp__a-b__c()", "/* mcp__a-b */ mcp__a$b__c()"},
		{"x_mcp__a-b; mcp__x__y - 1; mcp__x__y-1", "x_mcp__a-b; mcp__x__y - 1; mcp__x__y$1"},
		{"a - b", "a - b"},
	} {
		if got := RewriteMCP(tc.in); got != tc.want {
			t.Errorf("RewriteMCP(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFreeNamesSeeMCPTools(t *testing.T) {
	p, err := Parse("const r = mcp__ace-tool__search_context({ project_root_path: '.', query: 'x' })\nreturn r")
	if err != nil {
		t.Fatal(err)
	}
	free := p.FreeNames()
	if len(free) != 1 || free[0].Name != "mcp__ace-tool__search_context" || !free[0].Called || free[0].Line != 1 || free[0].Col != 11 {
		t.Errorf("free names %+v", free)
	}
}

func FuzzRewriteMCP(f *testing.F) {
	f.Add("const r = mcp__ace-tool__search_context({ q: 'mcp__a-b' }) // mcp__c-d")
	f.Add("`${mcp__a-b__c()}` /* */ mcp__x")
	f.Fuzz(func(t *testing.T, src string) {
		out := RewriteMCP(src)
		if len(out) != len(src) || strings.Count(out, "\n") != strings.Count(src, "\n") {
			t.Fatalf("positions moved: %q → %q", src, out)
		}
		for i := range len(src) {
			if src[i] != out[i] && (src[i] != '-' || out[i] != mcpHyphen) {
				t.Fatalf("byte %d changed from %q to %q", i, src[i], out[i])
			}
		}
	})
}
