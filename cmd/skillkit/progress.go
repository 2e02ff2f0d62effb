package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// Progress modes (--progress).
const (
	progressAuto  = "auto"  // live on a terminal, else plain
	progressPlain = "plain" // a line per event
	progressJSON  = "json"  // an event per line, as JSON
)

// jsonObserver writes every event to w as one line of JSON, as the run's
// record (events.jsonl) holds it.
func jsonObserver(w io.Writer) func(runstore.Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(e runstore.Event) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(e)
	}
}

// progress draws one live status line on a terminal, under the run's
// plain log lines: the phase (i/n), the step's number and title, and the
// step's own time. It never draws wider than the terminal, which would
// wrap and leave a stale copy of the line at every redraw; it pauses while
// a prompt waits for an answer, so that the question stays on screen.
//
// It does not show the last line of a step's output: the engine hands a
// step's output over only when its block ends (it goes to logs/ then), so
// a live tail would need the engine to stream it.
type progress struct {
	mu     sync.Mutex
	f      *os.File
	phases map[string]int
	total  int
	// status is the line without the time: where (the phase or action)
	// and what (the step); since is when the time counts from.
	where, what string
	since       time.Time
	width       int
	paused      int
	stop        chan struct{}
	done        sync.WaitGroup

	// doing is what the agent does now, while a call runs: its tool
	// and turns ("claude: Bash · 3 turns").
	doing string
}

// newProgress starts the live line on the terminal f.
func newProgress(f *os.File, s *plan.Skill) *progress {
	p := &progress{f: f, phases: map[string]int{}, total: len(s.Phases), stop: make(chan struct{})}
	p.width, _ = termWidth(f)
	for i, ph := range s.Phases {
		p.phases[ph.ID()] = i + 1
	}
	resize := make(chan os.Signal, 1)
	notifyResize(resize)
	ticker := time.NewTicker(500 * time.Millisecond)
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
			case <-resize:
				p.mu.Lock()
				p.width, _ = termWidth(p.f)
				p.mu.Unlock()
			case <-p.stop:
				return
			}
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *progress) observe(e runstore.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case e.Step != "":
		if e.To == "pending" || e.To == "executing" {
			// The step's pending event carries its title; its time
			// counts from when it starts executing.
			if e.To == "pending" {
				p.where, p.what = p.phase(e.Phase), "step "+stepNumber(e.Step)+" "+e.Detail
			}
			p.since = e.Time
		}
	case e.To == "loading" && e.Action != "":
		p.where, p.what, p.since = "action "+e.Action, "", e.Time
	case e.To == "loading":
		p.where, p.what, p.since = p.phase(e.Phase), e.Detail, e.Time
	}
	p.draw()
}

// agent shows what the agent does on the line while its call runs.
func (p *progress) agent(a agent.Activity) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doing = a.String()
	if a.Done {
		p.doing = ""
	}
	p.draw()
}

// phase is "phase i/n ID", or "phase ID" for the orchestrator of an
// autonomous skill, which is no numbered phase.
func (p *progress) phase(id string) string {
	if i := p.phases[id]; i > 0 {
		return fmt.Sprintf("phase %d/%d %s", i, p.total, id)
	}
	return "phase " + id
}

// stepNumber is the number of the step in its phase ("01-collect#2" → "2").
func stepNumber(id string) string {
	_, n, _ := strings.Cut(id, "#")
	return n
}

// draw rewrites the status line; the caller holds mu.
func (p *progress) draw() {
	if p.where == "" || p.paused > 0 {
		return
	}
	fmt.Fprint(p.f, "\r\033[K"+p.line())
}

// line is the status line fitted to the terminal. One column less than
// the width: a line that fills the last column makes some terminals wrap
// before the next \r. Long phase names are cut first, to a third of the
// width, so that the step's number and title stay readable; then the
// whole line is cut in the middle.
func (p *progress) line() string {
	width := p.width - 1
	elapsed := " · " + time.Since(p.since).Round(100*time.Millisecond).String()
	if p.doing != "" {
		elapsed = " · " + p.doing + elapsed
	}
	if p.what == "" {
		return truncateMiddle(p.where+elapsed, width)
	}
	where := p.where
	if width > 0 && utf8.RuneCountInString(where+p.what+elapsed)+3 > width {
		where = truncateMiddle(where, width/3)
	}
	return truncateMiddle(where+" · "+p.what+elapsed, width)
}

// truncateMiddle shortens s to at most width runes by cutting its middle:
// the start says where the run is, the end what it is doing and for how
// long.
func truncateMiddle(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	head := (width - 1) / 2
	tail := width - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// lines returns a writer for the plain log lines that clears the status
// line before each write and redraws it after.
func (p *progress) lines(out io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clear()
		n, err := out.Write(b)
		p.draw()
		return n, err
	})
}

// clear erases the status line; the caller holds mu.
func (p *progress) clear() {
	if p.where != "" && p.paused == 0 {
		fmt.Fprint(p.f, "\r\033[K")
	}
}

// pausing wraps the answerer of prompts: while one waits for an answer the
// live line is gone and stays gone, so that no redraw erases the question.
func (p *progress) pausing(a script.Answerer) script.Answerer { return pausedAnswers{p, a} }

type pausedAnswers struct {
	p *progress
	a script.Answerer
}

func (q pausedAnswers) Ask(ctx context.Context, qs []script.Question) (map[string]string, error) {
	defer q.p.pause()()
	return q.a.Ask(ctx, qs)
}

func (q pausedAnswers) Confirm(ctx context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error) {
	defer q.p.pause()()
	return q.a.Confirm(ctx, c)
}

// pause takes the live line away until the function it returns is called.
// Prompts of parallel Task calls may overlap: the line comes back after
// the last.
func (p *progress) pause() (resume func()) {
	p.mu.Lock()
	p.clear()
	p.paused++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.paused--
		p.draw()
		p.mu.Unlock()
	}
}

// end stops the live line and erases it.
func (p *progress) end() {
	close(p.stop)
	p.done.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
