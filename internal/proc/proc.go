// Package proc runs the external commands of a skill run (shell commands,
// skill scripts, the agent) the same way everywhere: a working directory, an
// environment, stdin, captured output, and a process group of its own that
// is killed whole when the command ends, when its context ends, and (on
// Linux) when the runner dies, so that nothing a step started outlives it.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Cmd is one command to run.
type Cmd struct {
	Name string
	// Path, when set, is where the program Name names is, looked up by
	// the caller once for many commands; Name stays the command's
	// argv[0] ("bash" in its messages).
	Path string
	Args []string
	Dir  string
	// Env is the complete environment; nil inherits the current process's.
	Env   []string
	Stdin io.Reader
	// Output, when set, receives all of the command's output, stdout and
	// stderr as they come (a log file): Result keeps only their tails.
	Output io.Writer
	// Stdout, when set, receives the command's stdout alone as it comes
	// (an agent's events, read line by line).
	Stdout io.Writer
	// Tail is how many bytes of each stream Result keeps, the last ones;
	// zero means DefaultTail. Memory stays bounded whatever a command
	// prints.
	Tail int
}

// DefaultTail is how much of each output stream a Result keeps when
// Cmd.Tail is zero.
const DefaultTail = 1 << 20

// Result is what a finished command left behind.
type Result struct {
	// Stdout and Stderr are the ends of the streams, at most Cmd.Tail
	// bytes each; StdoutCut and StderrCut count the bytes before them
	// that were not kept.
	Stdout, Stderr       string
	StdoutCut, StderrCut int64
	ExitCode             int
	// Signal is how the system says the signal that ended the command
	// ("signal: killed"), when one did: ExitCode is -1 then, which says
	// nothing of why.
	Signal string
}

// waitDelay bounds how long Run waits for the output to end after the
// command and its group were killed: a grandchild that left the group
// (setsid) must not keep the run hanging.
const waitDelay = 2 * time.Second

// Groups is told of every process group a command runs in, while it runs,
// so that a record can name the groups a runner killed with SIGKILL left
// behind, and a resume can kill them (KillGroup) before it runs anything.
type Groups interface {
	Started(pgid int)
	Ended(pgid int)
}

type groupsKey struct{}

// WithGroups returns a context whose commands report their process groups
// to g.
func WithGroups(ctx context.Context, g Groups) context.Context {
	return context.WithValue(ctx, groupsKey{}, g)
}

// OwnGroup prepares cmd, before it starts, to run in a process group of
// its own that dies with the runner where the system allows: for a
// command that outlives one call of Run (an MCP server serves a whole
// run). The caller kills the group (KillGroup) when done with it.
func OwnGroup(cmd *exec.Cmd) { ownGroup(cmd) }

// GroupsOf returns the Groups of ctx (WithGroups), nil when it has none.
func GroupsOf(ctx context.Context) Groups {
	g, _ := ctx.Value(groupsKey{}).(Groups)
	return g
}

