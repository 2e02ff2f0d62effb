package mcpserve

import (
	"bytes"
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/proc"
)

// runLog is what a run tool call prints: its tail kept for the result's
// output, and, when the client asked for progress, each line sent as a
// progress notification, so that a long run shows its steps as they go.
// Steps running at once write from several goroutines.
type runLog struct {
	mu      sync.Mutex
	tail    *proc.Tail
	written int
	line    []byte
	// lines goes to the goroutine that notifies the client; nil without
	// a progress token.
	lines chan string
	sent  sync.WaitGroup
}

// progressBacklog is how many lines may wait for a client that reads
// slowly; past it, lines are left out of the notifications (they are in
// the output all the same), and the run goes on.
const progressBacklog = 256

// newRunLog is the log of the tool call req. Call close when the run is
// over.
func newRunLog(ctx context.Context, req *mcp.CallToolRequest) *runLog {
	l := &runLog{tail: proc.NewTail(maxOutput)}
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return l
	}
	l.lines = make(chan string, progressBacklog)
	l.sent.Go(func() {
		n := 0
		for line := range l.lines {
			n++
			// A client that went away fails the notification: the
			// line is in the output all the same.
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: line})
		}
	})
	return l
}

func (l *runLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail.Write(p)
	l.written += len(p)
	if l.lines == nil {
		return len(p), nil
	}
	l.line = append(l.line, p...)
	for {
		i := bytes.IndexByte(l.line, '\n')
		if i < 0 {
			break
		}
		select {
		case l.lines <- string(l.line[:i]):
		default:
		}
		l.line = l.line[i+1:]
	}
	return len(p), nil
}

// close ends the notifications once those waiting are sent.
func (l *runLog) close() {
	if l.lines != nil {
		l.mu.Lock()
		close(l.lines)
		l.lines = nil
		l.mu.Unlock()
		l.sent.Wait()
	}
}

// String is everything written, its tail when it is long.
func (l *runLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.tail.String()
	if l.written > maxOutput {
		s = "…" + s
	}
	return s
}
