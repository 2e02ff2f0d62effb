// Package plan is the typed model of a skill that every part of skillkit
// shares: the parser fills it, lint checks it, the runners execute it.
//
// Every element carries a Pos so that any later error can name the markdown
// file, line and column it came from. Paths inside a plan are relative to
// the skill folder and use forward slashes.
package plan

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skillkit/skillkit/jsstatic"
)

// Pos is a position in a file of a skill: the file relative to the skill
// folder, a 1-based line and a 1-based column (in bytes). A zero Line means
// the position is the file as a whole.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String formats the position as file:line:col, dropping what is unknown.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether the position names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// Mode is a skill's execution mode, inferred from its layout.
type Mode string

// The execution modes. ModeAgent is a skill with an entry but no
// numbered phase, no orchestrator and no action (a plain SKILL.md, or a
// phases/ folder skillkit cannot order): it runs as one agent unit
// (Skill.AgentUnit). ModeUnknown has not even an entry: there is nothing
// to run.
const (
	ModeSequential Mode = "sequential"
	ModeAutonomous Mode = "autonomous"
	ModeHybrid     Mode = "hybrid"
	ModeAgent      Mode = "agent"
	ModeUnknown    Mode = "unknown"
)

// Severity ranks a diagnostic or a lint finding.
type Severity string

// The severities, from most to least serious.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Diagnostic is something the parser noticed while reading a skill: odd
// markdown, an unparseable number, an unsupported type. It never stops the
// parse; lint turns diagnostics into findings under the rule named by Code.
type Diagnostic struct {
	Pos      Pos      `json:"pos"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Code)
}

// Skill is one skill folder, parsed.
type Skill struct {
	// Dir is the skill folder as given to the parser (not relative).
	Dir string `json:"dir"`
	// Execution is the skill's execution setting, auto, native or agent
	// (Classify reads it from the front matter or skillkit.yaml).
	Execution string `json:"execution,omitempty"`
	// Name is the front matter name, else the folder's base name.
	Name string `json:"name"`
	// Entry is the entry document: "SKILL.md", or "orchestrator.md" for the
	// Codex layout with no SKILL.md; empty when the skill has neither.
	Entry string `json:"entry,omitempty"`
	// FrontMatter is the entry document's front matter; nil when it has none.
	FrontMatter *FrontMatter `json:"frontMatter,omitempty"`
	// Body is the entry document after its front matter.
	Body *Doc `json:"body,omitempty"`
	// Instructions is the markdown of Body: what the agent is given as
	// the skill's context, as Claude Code gives a model the SKILL.md body.
	Instructions string `json:"instructions,omitempty"`
	// InstructionsLine is the line of the entry document where
	// Instructions begins, so that what goes wrong in them (a context
	// command that fails) is told at its line.
	InstructionsLine int  `json:"instructionsLine,omitempty"`
	Mode             Mode `json:"mode"`
	// Phases are the numbered phase files in execution order. A numbered
	// orchestrator (hybrid) is among them with IsOrchestrator set.
	Phases       []*Phase      `json:"phases,omitempty"`
	Orchestrator *Orchestrator `json:"orchestrator,omitempty"`
	// Actions are sorted by id.
	Actions []*Action `json:"actions,omitempty"`
	// Catalog is specs/action-catalog.md, else the orchestrator's own
	// "Action Catalog" section; nil when neither exists.
	Catalog     *Catalog     `json:"catalog,omitempty"`
	StateSchema *StateSchema `json:"stateSchema,omitempty"`
	// Docs are the other markdown files of the skill (specs, templates, …),
	// kept for links and fences.
	Docs []*Doc `json:"docs,omitempty"`
	// Files lists every file of the skill, relative and sorted.
	Files []string `json:"files"`
	// Hash is a content hash over every file of the skill; a run refuses to
	// resume when it changed.
	Hash        string       `json:"hash"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// MCPServers are the MCP servers the project configures (.mcp.json,
	// skillkit.yaml's mcp block), set by the parser's caller: plan reads
	// no configuration. A step that calls a tool of a server not among
	// them goes to the agent.
	MCPServers []string `json:"mcpServers,omitempty"`
	// Blocks, set by the parser's caller, keeps block parses from one
	// parse of the skill to the next (an editor's); nil parses each block.
	Blocks *Blocks `json:"-"`
	// settings are worker.yaml and skillkit.yaml (Configure).
	settings Settings
}

