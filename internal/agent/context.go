package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The context-exhaustion thresholds of the musician specification, in
// percent of the model's context window: at DefaultHandoff the next prompt
// asks the agent to write its hand-off, at DefaultExit the run stops
// before its next call.
const (
	DefaultHandoff = 65
	DefaultExit    = 75
)

// HandoffFile is the file in the work dir where the agent writes its
// hand-off.
const HandoffFile = "handoff.md"

// ContextLimits are the thresholds of context use, in percent; zero
// fields take the defaults (context_handoff and context_exit in
// skillkit.yaml).
type ContextLimits struct {
	Handoff int
	Exit    int
}

// orDefault fills the thresholds left zero.
func (l ContextLimits) orDefault() ContextLimits {
	if l.Handoff == 0 {
		l.Handoff = DefaultHandoff
	}
	if l.Exit == 0 {
		l.Exit = DefaultExit
	}
	return l
}

// ErrContextFull is matched (errors.Is) by the error of a call refused
// because the run's conversation is past the exit threshold: the run
// stops resumable, and under skillkit worker its task ends exited.
var ErrContextFull = errors.New("the agent's context is nearly full")

// ContextError is a call refused by the exit threshold. Handoff is the
// hand-off file's path, Written whether the agent left it there.
type ContextError struct {
	Tokens, Window, Exit int
	Handoff              string
	Written              bool
}

func (e *ContextError) Error() string {
	said := "the agent's hand-off is " + e.Handoff
	if !e.Written {
		said = "the agent wrote no hand-off to " + e.Handoff
	}
	return fmt.Sprintf("%v: %d of %d tokens (%d%%, context_exit %d%%); %s; a resume goes on", ErrContextFull,
		e.Tokens, e.Window, e.Tokens*100/e.Window, e.Exit, said)
}

// Unwrap makes a ContextError an ErrBudget too: the context window is
// the conversation's budget, and every part of the runtime stops the run
// resumable on it as on the others.
func (e *ContextError) Unwrap() []error { return []error{ErrContextFull, ErrBudget} }

// past reports whether the conversation's context use is at pct percent
// of its window or more; a conversation whose agent reports no window
// (codex, a plain command) never is.
func (s *Session) past(pct int) bool {
	return s.ContextWindow > 0 && s.ContextTokens*100 >= pct*s.ContextWindow
}

// checkContext refuses a call once the conversation is past the exit
// threshold, and asks for the hand-off in p once it is past the hand-off
// one, returning the context use in percent then (zero when it did not
// ask). A Task, in a conversation of its own, is not asked: its reply
// goes to the skill's code, not into the run's conversation.
func (a *Agent) checkContext(s *Session, p *Prompt) (int, error) {
	l := a.Context.orDefault()
	if s.past(l.Exit) {
		file := filepath.Join(a.Dir, HandoffFile)
		_, err := os.Stat(file)
		return 0, &ContextError{Tokens: s.ContextTokens, Window: s.ContextWindow, Exit: l.Exit, Handoff: file, Written: err == nil}
	}
	if !s.past(l.Handoff) || p.Request == RequestTask {
		return 0, nil
	}
	pct := s.ContextTokens * 100 / s.ContextWindow
	p.handoff(pct, l.Exit)
	return pct, nil
}
