package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// value is a configuration value with its position: .mcp.json and the
// mcp block of skillkit.yaml are both read into it, so that one decoder
// (decodeServers) gives both the same meaning and the same messages.
type value struct {
	pos plan.Pos
	// kind is "object", "array", "string", "number", "bool" or "null".
	kind string
	str  string
	// keys and vals are an object's members in file order; items an
	// array's elements.
	keys  []string
	kpos  []plan.Pos
	vals  []*value
	items []*value
}

// get returns the member key of an object, or nil.
func (v *value) get(key string) *value {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// lineIndex turns byte offsets into line and column.
type lineIndex struct{ starts []int }

func newLineIndex(data []byte) lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts}
}

func (li lineIndex) pos(file string, off int) plan.Pos {
	line := 0
	for line+1 < len(li.starts) && li.starts[line+1] <= off {
		line++
	}
	return plan.Pos{File: file, Line: line + 1, Col: off - li.starts[line] + 1}
}

// decodeJSON reads a JSON document into a value tree with positions. A
// syntax error is a *ConfigError at the offending line.
func decodeJSON(file string, data []byte) (*value, error) {
	li := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// start finds where the token read next begins: after the previous
	// token, past blanks and separators.
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) {
			switch data[off] {
			case ' ', '\t', '\r', '\n', ',', ':':
				off++
				continue
			}
			break
		}
		return off
	}
	fail := func(err error) error {
		off := start()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = errors.New("unexpected end of JSON input")
			off = len(data)
		}
		return &ConfigError{Pos: li.pos(file, off), Msg: "not valid JSON: " + err.Error()}
	}
	var read func(depth int) (*value, error)
	read = func(depth int) (*value, error) {
		if depth > maxDepth {
			return nil, &ConfigError{Pos: li.pos(file, start()), Msg: "nested too deep"}
		}
		pos := li.pos(file, start())
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		v := &value{pos: pos}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				v.kind = "object"
				for dec.More() {
					kpos := li.pos(file, start())
					k, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					key, _ := k.(string)
					if v.get(key) != nil {
						return nil, &ConfigError{Pos: kpos, Msg: fmt.Sprintf("key %q appears twice", key)}
					}
					m, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					v.keys, v.kpos, v.vals = append(v.keys, key), append(v.kpos, kpos), append(v.vals, m)
				}
			case '[':
				v.kind = "array"
				for dec.More() {
					m, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					v.items = append(v.items, m)
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
		case string:
			v.kind, v.str = "string", t
		case json.Number:
			v.kind, v.str = "number", t.String()
		case bool:
			v.kind, v.str = "bool", strconv.FormatBool(t)
		case nil:
			v.kind = "null"
		}
		return v, nil
	}
	v, err := read(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ConfigError{Pos: li.pos(file, start()), Msg: "not valid JSON: data after the top-level value"}
	}
	return v, nil
}

// maxDepth bounds nesting, so that a hostile file cannot exhaust the
// stack; a real configuration is four levels deep.
const maxDepth = 64

// fromYAML converts a YAML node of skillkit.yaml into a value tree.
func fromYAML(file string, n *yaml.Node, depth int) (*value, error) {
	pos := plan.Pos{File: file, Line: n.Line, Col: n.Column}
	if depth > maxDepth {
		return nil, &ConfigError{Pos: pos, Msg: "nested too deep"}
	}
	v := &value{pos: pos}
	switch n.Kind {
	case yaml.AliasNode:
		return fromYAML(file, n.Alias, depth+1)
	case yaml.MappingNode:
		v.kind = "object"
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			kpos := plan.Pos{File: file, Line: n.Content[i].Line, Col: n.Content[i].Column}
			if v.get(k) != nil {
				return nil, &ConfigError{Pos: kpos, Msg: fmt.Sprintf("key %q appears twice", k)}
			}
			m, err := fromYAML(file, n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			v.keys, v.kpos, v.vals = append(v.keys, k), append(v.kpos, kpos), append(v.vals, m)
		}
	case yaml.SequenceNode:
		v.kind = "array"
		for _, c := range n.Content {
			m, err := fromYAML(file, c, depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, m)
		}
	default:
		v.str = n.Value
		switch n.ShortTag() {
		case "!!null":
			v.kind = "null"
		case "!!bool":
			v.kind = "bool"
		case "!!int", "!!float":
			v.kind = "number"
		default:
			v.kind = "string"
		}
	}
	return v, nil
}
