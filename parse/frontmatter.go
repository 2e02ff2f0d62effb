package parse

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// splitFrontMatter reads the front matter block that opens src at line 1
// and returns it with src's lines of the block blanked, so that the
// markdown parser keeps the file's line numbers. A block is only front
// matter when "---" is the very first line.
func splitFrontMatter(rel string, src []byte) (*plan.FrontMatter, []byte) {
	nl := bytes.IndexByte(src, '\n')
	if nl < 0 || string(bytes.TrimRight(src[:nl], " \t")) != "---" {
		return nil, src
	}
	fm := &plan.FrontMatter{Pos: plan.Pos{File: rel, Line: 1, Col: 1}}
	// Look for the closing line without splitting the whole file: the
	// block is short, the body may be long.
	start, end := nl+1, -1
	var raw []string
	for at := start; at <= len(src); {
		stop := bytes.IndexByte(src[at:], '\n')
		line := src[at:]
		if stop >= 0 {
			line = src[at : at+stop]
		}
		if t := string(bytes.TrimRight(line, " \t")); t == "---" || t == "..." {
			end = len(raw)
			start = at + len(line)
			break
		}
		raw = append(raw, string(line))
		if stop < 0 {
			break
		}
		at += stop + 1
	}
	if end < 0 {
		// Unterminated: nothing is front matter, the file is all body, and
		// the block is reported so the author sees why their keys vanished.
		fm.Error = &plan.Diagnostic{
			Pos: fm.Pos, Severity: plan.SevError, Code: "frontmatter-unterminated",
			Message: "front matter opened with --- at line 1 is never closed",
		}
		return fm, src
	}
	fm.Closed = true
	fm.Raw = strings.Join(raw, "\n")
	readFields(fm, rel, end)

	// Blank the block (line 1 … closing line) but keep its newlines, so
	// the body keeps its line numbers; a closing line that ends the file
	// has none.
	body := make([]byte, 0, end+1+len(src)-start)
	body = append(body, bytes.Repeat([]byte{'\n'}, end+1)...)
	return fm, append(body, src[start:]...)
}

// readFields decodes the block's YAML; the block is lines 2..end+1 of the
// file, and every position is kept inside it (YAML also breaks lines at a
// lone \r, which the file's line count does not).
func readFields(fm *plan.FrontMatter, rel string, end int) {
	line := func(yamlLine int) int { return min(max(yamlLine+1, 2), end+1) }
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(fm.Raw), &root); err != nil {
		at := 1
		if n := plan.YAMLErrorLine(err.Error(), 0); n > 0 {
			at = line(n)
		}
		fm.Error = &plan.Diagnostic{
			Pos: plan.Pos{File: rel, Line: at, Col: 1}, Severity: plan.SevError,
			Code: "frontmatter-yaml", Message: "front matter is not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "),
		}
		return
	}
	if len(root.Content) == 0 {
		return
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		fm.Error = &plan.Diagnostic{
			Pos: plan.Pos{File: rel, Line: line(doc.Line), Col: doc.Column}, Severity: plan.SevError,
			Code: "frontmatter-yaml", Message: "front matter must be a mapping of keys to values",
		}
		return
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		var val any
		if err := v.Decode(&val); err != nil {
			val = v.Value
		}
		fm.Fields = append(fm.Fields, &plan.Field{
			Key: k.Value, Value: jsonable(val),
			Pos:        plan.Pos{File: rel, Line: line(k.Line), Col: k.Column},
			ValuePos:   plan.Pos{File: rel, Line: line(v.Line), Col: v.Column},
			Duplicates: nestedDuplicates(v, rel, line),
		})
	}
}

// jsonable turns what yaml decodes into values encoding/json accepts:
// map[any]any keys become strings.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonable(e)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = jsonable(e)
		}
		return v
	}
	return v
}

// nestedDuplicates finds keys set twice in the mappings inside a value
// (metadata, hooks …): yaml.v3 refuses to decode such a value, and readers
// disagree on which setting wins.
func nestedDuplicates(n *yaml.Node, rel string, line func(int) int) []plan.DuplicateKey {
	var out []plan.DuplicateKey
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			first := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if at, ok := first[k.Value]; ok {
					out = append(out, plan.DuplicateKey{Key: k.Value, Pos: plan.Pos{File: rel, Line: line(k.Line), Col: k.Column}, FirstLine: at})
				} else {
					first[k.Value] = line(k.Line)
				}
				walk(n.Content[i+1])
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(n)
	return out
}
