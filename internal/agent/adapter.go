package agent

import (
	"runtime"
	"strings"
)

// adapter is how one kind of agent is called and how its output reads.
type adapter interface {
	// command is the program and arguments of a call, and what to
	// remove once it ended (a schema file).
	command(a *Agent, s *Session, p *Prompt) (name string, args []string, cleanup func(), err error)
	// events reads the call's stdout as it comes; nil for a command
	// whose whole stdout is the answer. stop ends the call early.
	events(s *Session, stop func()) events
	// keepsContext reports whether the agent remembers the conversation,
	// so that [CONTEXT] need not be sent again.
	keepsContext() bool
}

// reply is what a call answered, and what the agent said of its work.
type reply struct {
	text   string
	thread string
	turns  int
	cost   float64
	usage  Usage
}

// Usage is what a call used of the model, as the agent reported it:
// tokens in (cached ones included) and out, and the model's context
// window, so that a run can see how full its conversation gets.
// ContextTokens is the conversation's size after the call: what its last
// model request read and wrote (a call of several turns reads the
// conversation once per turn, so InputTokens counts it several times).
type Usage struct {
	InputTokens   int
	OutputTokens  int
	ContextTokens int
	ContextWindow int
}

// The adapters by name (Adapter).
const (
	AdapterClaude  = "claude"
	AdapterCodex   = "codex"
	AdapterCommand = "command"
)

// Adapter names the adapter that drives a command: claude and codex by
// their bare name, any other command line is a plain command. A cassette
// keeps it, as the prompts it recorded depend on it (see Prompt.Text).
func Adapter(command string) string {
	switch c := strings.TrimSpace(command); c {
	case AdapterClaude, AdapterCodex:
		return c
	}
	return AdapterCommand
}

// adapterFor picks the adapter of a command (see Adapter).
func adapterFor(command string) adapter {
	switch Adapter(command) {
	case AdapterClaude:
		return claude{}
	case AdapterCodex:
		return codex{}
	}
	return plain(command)
}

// plain is a command line run by the shell with the prompt on stdin; its
// stdout is the answer. It keeps no conversation.
type plain string

func (c plain) command(*Agent, *Session, *Prompt) (string, []string, func(), error) {
	if runtime.GOOS == "windows" {
		return "cmd", []string{"/c", string(c)}, func() {}, nil
	}
	return "sh", []string{"-c", string(c)}, func() {}, nil
}

func (plain) events(*Session, func()) events { return nil }
func (plain) keepsContext() bool             { return false }
