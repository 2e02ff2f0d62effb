package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/plan"
)

// progress draws one live status line on a terminal (phase i/n, step,
// elapsed) under the run's plain log lines.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	phases map[string]int
	total  int
	start  time.Time
	status string
	ticker *time.Ticker
	stop   chan struct{}
}

func newProgress(w io.Writer, s *plan.Skill) *progress {
	p := &progress{w: w, phases: map[string]int{}, total: len(s.Phases), start: time.Now(),
		ticker: time.NewTicker(500 * time.Millisecond), stop: make(chan struct{})}
	for i, ph := range s.Phases {
		p.phases[phaseKey(ph)] = i + 1
	}
	go func() {
		for {
			select {
			case <-p.ticker.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// phaseKey matches the phase ids of events: the file name without .md.
func phaseKey(ph *plan.Phase) string {
	f := ph.Doc.File
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == '/' {
			f = f[i+1:]
			break
		}
	}
	return f[:len(f)-len(".md")]
}

func (p *progress) observe(e runstore.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case e.Phase != "" && e.Step != "":
		p.status = fmt.Sprintf("phase %d/%d %s · step %s %s", p.phases[e.Phase], p.total, e.Phase, e.Step, e.To)
	case e.Phase != "":
		p.status = fmt.Sprintf("phase %d/%d %s %s", p.phases[e.Phase], p.total, e.Phase, e.To)
	case e.Action != "":
		p.status = fmt.Sprintf("action %s %s", e.Action, e.To)
	}
	p.draw()
}

// draw rewrites the status line; the caller holds mu.
func (p *progress) draw() {
	if p.status == "" {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s · %s", p.status, time.Since(p.start).Round(100*time.Millisecond))
}

// lines returns a writer for the plain log lines that clears the status
// line before each write and redraws it after.
func (p *progress) lines(out io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprint(p.w, "\r\033[K")
		n, err := out.Write(b)
		p.draw()
		return n, err
	})
}

func (p *progress) done() {
	p.ticker.Stop()
	close(p.stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
