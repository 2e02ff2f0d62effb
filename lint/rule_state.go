package lint

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/jsstatic"
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
	newRule("state-initial-status", plan.SevWarning,
		"the initial state sets a status the runtime overwrites when a run starts", checkInitialStatus),
	newRule("state-unknown-field", plan.SevWarning,
		"code reads or writes a state field the state schema does not declare", checkStateFields),
	newRule("state-null-absent", plan.SevWarning,
		"a precondition or the Decision Logic compares a state field to null with === or !==, but the initial state leaves the field out: absent is undefined, not null", checkNullAbsent),
	newRule("state-update-type", plan.SevError,
		"a literal state update does not fit the field's type in the schema", checkUpdateTypes(false)),
	newRule("state-update-type-agent", plan.SevWarning,
		"a literal state update in code the agent is sent (an action with no Execution section, code under another heading) does not fit the field's type in the schema", checkUpdateTypes(true)),
}

// schemaOf returns the skill's state schema, nil when it has none.
func schemaOf(s *plan.Skill) *plan.StateSchema {
	if s.StateSchema == nil || s.StateSchema.Schema == nil {
		return nil
	}
	return s.StateSchema
}

// compiledSchema compiles the skill's schema once per pass, and once
// per lint run for skills whose schemas are the same (runCache).
func (p *Pass) compiledSchema() (*stateschema.Schema, error) {
	if p.schema == nil {
		var c compiled
		if p.cache != nil {
			c = p.cache.compile(p.Skill.StateSchema)
		} else {
			ss := p.Skill.StateSchema
			c.schema, c.err = stateschema.Compile(ss.File, ss.Schema)
		}
		p.schema = &c
	}
	return p.schema.schema, p.schema.err
}