// AllDocs returns every markdown file of the skill once: the entry's body,
// the phases, the orchestrator, the actions, the state schema, then the
// other docs.
func (s *Skill) AllDocs() []*Doc {
	var out []*Doc
	seen := map[*Doc]bool{}
	add := func(d *Doc) {
		if d != nil && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	add(s.Body)
	for _, ph := range s.Phases {
		add(ph.Doc)
	}
	if s.Orchestrator != nil {
		add(s.Orchestrator.Doc)
	}
	for _, a := range s.Actions {
		add(a.Doc)
	}
	if s.StateSchema != nil {
		add(s.StateSchema.Doc)
	}
	for _, d := range s.Docs {
		add(d)
	}
	return out
}

// Preconditions returns every precondition of the skill: the actions',
// then the catalog's, each followed by its any-of group's.
func (s *Skill) Preconditions() []*Precondition {
	var out []*Precondition
	var walk func([]*Precondition)
	walk = func(list []*Precondition) {
		for _, pc := range list {
			out = append(out, pc)
			walk(pc.AnyOf)
		}
	}
	for _, a := range s.Actions {
		walk(a.Preconditions)
	}
	if c := s.Catalog; c != nil {
		for _, r := range c.Rows {
			walk(r.Preconditions)
		}
	}
	return out
}

// Candidate is an action a declarative selection weighs, with what gates
// it: its catalog row's preconditions, then its own.
type Candidate struct {
	Action *Action
	// Row is its catalog row, nil without a catalog.
	Row *CatalogRow
	Pre []*Precondition
}

// Candidates returns what a declarative selection weighs, in its order:
// with catalog rows, each row that names an action (an unfiled one, with
// no file, included), highest priority first, rows of a priority in
// their order; without, every action. A row whose Action cell is prose
// names no action.
func (s *Skill) Candidates() []Candidate {
	if s.Catalog == nil || len(s.Catalog.Rows) == 0 {
		out := make([]Candidate, 0, len(s.Actions))
		for _, a := range s.Actions {
			out = append(out, Candidate{Action: a, Pre: slices.Clone(a.Preconditions)})
		}
		return out
	}
	rows := slices.Clone(s.Catalog.Rows)
	slices.SortStableFunc(rows, func(a, b *CatalogRow) int { return cmp.Compare(b.priority(), a.priority()) })
	var out []Candidate
	for _, row := range rows {
		a := s.ResolveRow(row)
		if a == nil {
			a = s.UnfiledAction(row.Action, row.Pos)
		}
		if a != nil {
			out = append(out, Candidate{Action: a, Row: row, Pre: append(slices.Clone(row.Preconditions), a.Preconditions...)})
		}
	}
	return out
}

func (r *CatalogRow) priority() int {
	if r.Priority == nil {
		return 0
	}
	return *r.Priority
}

// Exprs returns the skill's expressions: its preconditions
// (Preconditions), then the steps' conditions.
func (s *Skill) Exprs() []*Expr {
	var out []*Expr
	for _, pc := range s.Preconditions() {
		out = append(out, &pc.Expr)
	}
	for _, ph := range s.Phases {
		for _, st := range ph.Steps {
			if c := st.Attrs.Condition; c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// Action returns the action with the given id, or nil.
func (s *Skill) Action(id string) *Action {
	for _, a := range s.Actions {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// FrontMatter is the YAML block at line 1 of the entry document.
type FrontMatter struct {
	Pos Pos `json:"pos"`
	// Raw is the YAML text between the --- lines.
	Raw string `json:"raw"`
	// Fields are the top-level keys in file order, duplicates included.
	Fields []*Field `json:"fields,omitempty"`
	// Error is set when the YAML does not parse; Fields is then empty.
	Error *Diagnostic `json:"error,omitempty"`
	// Closed is false when the block has no closing --- line.
	Closed bool `json:"closed"`
}

// Field is one top-level front matter key.
type Field struct {
	Key      string `json:"key"`
	Value    any    `json:"value"`
	Pos      Pos    `json:"pos"`
	ValuePos Pos    `json:"valuePos"`
	// Duplicates are keys set twice in mappings inside the value; a
	// top-level key set twice is a second Field instead.
	Duplicates []DuplicateKey `json:"duplicates,omitempty"`
}

// DuplicateKey is a key set a second time, at Pos, in a front matter
// mapping whose first setting is at FirstLine.
type DuplicateKey struct {
	Key       string `json:"key"`
	Pos       Pos    `json:"pos"`
	FirstLine int    `json:"firstLine"`
}

// Get returns the first field with the key, or nil.
func (fm *FrontMatter) Get(key string) *Field {
	if fm == nil {
		return nil
	}
	for _, f := range fm.Fields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// String returns the field's value when it is a string, else "".
func (f *Field) String() string {
	if f == nil {
		return ""
	}
	s, _ := f.Value.(string)
	return s
}

// Doc is what every markdown file of a skill yields, whatever its role.
type Doc struct {
	// File is relative to the skill folder.
	File string `json:"file"`
	// Title is the first level-1 heading's text, TitlePos its position.
	Title    string       `json:"title,omitempty"`
	TitlePos Pos          `json:"titlePos"`
	Sections []*Section   `json:"sections,omitempty"`
	Links    []*Link      `json:"links,omitempty"`
	Code     []*CodeBlock `json:"code,omitempty"`
	// Comments are the HTML comments of the file (inline lint directives).
	Comments []*Comment `json:"comments,omitempty"`
	// HTMLFences are the first fence line of each HTML block that holds
	// one as HTML: a tag
	// alone on its line (`<Good>`, `<details>`) opens a block that runs to
	// the next blank line, so a fence right below it opens no code block.
	HTMLFences []Pos `json:"htmlFences,omitempty"`
	// Lines is the number of lines in the file.
	Lines int `json:"lines"`
}

// Section is a heading and what follows it up to the next heading of the
// same or a higher level.
type Section struct {
	Heading string `json:"heading"`
	// Key is the canonical name of a known heading (see the Sec constants),
	// empty for an unknown one.
	Key   string `json:"key,omitempty"`
	Level int    `json:"level"`
	Pos   Pos    `json:"pos"`
	// EndLine is the last line of the section.
	EndLine int `json:"endLine"`
}

// Canonical section keys. Aliases and Chinese headings map onto these.
const (
	SecObjective     = "objective"
	SecInput         = "input"
	SecExecution     = "execution"
	SecOutput        = "output"
	SecNextPhase     = "next-phase"
	SecPurpose       = "purpose"
	SecPreconditions = "preconditions"
	SecStateUpdates  = "state-updates"
	SecNextActions   = "next-actions"
	SecDecisionLogic = "decision-logic"
	SecActionCatalog = "action-catalog"
	SecInitialState  = "initial-state"
	SecSchema        = "schema"
)

// Link is a markdown link or autolink.
type Link struct {
	Text   string `json:"text"`
	Target string `json:"target"`
	Pos    Pos    `json:"pos"`
}

// Comment is an HTML comment, its text without the <!-- --> marks.
type Comment struct {
	Text string `json:"text"`
	Pos  Pos    `json:"pos"`
}

// CodeBlock is a fenced or indented code block.
type CodeBlock struct {
	// Lang is the first word of the info string, lower-cased.
	Lang string `json:"lang,omitempty"`
	Info string `json:"info,omitempty"`
	Text string `json:"text"`
	// Pos is the opening fence; Body the first line of content.
	Pos  Pos `json:"pos"`
	Body Pos `json:"body"`
	// Fence is the opening fence ("```", "~~~~"), empty for an indented block.
	Fence string `json:"fence,omitempty"`
	// Closed is false when the fence runs to the end of its container.
	Closed bool `json:"closed"`
	// js is the block parsed as JavaScript, kept by Classify (parsed).
	js *jsParse
	// bash is the block's bash parse error, kept by Classify (bashParsed).
	bash *bashParse
	// filled is lint's reading of the block with its template slots
	// filled, kept by Blocks.Filled.
	filled *jsParse
}

// bashParse is one parse of a block as bash: why it failed, nil if not.
type bashParse struct{ err error }

// jsParse is one goja parse of a block: its program, or why it failed.
type jsParse struct {
	prog *jsstatic.Program
	err  error
}

// JS returns the block's text parsed as a body of JavaScript statements,
// the way the runtime runs it. Skill.Classify parses each block it reads
// (the runnable ones and the orchestrator's) once and keeps the program,
// so that parse, Classify, every lint rule and the runtime read one AST
// per block. A block Classify did not read (prose, specs, one built by
// hand) is parsed at each call: lint keeps that parse for its pass. The
// program is shared: read it, never change it.
func (c *CodeBlock) JS() (*jsstatic.Program, error) {
	if c.js != nil {
		return c.js.prog, c.js.err
	}
	return jsstatic.Parse(c.Text)
}

// BashSyntax returns why the block's text does not parse as bash, the
// dialect shell steps run in; nil when it parses. Like JS, it is the
// parse Classify kept when Classify parsed the block.
func (c *CodeBlock) BashSyntax() error {
	if c.bash != nil {
		return c.bash.err
	}
	return ParseBash(c.Text)
}

// bashParsed is BashSyntax for Classify, which keeps the result, taken
// from blocks when they hold it.
func (c *CodeBlock) bashParsed(blocks *Blocks) error {
	if c.bash == nil {
		c.bash = blocks.bashOf(c.Text)
	}
	return c.bash.err
}

// ParseBash reports why src does not parse as bash, nil when it does.
func ParseBash(src string) error {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	return err
}

// parsed is JS for Classify, which keeps the parse, taken from blocks
// when they hold it. Only Classify calls it: it runs before the plan is
// shared, so the write races no reader.
func (c *CodeBlock) parsed(blocks *Blocks) *jsParse {
	if c.js == nil {
		c.js = blocks.jsOf(c.Text)
	}
	return c.js
}

// Runnable kinds of code blocks.
const (
	LangBash = "bash"
	LangJS   = "js"
)

// Marked reports whether the block's info string has word after its
// language (```js norun, ```bash native).
func (c *CodeBlock) Marked(word string) bool {
	if !hasSpace(c.Info) {
		return false // the language alone, as almost every block: no split
	}
	words := strings.Fields(c.Info)
	return len(words) > 1 && slices.Contains(words[1:], word)
}

// hasSpace reports whether s may hold a space strings.Fields splits at:
// an ASCII space or control byte, or any byte outside ASCII.
func hasSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// Kind is LangBash, LangJS, or "" for a block that is never run: data,
// documentation, or one whose info string has the word norun.
func (c *CodeBlock) Kind() string {
	if c.Marked("norun") {
		return ""
	}
	switch c.Lang {
	case "bash", "sh", "shell":
		return LangBash
	case "javascript", "js":
		return LangJS
	}
	return ""
}

// Number is a phase's sortable number from its file name prefix:
// "02" is {2,0,""}, "02.5" and "02-5" are {2,5,""}, "03a" is {3,0,"a"}.
type Number struct {
	Raw    string `json:"raw"`
	Major  int    `json:"major"`
	Minor  int    `json:"minor,omitempty"`
	Letter string `json:"letter,omitempty"`
}

// Less orders numbers: 01 < 01-5 < 02 < 03 < 03a < 03.5 < 10.
func (n Number) Less(o Number) bool {
	if n.Major != o.Major {
		return n.Major < o.Major
	}
	if n.Minor != o.Minor {
		return n.Minor < o.Minor
	}
	return n.Letter < o.Letter
}

// Equal reports whether two numbers sort at the same place.
func (n Number) Equal(o Number) bool {
	return n.Major == o.Major && n.Minor == o.Minor && n.Letter == o.Letter
}

// String formats the number canonically: 2, 2.5, 3a.
func (n Number) String() string {
	s := fmt.Sprint(n.Major)
	if n.Minor != 0 {
		s += fmt.Sprintf(".%d", n.Minor)
	}
	return s + n.Letter
}

// Phase is one numbered file under phases/.
type Phase struct {
	Doc    *Doc   `json:"doc"`
	Number Number `json:"number"`
	// Slug is the file name after the number, without .md.
	Slug string `json:"slug"`
	// Title is the H1 without a "Phase N:" prefix; HeadingNumber is that N
	// when present.
	Title         string `json:"title"`
	HeadingNumber string `json:"headingNumber,omitempty"`
	Description   string `json:"description,omitempty"`
	// Objective and Input are the markdown of those sections, headings
	// excluded: what the agent is told of the phase with each step.
	Objective string `json:"objective,omitempty"`
	Input     string `json:"input,omitempty"`
	// IsOrchestrator marks the numbered orchestrator of a hybrid skill.
	IsOrchestrator bool      `json:"isOrchestrator,omitempty"`
	Steps          []*Step   `json:"steps,omitempty"`
	Outputs        []*Output `json:"outputs,omitempty"`
	// Next is the link under "Next Phase", nil when there is none.
	Next *Link `json:"next,omitempty"`
	// NextText is the markdown of the Next Phase section, heading
	// excluded: whether the link is a plain hand-over or one branch of
	// several ("If auto mode → …") is in the words around it.
	NextText string `json:"nextText,omitempty"`
}

// ID names the phase in a run's record: its file name without .md
// ("02-analyze").
func (p *Phase) ID() string { return strings.TrimSuffix(path.Base(p.Doc.File), ".md") }

// Step is one unit of a phase's execution section.
type Step struct {
	// Number is the step's number as written ("1", "2.1"); empty for the
	// single implicit step of a phase without step headings.
	Number string       `json:"number,omitempty"`
	Title  string       `json:"title"`
	Pos    Pos          `json:"pos"`
	Attrs  StepAttrs    `json:"attrs"`
	Code   []*CodeBlock `json:"code,omitempty"`
	// Text is the markdown of the step, heading included: what an agent
	// step hands to the agent.
	Text string `json:"text"`
	// Whole is set for the one step of a phase with no execution section
	// and no step headings: Text is the phase's whole body, and it goes
	// to the agent rather than being skipped.
	Whole bool `json:"whole,omitempty"`
	// Class says whether the step runs natively or goes to the agent
	// (Skill.Classify).
	Class Class `json:"class"`
}

// StepKind says who does a step: skillkit (StepCode) or the agent.
type StepKind string

// Step kinds.
const (
	StepCode  StepKind = "code"
	StepAgent StepKind = "agent"
)

// Fingerprint identifies the step's text (heading, attributes, prose and
// code): a run records it with each completed step, so that a retry after
// a fix can tell which completed steps changed.
func (s *Step) Fingerprint() string {
	sum := sha256.Sum256([]byte(s.Text))
	return hex.EncodeToString(sum[:8])
}

// Native reports whether the step's code was declared native, by a block
// marked native or by the skill's execution setting (in): the author said
// it runs as written, so a failure of it is not handed to the agent.
func (s *Step) Native(in *Skill) bool {
	if in.Execution == ExecutionNative {
		return true
	}
	return slices.ContainsFunc(s.Runnable(), func(b *CodeBlock) bool { return b.Marked(ExecutionNative) })
}

// Kind is StepAgent when the step goes to the agent: its class says so,
// or it has no block to run (so that a step never classified is handed
// over, not run as nothing). Else it is StepCode.
func (s *Step) Kind() StepKind {
	if s.Class.Kind == ClassAgent || len(s.Runnable()) == 0 {
		return StepAgent
	}
	return StepCode
}

// KindLabel names what runs in the step: "bash", "js", both joined by "+"
// in the order they first appear ("bash+js"), or "agent". The plan
// summary and the dry run both show it, so they say the same.
func (s *Step) KindLabel() string {
	var kinds []string
	for _, c := range s.Runnable() {
		if !slices.Contains(kinds, c.Kind()) {
			kinds = append(kinds, c.Kind())
		}
	}
	if len(kinds) == 0 {
		return string(StepAgent)
	}
	return strings.Join(kinds, "+")
}

// Runnable returns the blocks of the step that run, in order.
func (s *Step) Runnable() []*CodeBlock {
	var out []*CodeBlock
	for _, c := range s.Code {
		if c.Kind() != "" {
			out = append(out, c)
		}
	}
	return out
}

// StepAttrs are the optional bold-key attributes under a step heading.
type StepAttrs struct {
	Condition *Expr    `json:"condition,omitempty"`
	Confirm   *Confirm `json:"confirm,omitempty"`
	OnError   *OnError `json:"onError,omitempty"`
	Timeout   *Timeout `json:"timeout,omitempty"`
	// Review marks the step a checkpoint ("- **Review**: required"): a
	// worker running the skill as a task stops after it for a person's
	// review (DESIGN §3.6). A plain skillkit run goes on.
	Review *Pos `json:"review,omitempty"`
	// Tool makes the step a declarative MCP tool call ("- **Tool**:
	// mcp__server__tool", its arguments in a YAML or JSON block).
	Tool *ToolCall `json:"tool,omitempty"`
}

// ToolCall is a Tool step's call. The parser writes it as a JavaScript
// block of the step, mcp__server__tool(args) with the result saved, so
// that it is classed, run, recorded and linted as that code is.
type ToolCall struct {
	// Name is mcp__server__tool.
	Name string `json:"name"`
	// SaveAs is the state key the result goes to ("- **Save as**: key");
	// empty drops it.
	SaveAs string `json:"saveAs,omitempty"`
	// Args is the arguments block; nil when the tool takes none.
	Args *CodeBlock `json:"args,omitempty"`
	Pos  Pos        `json:"pos"`
}

// Expr is a JavaScript expression over state and inputs.
type Expr struct {
	// Text is what the author wrote.
	Text string `json:"text"`
	// JS is the expression to evaluate; empty when Text is not checkable
	// (prose), in which case the runtime treats it as true.
	JS  string `json:"js,omitempty"`
	Pos Pos    `json:"pos"`
}

// Checkable reports whether the expression can be evaluated.
func (e *Expr) Checkable() bool { return e != nil && e.JS != "" }

// ConfirmAnswer is an answer to a step's confirmation.
type ConfirmAnswer string

// Confirm answers before a step runs.
const (
	ConfirmYes   ConfirmAnswer = "yes"
	ConfirmSkip  ConfirmAnswer = "skip"
	ConfirmAbort ConfirmAnswer = "abort"
	ConfirmAgent ConfirmAnswer = "agent"
)

// Confirm is a step's confirmation question.
type Confirm struct {
	Question string `json:"question"`
	// Default is one of the Confirm constants: what applies on timeout or
	// with no terminal.
	Default ConfirmAnswer `json:"default"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Pos     Pos           `json:"pos"`
}

// Policy is what a failed step or action does (On error).
type Policy string

// Error policies of a step.
const (
	OnErrorAbort    Policy = "abort"
	OnErrorContinue Policy = "continue"
	OnErrorRetry    Policy = "retry"
)

// Bounds of `retry N backoff D`. A retry count is bounded so that a typo
// (an extra zero, a pasted number) cannot make a step run for days; the
// backoff is at least MinBackoff so that retries are not a busy loop, and
// at most MaxBackoff because the runtime never waits longer between two
// attempts (the doubling stops there). Values past them are step-attribute
// errors, and the parser clamps them so that a run reached without lint
// still ends.
const (
	MaxRetries = 100
	MinBackoff = 10 * time.Millisecond
	MaxBackoff = time.Minute
)

// OnError is what a failed step does.
type OnError struct {
	Policy  Policy        `json:"policy"`
	Retries int           `json:"retries,omitempty"`
	Backoff time.Duration `json:"backoff,omitempty"`
	Pos     Pos           `json:"pos"`
}

// Timeout bounds a step.
type Timeout struct {
	Duration time.Duration `json:"duration"`
	Pos      Pos           `json:"pos"`
}

// Output is a file a phase declares under its Output section.
type Output struct {
	File string `json:"file"`
	// Format is "json", "yaml", "markdown", "text" or "" when not given.
	Format string `json:"format,omitempty"`
	Schema string `json:"schema,omitempty"`
	Pos    Pos    `json:"pos"`
}

// Outside says why the output's file or schema leaves its folder, or ""
// when both stay inside: the file must be in the work dir and the schema
// in the skill folder, so neither may be absolute or climb out with "..".
// A skill that could name any file would have the run read and report on
// files it was never given.
func (o *Output) Outside() string {
	switch {
	case leaves(o.File):
		return fmt.Sprintf("the file %s is outside the work dir", o.File)
	case o.Schema != "" && leaves(o.Schema):
		return fmt.Sprintf("the schema %s is outside the skill folder", o.Schema)
	}
	return ""
}

// leaves reports whether the relative path p, of either slash, leaves its
// folder: it is absolute (a drive letter too), or ".." climbs out of it.
func leaves(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(p) || len(p) > 1 && p[1] == ':' {
		return true
	}
	c := path.Clean(p)
	return c == ".." || strings.HasPrefix(c, "../")
}

// Action is one file under actions/.
type Action struct {
	Doc *Doc `json:"doc"`
	// ID is the file name without .md (action-process).
	ID            string          `json:"id"`
	Title         string          `json:"title"`
	Purpose       string          `json:"purpose,omitempty"`
	Preconditions []*Precondition `json:"preconditions,omitempty"`
	Execution     Execution       `json:"execution"`
	// Attrs are the bold-key attributes right under the Execution heading.
	// On error and Timeout apply to the action as to a step; Condition and
	// Confirm are not read for actions (preconditions select an action).
	Attrs StepAttrs `json:"attrs"`
	// StateUpdates is the first JS block of the State Updates section.
	StateUpdates *CodeBlock `json:"stateUpdates,omitempty"`
	Hints        []*Hint    `json:"hints,omitempty"`
}

// ExecKind is what an action's Execution holds.
type ExecKind string

// Execution kinds of an action.
const (
	ExecJS    ExecKind = "js"
	ExecBash  ExecKind = "bash"
	ExecProse ExecKind = "prose"
)

// Execution is what an action does when it runs.
type Execution struct {
	Kind ExecKind `json:"kind"`
	// Code is the runnable block for js and bash.
	Code *CodeBlock `json:"code,omitempty"`
	// Text is the section's markdown, or the action's whole body when it
	// has no Execution section: what goes to the agent when the action
	// does.
	Text string `json:"text,omitempty"`
	// TextLine is the line of the file where Text begins, so that what
	// goes wrong in it (a context command that fails) is told at its line.
	TextLine int `json:"textLine,omitempty"`
	Pos      Pos `json:"pos"`
	// Whole is set when the action has no Execution section.
	Whole bool `json:"whole,omitempty"`
	// Class says whether the Execution runs natively or goes to the agent
	// (Skill.Classify).
	Class Class `json:"class"`
}

// ToAgent reports whether the action goes to the agent: it is prose, or
// its class says so.
func (e *Execution) ToAgent() bool {
	return e.Kind == ExecProse || e.Class.Kind == ClassAgent
}

// Precondition is one line of an action's or a catalog row's
// preconditions. Lines of one list must all hold; AnyOf holds nested lines
// of which one must.
type Precondition struct {
	Expr
	AnyOf []*Precondition `json:"anyOf,omitempty"`
}

// Prose reports whether a precondition of ps, or of one of their "any
// of" lists, is text that cannot be checked: only a model can tell when
// it holds.
func Prose(ps []*Precondition) bool {
	for _, p := range ps {
		if (!p.Checkable() && len(p.AnyOf) == 0) || Prose(p.AnyOf) {
			return true
		}
	}
	return false
}

// Hint is a "Next Actions" line: a label and the action it names.
type Hint struct {
	Label  string `json:"label"`
	Action string `json:"action"`
	Pos    Pos    `json:"pos"`
}

// Orchestrator is orchestrator.md or a numbered NN-orchestrator.md.
type Orchestrator struct {
	Doc *Doc `json:"doc"`
	// Decision is the JS block that defines selectNextAction, nil without one.
	Decision *CodeBlock `json:"decision,omitempty"`
	// Declarations are every JS block of the file: their function and const
	// declarations are in scope of selectNextAction.
	Declarations []*CodeBlock `json:"declarations,omitempty"`
	// Phase is set when the orchestrator is a numbered phase (hybrid).
	Phase *Number `json:"phase,omitempty"`
	// Class says whether selectNextAction runs natively or the agent
	// selects (Skill.Classify); zero without Decision.
	Class Class `json:"class,omitzero"`
}

// Catalog is an action catalog table and its mermaid graph.
type Catalog struct {
	File  string        `json:"file"`
	Pos   Pos           `json:"pos"`
	Rows  []*CatalogRow `json:"rows,omitempty"`
	Edges []*GraphEdge  `json:"edges,omitempty"`
}

// CatalogRow is one row of the action catalog.
type CatalogRow struct {
	Action string `json:"action"`
	// Link is the target when the Action cell is a link.
	Link          string          `json:"link,omitempty"`
	Preconditions []*Precondition `json:"preconditions,omitempty"`
	Purpose       string          `json:"purpose,omitempty"`
	Effects       string          `json:"effects,omitempty"`
	// Priority is the Priority column, nil when absent or not a number.
	Priority *int `json:"priority,omitempty"`
	Pos      Pos  `json:"pos"`
}

// GraphNode is a node of the mermaid graph: its id and its label.
type GraphNode struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
	Pos   Pos    `json:"pos"`
}

// GraphEdge is a mermaid edge A --> B.
type GraphEdge struct {
	From GraphNode `json:"from"`
	To   GraphNode `json:"to"`
}

// StateSchema is state-schema.md converted.
type StateSchema struct {
	File string `json:"file"`
	// Doc is the markdown of the schema file, for what every document has
	// (links, fences, comments).
	Doc *Doc `json:"doc,omitempty"`
	// Source is "typescript" or "json": where the schema came from; empty
	// when the file has neither block.
	Source string     `json:"source,omitempty"`
	Code   *CodeBlock `json:"code,omitempty"`
	// Root is the interface the schema was built from.
	Root string `json:"root,omitempty"`
	// Schema is a JSON Schema (draft 2020-12) of state.json.
	Schema map[string]any `json:"schema,omitempty"`
	// Initial is the Initial State block, placeholders not yet filled.
	Initial    map[string]any `json:"initial,omitempty"`
	InitialPos Pos            `json:"initialPos"`
}
