package mcpserve

import (
	"bytes"
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runLog is what a run tool call prints: kept whole for the result's
// output, and, when the client asked for progress, each line sent at once
// as a progress notification, so that a long run shows its steps as they
// go. Steps running at once write from several goroutines.
type runLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	line []byte
	// notify sends one line; nil without a progress token.
	notify func(line string)
}

// newRunLog is the log of the tool call req.
func newRunLog(ctx context.Context, req *mcp.CallToolRequest) *runLog {
	l := &runLog{}
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return l
	}
	n := 0
	l.notify = func(line string) {
		n++
		// A client that went away or is slow to read does not stop
		// the run: the line is in the output all the same.
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: line})
	}
	return l
}

func (l *runLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.notify == nil {
		return len(p), nil
	}
	l.line = append(l.line, p...)
	for {
		i := bytes.IndexByte(l.line, '\n')
		if i < 0 {
			break
		}
		l.notify(string(l.line[:i]))
		l.line = l.line[i+1:]
	}
	return len(p), nil
}

// String is everything written, its tail when it is long.
func (l *runLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tail(&l.buf)
}