// Run runs c to completion. A non-zero exit is not an error: it is reported
// in Result.ExitCode. The error is set when the command could not start or
// when ctx ended first (then it wraps ctx.Err()). Whatever the command left
// running in its process group (`daemon &`) is killed when it exits.
func Run(ctx context.Context, c Cmd) (Result, error) {
	var cmd *exec.Cmd
	if c.Path != "" {
		cmd = &exec.Cmd{Path: c.Path, Args: append([]string{c.Name}, c.Args...)}
	} else {
		cmd = exec.Command(c.Name, c.Args...)
	}
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	ownGroup(cmd)
	// The output goes through pipes of our own rather than exec's, so
	// that Wait returns when the command exits, not when the last
	// background process holding its output does: the group is killed
	// then.
	tail := c.Tail
	if tail <= 0 {
		tail = DefaultTail
	}
	var out io.Writer = io.Discard
	if c.Output != nil {
		// Both streams write to it, from their own goroutines.
		out = &lockedWriter{w: c.Output}
	}
	stdout, stderr := capture{tail: NewTail(tail), out: out}, capture{tail: NewTail(tail), out: out}
	if c.Stdout != nil {
		stdout.out = io.MultiWriter(errorless{out}, c.Stdout)
	}
	outW, err := stdout.start()
	if err != nil {
		return Result{}, err
	}
	errW, err := stderr.start()
	if err != nil {
		stdout.abort()
		return Result{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	cg := newCgroup()
	cg.attach(cmd.SysProcAttr)
	err = cmd.Start()
	if err != nil && cg != nil {
		cg.detach(cmd.SysProcAttr)
		cg.remove()
		cg = nil
		if cmd.Err == nil {
			// A kernel without clone3 into a cgroup: the group alone,
			// then. A program that was not found (cmd.Err) is not tried
			// again: its path would be taken as found.
			cmd = retryable(cmd)
			err = cmd.Start()
		}
	}
	outW.Close()
	errW.Close()
	if err != nil {
		stdout.abort()
		stderr.abort()
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "fork/exec" && c.Dir != "" && !isDir(c.Dir) {
			// The system says a chdir that failed as the program's "no
			// such file", which sends the user to reinstall it.
			err = &DirError{Dir: c.Dir, Err: err}
		}
		return Result{}, err
	}
	pgid := cmd.Process.Pid
	g := GroupsOf(ctx)
	if g != nil {
		g.Started(pgid)
	}
	// Deferred, so that a panic unwinding past Run kills the group too.
	defer func() {
		killGroup(cmd.Process)
		cg.release()
		if g != nil {
			g.Ended(pgid)
		}
	}()
	killed := make(chan struct{})
	stopKill := context.AfterFunc(ctx, func() {
		defer close(killed)
		killGroup(cmd.Process)
		cg.kill()
	})
	err = cmd.Wait()
	if !stopKill() {
		// The kill ran, or runs: the cgroup it killed is not to be kept.
		<-killed
	}
	// What the command left running ends with it: its group, and in its
	// cgroup whatever left the group (setsid), before the output is
	// drained (a child holding the pipe would hold it open).
	killGroup(cmd.Process)
	cg.end()
	stdout.wait()
	stderr.wait()
	res := Result{Stdout: stdout.tail.String(), Stderr: stderr.tail.String(), ExitCode: cmd.ProcessState.ExitCode()}
	res.StdoutCut, res.StderrCut = stdout.tail.cut, stderr.tail.cut
	if res.ExitCode < 0 {
		res.Signal = cmd.ProcessState.String()
	}
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		return res, ctxErr
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return res, nil
	}
	return res, err
}

// DirError is a command that could not start because its working
// directory cannot be entered (removed or moved while a run went on).
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string {
	return fmt.Sprintf("cannot enter the work dir %s (removed or moved while the run went on?): %v", e.Dir, e.Err)
}

func (e *DirError) Unwrap() error { return e.Err }

// isDir reports whether dir is a directory that can be looked at.
func isDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// copyBuffers are the buffers the output streams are read with: a
// buffer of each per command was half of what a run of many short steps
// allocated, and most of its garbage collection.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// capture reads one output stream of a command from a pipe, into out and
// a tail.
type capture struct {
	out  io.Writer
	tail *Tail
	r    *os.File
	done chan struct{}
}

// start makes the pipe and starts reading it; the write end goes to the
// command.
func (c *capture) start() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.r, c.done = r, make(chan struct{})
	go func() {
		defer close(c.done)
		buf := copyBuffers.Get().(*[]byte)
		defer copyBuffers.Put(buf)
		// A failing Output (a full disk) does not stop the command;
		// the tail still gets everything. The reader is wrapped so that
		// the copy uses buf: *os.File's WriteTo would allocate its own.
		io.CopyBuffer(io.MultiWriter(c.tail, errorless{c.out}), struct{ io.Reader }{r}, *buf)
	}()
	return w, nil
}

// wait waits for the end of the output, at most waitDelay: a process that
// escaped the group may hold the pipe open for ever. What was read by then
// stands.
func (c *capture) wait() {
	select {
	case <-c.done:
	case <-time.After(waitDelay):
		c.r.Close()
		<-c.done
	}
	c.r.Close()
}

// abort closes the pipe of a command that did not start.
func (c *capture) abort() {
	c.r.Close()
	<-c.done
}

// Tail keeps the last bytes written to it in a ring of fixed size: what
// a command's output leaves for a message, in bounded memory.
type Tail struct {
	buf  []byte
	size int
	next int
	full bool
	// cut counts the bytes overwritten.
	cut int64
}

// NewTail keeps the last n bytes. The buffer grows as output comes: most
// commands print little, and a step that reserved its whole tail up front
// made every command allocate it (2 MiB a step, half a short run's CPU in
// garbage collection).
func NewTail(n int) *Tail { return &Tail{size: n} }

func (t *Tail) Write(p []byte) (int, error) {
	n, size := len(p), t.size
	if len(p) > size {
		t.cut += int64(len(p) - size)
		p = p[len(p)-size:]
	}
	for len(p) > 0 {
		if !t.full {
			k := min(len(p), size-len(t.buf))
			t.buf = append(t.buf, p[:k]...)
			p = p[k:]
			t.full = len(t.buf) == size
			continue
		}
		k := copy(t.buf[t.next:], p)
		t.cut += int64(k)
		t.next = (t.next + k) % size
		p = p[k:]
	}
	return n, nil
}

func (t *Tail) String() string {
	return string(t.buf[t.next:]) + string(t.buf[:t.next])
}

// Serialised returns a writer whose writes reach w one at a time: for a
// log that a command's output streams and its caller both write.
func Serialised(w io.Writer) io.Writer { return &lockedWriter{w: w} }

// lockedWriter serialises the writes of two streams to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// errorless hides a writer's failures from io.MultiWriter, which would
// stop at the first.
type errorless struct{ w io.Writer }

func (e errorless) Write(p []byte) (int, error) {
	e.w.Write(p)
	return len(p), nil
}

// retryable is a fresh copy of a command whose Start failed: an exec.Cmd
// starts once.
func retryable(c *exec.Cmd) *exec.Cmd {
	n := &exec.Cmd{Path: c.Path, Args: c.Args}
	n.Dir, n.Env, n.Stdin, n.Stdout, n.Stderr, n.SysProcAttr = c.Dir, c.Env, c.Stdin, c.Stdout, c.Stderr, c.SysProcAttr
	return n
}
