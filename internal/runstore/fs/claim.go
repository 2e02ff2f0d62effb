package fs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// ClaimInfo is claim.json: which process runs the run.
type ClaimInfo struct {
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
	// TimeoutMS is how old the heartbeat may get before the claim is stale.
	TimeoutMS int64 `json:"timeout_ms"`
	// Token tells the holder its own claim from one that replaced it.
	Token string `json:"token"`
}

// Holder names the holder as pid@host.
func (c ClaimInfo) Holder() string { return fmt.Sprintf("%d@%s", c.PID, c.Host) }

// Stale reports whether the claim may be taken over at now: its heartbeat
// is older than its timeout, or its process is gone from this host.
func (c ClaimInfo) Stale(now time.Time) bool {
	timeout := time.Duration(c.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = runstore.DefaultClaimTimeout
	}
	if now.Sub(c.Heartbeat) > timeout {
		return true
	}
	host, _ := os.Hostname()
	return c.Host == host && !processAlive(c.PID)
}

// processAlive reports whether a process with the pid exists. A process of
// another user counts as alive (EPERM).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// claim is a held claim on a run directory. A goroutine refreshes its
// heartbeat until release.
type claim struct {
	dir   string
	files Files

	mu   sync.Mutex
	info ClaimInfo

	stop chan struct{}
	done chan struct{}
	lost chan struct{}
	once sync.Once
}

// acquire claims the run directory dir for this process. It fails with a
// *claimedError when a live process holds it; a stale claim is taken over.
func acquire(files Files, dir string, opts runstore.ClaimOptions) (*claim, error) {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = runstore.DefaultHeartbeat
	}
	if opts.Timeout <= 0 {
		opts.Timeout = runstore.DefaultClaimTimeout
	}
	host, _ := os.Hostname()
	var tok [8]byte
	rand.Read(tok[:])
	now := time.Now()
	info := ClaimInfo{
		PID: os.Getpid(), Host: host, Started: now, Heartbeat: now,
		TimeoutMS: opts.Timeout.Milliseconds(), Token: hex.EncodeToString(tok[:]),
	}
	if err := create(dir, info); err != nil {
		return nil, err
	}
	c := &claim{dir: dir, files: files, info: info, stop: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{})}
	go c.beat(opts.Heartbeat)
	return c, nil
}

// create links a fully written claim file into place: the link fails when
// claim.json exists, so of two processes exactly one wins, and no reader
// ever sees a half-written claim.
func create(dir string, info ClaimInfo) error {
	path := filepath.Join(dir, ClaimFile)
	data, _ := json.MarshalIndent(info, "", "  ")
	tmp := filepath.Join(dir, "."+ClaimFile+tmpMark+info.Token)
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("claiming run %s: %w", dir, err)
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("claiming run %s: %w", dir, err)
	}
	return takeover(dir, tmp)
}

// takeover replaces a stale claim. A lock folder serialises contenders so
// that two of them never both remove and replace the claim.
func takeover(dir, tmp string) error {
	path := filepath.Join(dir, ClaimFile)
	lock := path + ".lock"
	if err := os.Mkdir(lock, 0o755); err != nil {
		// A contender killed while holding the lock leaves it behind.
		if st, serr := os.Stat(lock); serr == nil && time.Since(st.ModTime()) > runstore.DefaultClaimTimeout {
			os.Remove(lock)
		}
		holder, rerr := readClaim(dir)
		if rerr != nil {
			return fmt.Errorf("claiming run %s: another process is taking it over", dir)
		}
		return holder.claimed(dir)
	}
	defer os.Remove(lock)
	holder, err := readClaim(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Released meanwhile: claim it normally.
	case err != nil:
		// A claim that does not parse was written by something else
		// than Acquire; take it over rather than refuse forever.
	case !holder.Stale(time.Now()):
		return holder.claimed(dir)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("taking over claim of %s: %w", dir, err)
	}
	if err := os.Link(tmp, path); err != nil {
		// A process that did not need the lock claimed it first.
		if holder, rerr := readClaim(dir); rerr == nil {
			return holder.claimed(dir)
		}
		return fmt.Errorf("taking over claim of %s: %w", dir, err)
	}
	return nil
}

// readClaim reads claim.json of the run in dir.
func readClaim(dir string) (*ClaimInfo, error) {
	return readJSON[ClaimInfo](filepath.Join(dir, ClaimFile))
}

// lostC is closed when the claim was taken over by another process (this
// one stalled past its timeout): the holder must stop writing to the run.
func (c *claim) lostC() <-chan struct{} { return c.lost }

func (c *claim) beat(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			cur, err := readClaim(c.dir)
			if err != nil || cur.Token != c.info.Token {
				close(c.lost)
				return
			}
			c.mu.Lock()
			c.info.Heartbeat = now
			data, _ := json.MarshalIndent(c.info, "", "  ")
			c.mu.Unlock()
			// A failed refresh is retried on the next tick; the claim
			// only goes stale after several misses.
			writeFile(c.files, filepath.Join(c.dir, ClaimFile), append(data, '\n'), false)
		}
	}
}

// release stops the heartbeat and removes claim.json when it is still
// this claim's. It is safe to call more than once.
func (c *claim) release() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		cur, rerr := readClaim(c.dir)
		if rerr != nil || cur.Token != c.info.Token {
			return
		}
		if rerr := os.Remove(filepath.Join(c.dir, ClaimFile)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = fmt.Errorf("releasing claim of %s: %w", c.dir, rerr)
		}
	})
	return err
}

// claimed is the error for a run this claim holds.
func (c ClaimInfo) claimed(dir string) error {
	return &runstore.ClaimedError{Where: dir, Holder: c.Holder(), Started: c.Started, Heartbeat: c.Heartbeat}
}