// compiled is a compiled state schema or why it did not compile.
type compiled struct {
	schema *stateschema.Schema
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
	violations, err := sch.Validate(initial)
	if err != nil {
		return
	}
	var problems []string
	var first *stateschema.Violation
	raw, _ := ss.Initial["status"].(string)
	for i, v := range violations {
		// The runtime maintains the base fields. Status is checked like any
		// field, unless the runtime overwrites it when the run starts
		// (state-initial-status says so).
		if !strings.Contains(v.Field, ".") && plan.IsBaseField(v.Field) && (v.Field != "status" || p.overwritten(raw)) {
			continue
		}
		where := v.Pointer
		if where == "" {
			where = "/"
		}
		if msg := where + ": " + v.Message; !slices.Contains(problems, msg) {
			problems = append(problems, msg)
		}
		if first == nil || v.Pointer < first.Pointer {
			first = &violations[i]
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		pos := ss.InitialPos
		if c := initialBlock(ss); c != nil {
			if line, col, ok := valueAt(c.Text, first.Pointer); ok {
				pos = c.At(line, col)
			}
		}
		p.Report(pos, "initial state does not satisfy the state schema (%s): %s", plural(len(problems), "problem"), strings.Join(problems, "; "))
	}
}

// overwritten reports whether the runtime replaces an initial status:
// it starts every run "running", but keeps "pending" in a skill with
// actions (plan.Skill.InitialState).
func (p *Pass) overwritten(status string) bool {
	return status != "running" && (status != "pending" || len(p.Skill.Actions) == 0)
}

func checkInitialStatus(p *Pass) {
	// The status is checked with or without a schema: the overwrite is
	// the runtime's, whatever the schema allows.
	ss := p.Skill.StateSchema
	if ss == nil {
		return
	}
	var status string
	var pos plan.Pos
	if v, ok := ss.Initial["status"].(string); ok {
		status, pos = v, ss.InitialPos
		if c := initialBlock(ss); c != nil {
			if line, col, ok := valueAt(c.Text, "/status"); ok {
				pos = c.At(line, col)
			}
		}
	}
	for _, u := range p.stateWrites() {
		if v, ok := u.Value.(string); ok && u.owner == initialOwner && u.Key == "status" {
			status, pos = v, u.valuePos
		}
	}
	if pos.File == "" || !p.overwritten(status) {
		return
	}
	keeps := ""
	if len(p.Skill.Actions) > 0 {
		keeps = " (it keeps only 'pending')"
	}
	p.Report(pos, "initial state sets status to %s, but the runtime starts every run with status 'running'%s: code that tests for %s never sees it", quoteJS(status), keeps, quoteJS(status))
}

// initialBlock is the Initial State code block of a schema file.
func initialBlock(ss *plan.StateSchema) *plan.CodeBlock {
	if ss.Doc == nil {
		return nil
	}
	for _, c := range ss.Doc.Code {
		if c.Pos == ss.InitialPos {
			return c
		}
	}
	return nil
}

// valueAt finds the value a JSON pointer names in the source of a JSON or
// JavaScript object literal, by its keys in order: enough for the shallow
// literals initial states are. It gives the 1-based line and byte column
// of the value; ok is false when a key is not found or the pointer goes
// through an array.
func valueAt(src, pointer string) (line, col int, ok bool) {
	if pointer == "" {
		return 0, 0, false
	}
	off := 0
	for _, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		at := -1
		for _, key := range []string{`"` + seg + `"`, `'` + seg + `'`, seg} {
			if i := keyIndex(src[off:], key); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
		if at < 0 {
			return 0, 0, false
		}
		off += at
	}
	// Past the key, the colon and blanks: the value.
	off += strings.IndexByte(src[off:], ':') + 1
	for off < len(src) && (src[off] == ' ' || src[off] == '\t') {
		off++
	}
	line = 1 + strings.Count(src[:off], "\n")
	return line, off - (strings.LastIndexByte(src[:off], '\n') + 1) + 1, true
}

// keyIndex finds key written as an object key (followed by a colon) in
// src, -1 when it is not there.
func keyIndex(src, key string) int {
	for off := 0; ; {
		i := strings.Index(src[off:], key)
		if i < 0 {
			return -1
		}
		i += off
		rest := strings.TrimLeft(src[i+len(key):], " \t")
		if strings.HasPrefix(rest, ":") && !identByte(src, i-1) {
			return i
		}
		off = i + 1
	}
}

// navFor returns the navigator of the skill's schema, nil when it has
// none or the schema does not compile (state-schema-invalid reports that;
// checking code against a broken schema would only add noise).
func (p *Pass) navFor() *stateschema.Nav {
	if p.nav != nil {
		return *p.nav
	}
	var nav *stateschema.Nav
	if ss := schemaOf(p.Skill); ss != nil {
		// Compiling is the costly part of linting state; a converted
		// TypeScript schema is valid by construction and skips it.
		if ss.Source == "typescript" {
			nav = &stateschema.Nav{Root: ss.Schema, Closed: true}
		} else if _, err := p.compiledSchema(); err == nil {
			nav = &stateschema.Nav{Root: ss.Schema}
		}
	}
	p.nav = &nav
	return nav
}

// stateUse is a state path some code uses, placed in its file.
type stateUse struct {
	fields []string
	pos    plan.Pos
	// end is the column just past the use, 0 when unknown.
	end  int
	what string // "reads" or "writes"
	// nested marks a key inside an object literal written under another
	// key: when that key is already unknown, the nested one is not news.
	nested bool
}

// stateUses hands use, in order, what checkStateFields checks: reads in
// preconditions, catalog preconditions, step conditions, decision logic
// and State Updates blocks, and the keys actions write. It hands them
// one by one rather than as a list: a skill holds one per JavaScript
// block and more, and the list was a sixteenth of what an editor's
// re-lint allocated.
func stateUses(p *Pass, use func(stateUse)) {
	exprReads := func(e *plan.Expr) {
		if !e.Checkable() {
			return
		}
		prog := p.parseExpr(e)
		if prog == nil {
			return
		}
		for _, r := range prog.StateReads(nil) {
			// The expression may be rewritten from shorthand, so its
			// columns are not the file's: find the field on the line.
			path := strings.Join(r.Fields, ".")
			pos, end := p.tokenAt(e.Pos, "state."+path, path, r.Fields[0])
			use(stateUse{fields: r.Fields, pos: pos, end: end, what: "reads"})
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
			use(stateUse{fields: r.Fields, pos: c.At(r.Line, r.Col), what: "reads"})
		}
	}
	for _, e := range p.Skill.Exprs() {
		exprReads(e)
	}
	for _, a := range p.Skill.Actions {
		blockReads(a.StateUpdates)
	}
	for _, u := range p.stateWrites() {
		use(stateUse{fields: strings.Split(u.Key, "."), pos: u.pos, what: "writes", nested: u.Nested})
	}
	if o := p.Skill.Orchestrator; o != nil {
		blockReads(o.Decision)
	}
	// Every JS block of a phase or an action reads the state as written,
	// whether skillkit runs it or the agent is sent it.
	for _, d := range p.codeDocs() {
		for _, c := range d.Code {
			if c.Kind() == plan.LangJS && !p.misread(d, c) {
				blockReads(c)
			}
		}
	}
}

// codeDocs are the phase and action files: the documents whose code is
// run or sent to the agent.
func (p *Pass) codeDocs() []*plan.Doc {
	var out []*plan.Doc
	for _, ph := range p.Skill.Phases {
		out = append(out, ph.Doc)
	}
	for _, a := range p.Skill.Actions {
		out = append(out, a.Doc)
	}
	return out
}

// update is a state update some code makes, placed in its file.
type update struct {
	jsstatic.Update
	// owner says who writes: an action id, a phase file, "the initial
	// state".
	owner string
	// pos is the key's position, valuePos the value's.
	pos, valuePos plan.Pos
	// template is set when the block parsed only with its placeholders
	// replaced: the key is real, the value may be a stand-in.
	template bool
	// agent is set for a block skillkit never runs: one of a phase or
	// an action that is no step's and no action's Execution (an action
	// with no Execution section, code under another heading). The agent
	// is sent it, or reads it, and does what it says.
	agent bool
}

// stateWrites returns every state update of the skill, once per pass:
// what actions return (their Execution block's stateUpdates, their State
// Updates block), what any runnable block writes the ways real skills
// write state (updateState({...}), state = {...}, state.x = v), and the
// keys of an Initial State block written as a JavaScript object.
func (p *Pass) stateWrites() []update {
	if p.updates != nil {
		return *p.updates
	}
	var out []update
	seen := map[plan.Pos]bool{}
	blocks := map[*plan.CodeBlock]bool{}
	agent := false
	add := func(owner string, c *plan.CodeBlock, b *jsBlock, us []jsstatic.Update) {
		blocks[c] = true
		for _, u := range us {
			pos := c.At(u.Line, u.Col)
			if seen[pos] {
				continue
			}
			seen[pos] = true
			out = append(out, update{Update: u, owner: owner, pos: pos, valuePos: c.At(u.ValueLine, u.ValueCol), template: b.template, agent: agent})
		}
	}
	js := func(c *plan.CodeBlock) *jsBlock {
		if c == nil || c.Kind() != plan.LangJS {
			return nil
		}
		if b := p.parseJS(c); b.prog != nil {
			return b
		}
		return nil
	}
	for _, a := range p.Skill.Actions {
		for _, c := range []*plan.CodeBlock{a.Execution.Code, a.StateUpdates} {
			if b := js(c); b != nil {
				// In the State Updates section a returned object can only be
				// the updates; Execution code also returns control objects
				// ({continue: false, message}), so there only stateUpdates
				// counts.
				add(a.ID, c, b, b.prog.Updates(c == a.StateUpdates))
				add(a.ID, c, b, b.prog.StateWrites())
			}
		}
	}
	for _, ph := range p.Skill.Phases {
		for _, st := range ph.Steps {
			for _, c := range st.Code {
				if b := js(c); b != nil && !p.misread(ph.Doc, c) {
					add(ph.Doc.File, c, b, b.prog.StateWrites())
				}
			}
		}
	}
	// Every other JS block of a phase or an action is agent work: what it
	// writes is what the agent is asked to write.
	agent = true
	other := func(owner string, d *plan.Doc) {
		for _, c := range d.Code {
			if blocks[c] || p.misread(d, c) {
				continue
			}
			if b := js(c); b != nil {
				add(owner, c, b, b.prog.StateWrites())
			}
		}
	}
	for _, a := range p.Skill.Actions {
		other(a.ID, a.Doc)
	}
	for _, ph := range p.Skill.Phases {
		other(ph.Doc.File, ph.Doc)
	}
	agent = false
	if c := p.initialJS(); c != nil {
		b := p.parseJS(c)
		if b.prog == nil {
			// TypeScript: without the declaration's type the object parses
			// as JavaScript, at the same columns past the name.
			b = &jsBlock{}
			b.prog, _ = jsstatic.Parse(untypeTS(c.Text))
		}
		if b.prog != nil {
			if us, ok := b.prog.InitialObject(); ok {
				add(initialOwner, c, b, us)
			}
		}
	}
	p.updates = &out
	return out
}

// tsDeclType is a declaration with a type annotation: "export const
// initial: State =", the export keyword and the type as groups 1 and 2.
var tsDeclType = regexp.MustCompile(`(?m)^\s*(export\s+)?(?:const|let|var)\s+[\w$]+(\s*:[^=\n]+)=`)

// untypeTS blanks the export keywords and declaration types of TypeScript
// with spaces, so that it parses as JavaScript at the same positions.
func untypeTS(src string) string {
	b := []byte(src)
	for _, m := range tsDeclType.FindAllStringSubmatchIndex(src, -1) {
		for _, g := range [][2]int{{m[2], m[3]}, {m[4], m[5]}} {
			for i := g[0]; i >= 0 && i < g[1]; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// initialOwner is the owner of the updates an Initial State block written
// in JavaScript makes.
const initialOwner = "the initial state"

// initialJS is the Initial State block of the state schema when it is
// JavaScript (or TypeScript) rather than JSON: the parser reads only
// JSON into the initial state, so lint reads the object's literal keys.
func (p *Pass) initialJS() *plan.CodeBlock {
	ss := p.Skill.StateSchema
	if ss == nil || ss.Doc == nil || ss.Initial != nil {
		return nil
	}
	for _, sec := range ss.Doc.Sections {
		if sec.Key != plan.SecInitialState {
			continue
		}
		for _, c := range ss.Doc.Code {
			if c.Pos.Line > sec.Pos.Line && c.Pos.Line <= sec.EndLine && (c.Kind() == plan.LangJS || c.Lang == "typescript" || c.Lang == "ts") {
				return c
			}
		}
	}
	return nil
}

// checkStateFields reports uses of fields the schema lacks. They have
// one cause, a schema behind the code, so they are one finding: the first
// use, and a count and the names of the others.
func checkStateFields(p *Pass) {
	nav := p.navFor()
	if nav == nil {
		return
	}
	type key struct {
		pos  plan.Pos
		path string
	}
	type unknown struct {
		stateUse
		path, where string
	}
	seen := map[key]bool{}
	var found []unknown
	stateUses(p, func(u stateUse) {
		bad, _ := nav.Lookup(u.fields)
		if bad < 0 || u.nested && bad < len(u.fields)-1 {
			return
		}
		path := strings.Join(u.fields[:bad+1], ".")
		k := key{u.pos, path}
		if seen[k] {
			return
		}
		seen[k] = true
		where := "the state schema"
		if bad > 0 {
			where = "state." + strings.Join(u.fields[:bad], ".") + " in the state schema"
		}
		found = append(found, unknown{u, path, where})
	})
	if len(found) == 0 {
		return
	}
	slices.SortStableFunc(found, func(a, b unknown) int {
		return cmp.Or(strings.Compare(a.pos.File, b.pos.File), cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.pos.Col, b.pos.Col))
	})
	first := found[0]
	more := ""
	if len(found) > 1 {
		var others []string
		for _, u := range found[1:] {
			if f := "state." + u.path; f != "state."+first.path && !slices.Contains(others, f) {
				others = append(others, f)
			}
		}
		more = fmt.Sprintf("; and %s of fields the schema lacks", plural(len(found)-1, "more use"))
		if len(others) > 0 {
			more += ": " + listSome(others, 5)
		}
	}
	p.ReportRange(first.pos, first.end, "%s state.%s, which %s (%s) does not declare%s", first.what, first.path, first.where, p.Skill.StateSchema.File, more)
}

// listSome joins the first n items and says how many it left out.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// checkUpdateTypes reports literal updates that do not fit the schema:
// in code skillkit runs (agent unset), where the update fails the run,
// or in code the agent is sent (agent set), which asks the agent for a
// value the schema refuses.
func checkUpdateTypes(agent bool) func(p *Pass) {
	return func(p *Pass) { updateTypes(p, agent) }
}

func updateTypes(p *Pass, agent bool) {
	nav := p.navFor()
	if nav == nil {
		return
	}
	for _, u := range p.stateWrites() {
		if u.template || u.Kind == "" || u.agent != agent {
			continue
		}
		if s, ok := u.Value.(string); ok && (plan.IsPlaceholderString(s) || u.owner == initialOwner && u.Key == "status" && p.overwritten(s)) {
			continue // a slot, or a status state-initial-status reports
		}
		bad, sub := nav.Lookup(strings.Split(u.Key, "."))
		if bad >= 0 || sub == nil {
			continue
		}
		if why := misfit(nav, sub, u.Kind, u.Value); why != "" {
			p.Report(u.valuePos, "%s sets state.%s to %s, but %s", u.owner, u.Key, describeValue(u.Kind, u.Value), why)
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
func misfit(n *stateschema.Nav, s map[string]any, kind string, v any) string {
	if s = n.Resolve(s); s == nil {
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

// checkNullAbsent reports a test of a top-level state field, in a
// precondition or the Decision Logic, against null by === or !== when
// the run's initial state has no such field: until an action sets it the
// field is undefined, so
// state.x === null is false and state.x !== null true, the opposite of
// what the test means (the Codex ccw-loop's INIT, due on skill_state ===
// null, could never be selected). One finding per field, at its first
// test, naming how many more there are.
func checkNullAbsent(p *Pass) {
	if len(p.Skill.Actions) == 0 {
		return
	}
	present := map[string]bool{}
	for k := range p.Skill.InitialState(placeholderTime) {
		present[k] = true
	}
	// A field a phase writes (a hybrid skill's phases run before its
	// loop) or an Initial State written as JavaScript sets may be there
	// when the loop starts: only a field no code but the actions writes is
	// surely absent.
	for _, u := range p.stateWrites() {
		if p.Skill.Action(u.owner) == nil {
			top, _, _ := strings.Cut(u.Key, ".")
			present[top] = true
		}
	}
	type test struct {
		field string
		pos   plan.Pos
		end   int
	}
	var tests []test
	add := func(fields []string, pos plan.Pos, end int) {
		if len(fields) == 1 && !present[fields[0]] {
			tests = append(tests, test{fields[0], pos, end})
		}
	}
	for _, pc := range p.Skill.Preconditions() {
		if prog := p.parseExpr(&pc.Expr); pc.Checkable() && prog != nil {
			for _, r := range prog.NullTests() {
				pos, end := p.tokenAt(pc.Pos, "state."+r.String(), r.String())
				add(r.Fields, pos, end)
			}
		}
	}
	if o := p.Skill.Orchestrator; o != nil && o.Decision != nil {
		if b := p.parseJS(o.Decision); b.prog != nil {
			for _, r := range b.prog.NullTests() {
				add(r.Fields, o.Decision.At(r.Line, r.Col), 0)
			}
		}
	}
	where := "the base state (there is no Initial State block)"
	if ss := p.Skill.StateSchema; ss != nil && ss.Initial != nil {
		where = "the Initial State at " + ss.InitialPos.String()
	}
	done := map[string]bool{}
	for _, t := range tests {
		if done[t.field] {
			continue
		}
		done[t.field] = true
		n := 0
		for _, u := range tests {
			if u.field == t.field {
				n++
			}
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (and %s of it)", plural(n-1, "more test"))
		}
		p.ReportRange(t.pos, t.end, "tests state.%s against null with === or !==%s, but %s has no %s: absent is undefined, so the test takes it for set; add \"%s\": null to the initial state, or test with == null", t.field, more, where, t.field, t.field)
	}
}
