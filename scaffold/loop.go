package scaffold

import (
	"fmt"
	"strings"
)

// MaxRetries is how many failed actions a generated loop tolerates before
// its abort action stops the run: the execution-modes specification's
// MAX_RETRIES, declared so that the Decision Logic reads no undeclared
// name.
const MaxRetries = 3

// Action roles. A generated loop is a pipeline over the action list: the
// first action starts the run, the second (when there are three or more)
// processes pending items one per call, the ones after it run once each,
// the last completes the run; "abort" anywhere in the list stops the run
// as failed, and "review" between the first and the last is the
// specification's review: it runs once the items are processed, while
// needs_review is set. A single action starts and completes the run at
// once.
const (
	roleStart   = "start"
	roleProcess = "process"
	roleStage   = "stage"
	roleFinish  = "finish"
	roleSingle  = "single"
	roleAbort   = "abort"
	roleReview  = "review"
)

// DefaultActions are the actions of a loop when none are given.
// They are the action catalog of the execution-modes specification.
var DefaultActions = []string{"init", "process", "review", "complete", "abort"}

// actionData is what the action, catalog and decision templates need to
// know about one action.
type actionData struct {
	Name  string // as given, without "action-"
	ID    string // action-<name>, the file name without .md
	Title string
	Role  string
	// Items is set on a start action when a process action follows it: it
	// fills pending_items.
	Items bool
	// Review is set on a start action when the loop has a review action:
	// it sets needs_review.
	Review  bool
	Purpose string
	Effects string
	// Link is the action file relative to specs/action-catalog.md.
	Link  string
	Pre   []string
	Hints []hint
}

type hint struct{ Label, ID string }

// loopData is the decision logic's and the catalog's view of the actions.
type loopData struct {
	Skill      string
	MaxRetries int
	Actions    []*actionData
	Start      *actionData
	Processor  *actionData
	Review     *actionData
	Stages     []*actionData
	Finish     *actionData
	Abort      *actionData
	// Edges are the lines of the mermaid graph.
	Edges []string

	// Hybrid orchestrator phase: its number and the link to the phase after.
	Numbered bool
	Number   string
	Next     *link
}

// newLoop assigns roles to the named actions and fills in what each role
// reads, checks and changes. actionsDir is where the action files live
// relative to the skill folder.
func newLoop(skill string, names []string, actionsDir string) (*loopData, error) {
	l := &loopData{Skill: skill, MaxRetries: MaxRetries}
	var main []*actionData
	for _, n := range names {
		a := &actionData{Name: n, ID: "action-" + n, Title: title(n), Link: "../" + actionsDir + "/action-" + n + ".md"}
		l.Actions = append(l.Actions, a)
		if n == "abort" {
			a.Role, l.Abort = roleAbort, a
			continue
		}
		main = append(main, a)
	}
	if len(main) == 0 {
		return nil, invalidf("the actions %s have nothing to run besides abort; name at least one more", strings.Join(names, ","))
	}
	if len(main) == 1 {
		main[0].Role, l.Start = roleSingle, main[0]
	} else {
		main[0].Role, l.Start = roleStart, main[0]
		last := main[len(main)-1]
		last.Role, l.Finish = roleFinish, last
		if len(main) > 2 && main[1].Name != "review" {
			main[1].Role, l.Processor = roleProcess, main[1]
			main[0].Items = true
		}
		first := 1
		if l.Processor != nil {
			first = 2
		}
		for _, a := range main[first : len(main)-1] {
			if a.Name == "review" && l.Review == nil {
				a.Role, l.Review, main[0].Review = roleReview, a, true
				continue
			}
			a.Role = roleStage
			l.Stages = append(l.Stages, a)
		}
	}
	for i, a := range main {
		var next *actionData
		if i+1 < len(main) {
			next = main[i+1]
		}
		l.describe(a, next)
	}
	if l.Abort != nil {
		l.describe(l.Abort, nil)
	}
	l.Edges = l.graph(main)
	return l, nil
}

// describe fills an action's purpose, effects, preconditions and hints
// from its role; next is the action that follows it in the pipeline.
func (l *loopData) describe(a, next *actionData) {
	const (
		pending  = "state.status === 'pending'"
		running  = "state.status === 'running'"
		hasItems = "state.pending_items.length > 0"
		noItems  = "state.pending_items.length === 0"
	)
	switch a.Role {
	case roleStart:
		a.Purpose, a.Effects = "Start the run.", "status = running"
		if a.Items {
			a.Purpose = "Start the run: list the items to process."
			a.Effects = "status = running, pending_items filled"
		}
		a.Pre = []string{pending}
	case roleSingle:
		a.Purpose, a.Effects = "Do the work, write summary.json and complete the run.", "status = completed, summary.json written"
		a.Pre = []string{pending}
	case roleProcess:
		a.Purpose, a.Effects = "Process one pending item and record its result.", "pending_items loses its first item, results gains it"
		a.Pre = []string{running, hasItems}
		a.Hints = append(a.Hints, hint{"While items remain", a.ID})
	case roleStage:
		a.Purpose, a.Effects = stagePurpose, "context['"+a.ID+"'] set"
		a.Pre = stagePre(a.ID)
	case roleReview:
		a.Purpose, a.Effects = "Review the results once the items are processed.", "needs_review = false, review.json written"
		a.Pre = []string{running, noItems, "state.needs_review === true"}
	case roleFinish:
		a.Purpose, a.Effects = "Write summary.json and complete the run.", "status = completed, summary.json written"
		a.Pre = []string{running, noItems}
	case roleAbort:
		a.Purpose = fmt.Sprintf("Stop the run as failed after more than %d errors.", l.MaxRetries)
		a.Effects = "status = failed"
		a.Pre = []string{fmt.Sprintf("state.error_count > %d", l.MaxRetries)}
		return
	}
	if next != nil {
		label := "On success"
		if a.Role == roleProcess {
			label = "When no items remain"
		}
		a.Hints = append(a.Hints, hint{label, next.ID})
	}
	if l.Abort != nil {
		a.Hints = append(a.Hints, hint{"On failure", l.Abort.ID})
	}
}

// stagePurpose is the purpose of an action that runs once; add action
// writes new actions with it too.
const stagePurpose = "Run once, after the items are processed: replace with the real work."

// stagePre are the preconditions of an action that runs once.
func stagePre(id string) []string {
	return []string{"state.status === 'running'", "state.pending_items.length === 0", "!state.completed_actions.includes('" + id + "')"}
}

// graph draws the pipeline, and a dotted edge from every action to abort.
func (l *loopData) graph(main []*actionData) []string {
	seen := map[string]bool{}
	var edges []string
	for i := 0; i+1 < len(main); i++ {
		edges = append(edges, nodeRef(main[i], seen)+" --> "+nodeRef(main[i+1], seen))
	}
	if len(main) == 1 {
		edges = append(edges, nodeRef(main[0], seen))
	}
	if l.Abort != nil {
		for _, a := range main {
			edges = append(edges, abortEdge(a, l.Abort, seen))
		}
	}
	return edges
}

// nodeRef writes a mermaid node, with its label the first time only.
func nodeRef(a *actionData, seen map[string]bool) string {
	id := nodeID(a.Name)
	if seen[id] {
		return id
	}
	seen[id] = true
	return id + "[" + a.ID + "]"
}

func abortEdge(from, abort *actionData, seen map[string]bool) string {
	return nodeRef(from, seen) + " -.->|too many errors| " + nodeRef(abort, seen)
}
