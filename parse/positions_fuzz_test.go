package parse

import (
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/skillkit/skillkit/plan"
)

// FuzzMarkdownPositions holds the parser's shortcuts to the plain
// readings they replaced, on arbitrary markdown: pos, which searches on
// from the line of its last answer, to a binary search of the line
// starts from scratch, for offsets in any order; and a fenced block's
// info string (a substring of the source) and language (its first word,
// found without splitting the rest) to the copy of the info segment,
// trimmed, and the first of strings.Fields. Positions of every fenced
// block's fence and body are the reference's.
func FuzzMarkdownPositions(f *testing.F) {
	for _, seed := range []string{
		"# T\n\n```js\nconst a = 1;\n```\n",
		"```\r\nx\r\n```\r\n",
		"~~~ `js` {.bash} norun\nx\n~~~\n",
		"```   \t js\u00a0norun\nx\n```\n",
		"```\u3000js\nx\n```\n",
		"```...\nx\n```\n",
		"```{}\nx\n```\n",
		"- item\n\n\t```bash\n\techo\n\t```\n",
		"> ```js x\n> a\n> ```\n",
		"\uFEFF---\nname: a\n---\n```JS\n```\n",
		"line\n" + strings.Repeat("long ", 2000) + "\n```js\nx\n```\n",
		"```\xff\xfe js\nx\n```\n",
	} {
		f.Add([]byte(seed), []byte{0, 255, 7, 3, 200, 1, 128})
	}
	f.Fuzz(func(t *testing.T, data, offsets []byte) {
		src := NormalizeNewlines(data)
		starts := lineStarts(src)
		if len(src) > 1<<16 {
			return
		}
		if _, depth := deepestNesting(src, starts); depth > MaxNesting {
			return // the parser skips such a file
		}
		m := readMarkdown("phases/01-a.md", src)
		ref := func(off int) plan.Pos {
			if off < 0 {
				return plan.Pos{File: m.doc.File}
			}
			i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
			return plan.Pos{File: m.doc.File, Line: i + 1, Col: off - starts[i] + 1}
		}
		if len(starts) > 0 {
			for _, b := range offsets {
				off := int(b) * (len(src) + 1) / 255
				if got, want := m.pos(off), ref(off); got != want {
					t.Fatalf("pos(%d) = %v, want %v", off, got, want)
				}
			}
		}
		type fenced struct {
			pos, body  plan.Pos
			info, lang string
		}
		var want []fenced
		root := markdown.Parser().Parse(text.NewReader(src))
		_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			fc, ok := n.(*ast.FencedCodeBlock)
			if !ok || !entering {
				return ast.WalkContinue, nil
			}
			w := fenced{pos: ref(fc.Pos())}
			w.body = w.pos
			w.body.Line++
			w.body.Col = 1
			if fc.Lines().Len() > 0 {
				w.body = ref(fc.Lines().At(0).Start)
			}
			if fc.Info != nil {
				w.info = strings.TrimSpace(string(fc.Info.Segment.Value(src)))
			}
			if words := strings.Fields(w.info); len(words) > 0 {
				w.lang = strings.ToLower(strings.Trim(words[0], "{}."))
			}
			want = append(want, w)
			return ast.WalkSkipChildren, nil
		})
		byPos := map[plan.Pos]*plan.CodeBlock{}
		for _, c := range m.doc.Code {
			byPos[c.Pos] = c
		}
		for _, w := range want {
			c := byPos[w.pos]
			if c == nil {
				t.Fatalf("no block at %v, where a fence opens; blocks at %v", w.pos, byPos)
			}
			if c.Body != w.body || c.Info != w.info || c.Lang != w.lang {
				t.Fatalf("block at %v: body %v, info %q, lang %q; want body %v, info %q, lang %q", w.pos, c.Body, c.Info, c.Lang, w.body, w.info, w.lang)
			}
		}
	})
}
