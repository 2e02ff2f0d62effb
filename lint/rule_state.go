package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/internal/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

var stateRules = []Rule{
	diagnosticRule("state-schema-unsupported", plan.SevInfo,
		"a TypeScript construct in the state schema is not supported and is read as any"),
	diagnosticRule("state-initial-json", plan.SevError, "the Initial State block is not valid JSON"),
	newRule("state-schema-invalid", plan.SevError,
		"the state schema is not a valid JSON Schema", checkSchemaCompiles),
	newRule("state-initial-invalid", plan.SevError,
		"the initial state does not satisfy the state schema", checkInitialState),
	newRule("state-unknown-field", plan.SevWarning,
		"code reads or writes a state field the state schema does not declare", checkStateFields),
	newRule("state-update-type", plan.SevError,
		"a literal state update does not fit the field's type in the schema", checkUpdateTypes),
}

// schemaOf returns the skill's state schema, nil when it has none.
func schemaOf(s *plan.Skill) *plan.StateSchema {
	if s.StateSchema == nil || s.StateSchema.Schema == nil {
		return nil
	}
	return s.StateSchema
}

// compileSchema compiles the state schema with no access to files or the
// network: references that leave the schema fail.
func compileSchema(ss *plan.StateSchema) (*jsonschema.Schema, error) {
	schema := ss.Schema
	draft := jsonschema.Draft2020
	if ss.Source == "typescript" {
		// The converter writes only keywords that mean the same in draft
		// 7 (type, enum, const, properties, required, items,
		// additionalProperties, anyOf, allOf, a lone $ref), and draft 7's
		// meta-schema is far cheaper to check a schema against than
		// 2020-12's, the larger part of linting state.
		schema = maps.Clone(schema)
		schema["$schema"] = "http://json-schema.org/draft-07/schema#"
		draft = jsonschema.Draft7
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("lint does not load %s: references outside the schema are not followed", u)
	}
	const url = "skillkit:state-schema.json"
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// compiledSchema compiles the skill's schema once per pass.
func (p *Pass) compiledSchema() (*jsonschema.Schema, error) {
	if p.schema == nil {
		sch, err := compileSchema(p.Skill.StateSchema)
		p.schema = &compiled{sch, err}
	}
	return p.schema.schema, p.schema.err
}

// compiled is a compiled state schema or why it did not compile.
type compiled struct {
	schema *jsonschema.Schema
	err    error
}

func checkSchemaCompiles(p *Pass) {
	ss := schemaOf(p.Skill)
	// A schema converted from TypeScript is built by skillkit and valid by
	// construction; only a JSON Schema the author wrote can be invalid.
	if ss == nil || ss.Source != "json" {
		return
	}
	if _, err := p.compiledSchema(); err != nil {
		pos := plan.Pos{File: ss.File}
		if ss.Code != nil {
			pos = ss.Code.Pos
		}
		p.Report(pos, "state schema does not compile: %s", oneLine(err.Error()))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// placeholderTime fills {ISO8601} in the initial state: any fixed time
// does, and a fixed one keeps findings stable.
var placeholderTime = time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)

func checkInitialState(p *Pass) {
	ss := schemaOf(p.Skill)
	if ss == nil || ss.Initial == nil {
		return
	}
	sch, err := p.compiledSchema()
	if err != nil {
		return // state-schema-invalid reports it
	}
	initial := plan.FillPlaceholders(ss.Initial, p.Skill.Name, placeholderTime)
	err = sch.Validate(initial)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var problems []string
	for _, e := range ve.BasicOutput().Errors {
		// Inner errors only: the outer ones say "doesn't validate with …".
		if e.Error == "" || strings.HasPrefix(e.Error, "doesn't validate with") {
			continue
		}
		// The runtime fills the base fields when a run starts.
		top, _, _ := strings.Cut(strings.TrimPrefix(e.InstanceLocation, "/"), "/")
		if top != "" && top == strings.TrimPrefix(e.InstanceLocation, "/") && plan.IsBaseField(top) {
			continue
		}
		where := e.InstanceLocation
		if where == "" {
			where = "/"
		}
		if msg := where + ": " + e.Error; !slices.Contains(problems, msg) {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		p.Report(ss.InitialPos, "initial state does not satisfy the state schema (%s): %s", plural(len(problems), "problem"), strings.Join(problems, "; "))
	}
}

// schemaNav walks a state schema by field names.
type schemaNav struct {
	root map[string]any
	// closed is set for schemas converted from TypeScript: an interface
	// lists every field it has, so an undeclared one is a mistake. A JSON
	// Schema is closed only where it says additionalProperties: false.
	closed bool
}

// lookup walks fields from the root. It returns the index of the first
// field the schema rules out, or -1; sub is the schema of the last field
// when the walk reached it with a definite schema, else nil.
func (n *schemaNav) lookup(fields []string) (bad int, sub map[string]any) {
	s := n.root
	for i, f := range fields {
		s = n.resolve(s)
		if len(s) == 0 {
			return -1, nil
		}
		if !isObjectSchema(s) {
			// state.items.length, state.name.trim: members of a value.
			return -1, nil
		}
		props, _ := s["properties"].(map[string]any)
		if ps, ok := props[f].(map[string]any); ok {
			s = ps
			continue
		}
		if i == 0 && plan.IsBaseField(f) {
			return -1, nil
		}
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			s = ap
			continue
		case bool:
			if ap {
				return -1, nil
			}
			return i, nil
		}
		if n.closed && props != nil {
			return i, nil
		}
		return -1, nil
	}
	return -1, n.resolve(s)
}

// resolve follows $ref and narrows "T | null" to T. It returns nil for
// what cannot be followed (a schema that is any).
func (n *schemaNav) resolve(s map[string]any) map[string]any {
	for range 16 {
		if ref, ok := s["$ref"].(string); ok {
			switch {
			case ref == "#":
				s = n.root
			case strings.HasPrefix(ref, "#/$defs/"):
				defs, _ := n.root["$defs"].(map[string]any)
				d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
				if !ok {
					return nil
				}
				s = d
			default:
				return nil
			}
			continue
		}
		if alts, ok := s["anyOf"].([]any); ok {
			var keep []map[string]any
			for _, a := range alts {
				am, _ := a.(map[string]any)
				if am == nil {
					return nil
				}
				if t, _ := am["type"].(string); t == "null" && len(am) == 1 {
					continue
				}
				keep = append(keep, am)
			}
			if len(keep) != 1 {
				return nil
			}
			s = keep[0]
			continue
		}
		if _, ok := s["oneOf"]; ok {
			return nil
		}
		if _, ok := s["allOf"]; ok {
			return nil
		}
		return s
	}
	return nil
}

// isObjectSchema reports whether a schema may be an object with fields:
// type object (alone or with null), or no type but properties.
func isObjectSchema(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, e := range t {
			if e == "object" {
				return true
			}
		}
		return false
	}
	if _, ok := s["enum"]; ok {
		return false
	}
	if _, ok := s["const"]; ok {
		return false
	}
	return true
}

// navFor returns the navigator of the skill's schema, nil when it has
// none or the schema does not compile (state-schema-invalid reports that;
// checking code against a broken schema would only add noise).
func (p *Pass) navFor() *schemaNav {
	if p.nav != nil {
		return *p.nav
	}
	var nav *schemaNav
	if ss := schemaOf(p.Skill); ss != nil {
		// Compiling is the costly part of linting state; a converted
		// TypeScript schema is valid by construction and skips it.
		if ss.Source == "typescript" {
			nav = &schemaNav{root: ss.Schema, closed: true}
		} else if _, err := p.compiledSchema(); err == nil {
			nav = &schemaNav{root: ss.Schema}
		}
	}
	p.nav = &nav
	return nav
}

// stateUse is a state path some code uses, placed in its file.
type stateUse struct {
	fields []string
	pos    plan.Pos
	what   string // "reads" or "writes"
	// nested marks a key inside an object literal written under another
	// key: when that key is already unknown, the nested one is not news.
	nested bool
}

// stateUses collects what checkStateFields checks: reads in
// preconditions, catalog preconditions, step conditions, decision logic
// and State Updates blocks, and the keys actions write.
func stateUses(p *Pass) []stateUse {
	var out []stateUse
	exprReads := func(e *plan.Expr) {
		if !e.Checkable() {
			return
		}
		prog, _, err := jsstatic.ParseExpression(e.JS)
		if err != nil {
			return
		}
		for _, r := range prog.StateReads(nil) {
			// The expression may be rewritten from shorthand, so its
			// columns are not the file's: point at the line.
			out = append(out, stateUse{fields: r.Fields, pos: e.Pos, what: "reads"})
		}
	}
	var preconds func([]*plan.Precondition)
	preconds = func(list []*plan.Precondition) {
		for _, pc := range list {
			exprReads(&pc.Expr)
			preconds(pc.AnyOf)
		}
	}
	blockReads := func(c *plan.CodeBlock) {
		if c == nil {
			return
		}
		b := p.parseJS(c)
		if b.prog == nil {
			return
		}
		for _, r := range b.prog.StateReads(nil) {
			out = append(out, stateUse{fields: r.Fields, pos: at(c, r.Line, r.Col), what: "reads"})
		}
	}
	for _, a := range p.Skill.Actions {
		preconds(a.Preconditions)
		blockReads(a.StateUpdates)
		for _, u := range actionUpdates(p, a) {
			out = append(out, stateUse{fields: strings.Split(u.Key, "."), pos: u.pos, what: "writes", nested: u.Nested})
		}
	}
	if c := p.Skill.Catalog; c != nil {
		for _, r := range c.Rows {
			preconds(r.Preconditions)
		}
	}
	for _, ph := range p.Skill.Phases {
		for _, st := range ph.Steps {
			if c := st.Attrs.Condition; c != nil {
				exprReads(c)
			}
		}
	}
	if o := p.Skill.Orchestrator; o != nil {
		blockReads(o.Decision)
	}
	return out
}

// update is a state update an action returns, placed in its file.
type update struct {
	jsstatic.Update
	pos plan.Pos
	// template is set when the block parsed only with its placeholders
	// replaced: the key is real, the value may be a stand-in.
	template bool
}

// actionUpdates returns the updates an action's Execution block and State
// Updates block return.
func actionUpdates(p *Pass, a *plan.Action) []update {
	if u, ok := p.updates[a]; ok {
		return u
	}
	var out []update
	defer func() { p.updates[a] = out }()
	for _, c := range []*plan.CodeBlock{a.Execution.Code, a.StateUpdates} {
		if c == nil || c.Kind() != plan.LangJS {
			continue
		}
		b := p.parseJS(c)
		if b.prog == nil {
			continue
		}
		// In the State Updates section a returned object can only be the
		// updates; Execution code also returns control objects
		// ({continue: false, message}), so there only stateUpdates counts.
		for _, u := range b.prog.Updates(c == a.StateUpdates) {
			out = append(out, update{Update: u, pos: at(c, u.Line, u.Col), template: b.template})
		}
	}
	return out
}

func checkStateFields(p *Pass) {
	nav := p.navFor()
	if nav == nil {
		return
	}
	type key struct {
		pos  plan.Pos
		path string
	}
	seen := map[key]bool{}
	for _, u := range stateUses(p) {
		bad, _ := nav.lookup(u.fields)
		if bad < 0 || u.nested && bad < len(u.fields)-1 {
			continue
		}
		path := strings.Join(u.fields[:bad+1], ".")
		k := key{u.pos, path}
		if seen[k] {
			continue
		}
		seen[k] = true
		where := "the state schema"
		if bad > 0 {
			where = "state." + strings.Join(u.fields[:bad], ".") + " in the state schema"
		}
		p.Report(u.pos, "%s state.%s, which %s (%s) does not declare", u.what, path, where, p.Skill.StateSchema.File)
	}
}

func checkUpdateTypes(p *Pass) {
	nav := p.navFor()
	if nav == nil {
		return
	}
	for _, a := range p.Skill.Actions {
		for _, u := range actionUpdates(p, a) {
			if u.template || u.Kind == "" {
				continue
			}
			if s, ok := u.Value.(string); ok && isPlaceholder(s) {
				continue
			}
			bad, sub := nav.lookup(strings.Split(u.Key, "."))
			if bad >= 0 || sub == nil {
				continue
			}
			if why := misfit(nav, sub, u.Kind, u.Value); why != "" {
				p.Report(u.pos, "%s sets state.%s to %s, but %s", a.ID, u.Key, describeValue(u.Kind, u.Value), why)
			}
		}
	}
}

func describeValue(kind string, v any) string {
	switch kind {
	case jsstatic.KindString:
		if s, ok := v.(string); ok {
			return quoteJS(s)
		}
		return "a string"
	case jsstatic.KindNumber:
		if f, ok := v.(float64); ok {
			return fmt.Sprint(f)
		}
		return "a number"
	case jsstatic.KindBoolean:
		return fmt.Sprint(v)
	case jsstatic.KindNull:
		return "null"
	case jsstatic.KindArray:
		return "an array"
	}
	return "an object"
}

// misfit says why a literal does not fit a schema, "" when it fits or the
// schema is too complex to say.
func misfit(n *schemaNav, s map[string]any, kind string, v any) string {
	if s = n.resolve(s); s == nil {
		return ""
	}
	if enum, ok := s["enum"].([]any); ok {
		if kind == jsstatic.KindArray || kind == jsstatic.KindObject || v == nil && kind != jsstatic.KindNull {
			return ""
		}
		for _, e := range enum {
			if e == v || kind == jsstatic.KindNull && e == nil {
				return ""
			}
		}
		return "the schema allows only " + describeEnum(enum)
	}
	if c, ok := s["const"]; ok {
		if kind == jsstatic.KindArray || kind == jsstatic.KindObject || v == nil && kind != jsstatic.KindNull || c == v {
			return ""
		}
		return "the schema allows only " + describeEnum([]any{c})
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			if es, ok := e.(string); ok {
				types = append(types, es)
			}
		}
	default:
		return ""
	}
	for _, t := range types {
		if t == kind || t == "integer" && kind == jsstatic.KindNumber || !jsonTypes[t] {
			return ""
		}
	}
	return "the schema says " + strings.Join(types, " or ")
}

// jsonTypes are JSON Schema's type names.
var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "null": true, "array": true, "object": true}

func describeEnum(enum []any) string {
	var parts []string
	for _, e := range enum {
		switch e := e.(type) {
		case string:
			parts = append(parts, quoteJS(e))
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(e))
		}
	}
	return strings.Join(parts, ", ")
}
