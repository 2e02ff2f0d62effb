package fsstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
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
	// Released says the holder let the run go while its record still
	// says running (a write failed): the claim is free, and its absence
	// would look like a claim.json deleted under a live holder.
	Released bool `json:"released,omitempty"`
}

// Holder names the holder as pid@host.
func (c ClaimInfo) Holder() string { return runstore.Holder(c.PID, c.Host) }

// lease is what a claimant judges of the claim (runstore.Lease).
func (c ClaimInfo) lease() runstore.Lease {
	return runstore.Lease{Holder: c.Holder(), Token: c.Token, Heartbeat: c.Heartbeat,
		Timeout: time.Duration(c.TimeoutMS) * time.Millisecond, Released: c.Released}
}

// Stale reports whether the claim may be taken over at now
// (runstore.Lease.Stale).
func (c ClaimInfo) Stale(now time.Time) bool { return c.lease().Stale(now) }

// claim is a held claim on a run directory. A goroutine refreshes its
// heartbeat until release.
type claim struct {
	dir   string
	files runstore.Files

	mu   sync.Mutex
	info ClaimInfo
	// seen is claim.json as it was when last read holding this claim's
	// token: while the file is unchanged (the same file, size and
	// modification time), verify need not read it again. Reading and
	// parsing it before every commit was a tenth of a loop iteration's
	// CPU; a takeover links a new file in, and the holder's own rewrite
	// forgets it.
	seen os.FileInfo

	// lost says another process took the claim over: for good.
	lost atomic.Bool
	once sync.Once
	// groups is GroupsFile, open once a command started.
	groups *os.File
	// now is the holder's clock (runstore.ClaimOptions.Now).
	now func() time.Time
	// folder is the run's folder as it was claimed, to tell it from one
	// made again in its place (removed).
	folder os.FileInfo
}

// acquire claims the run directory dir for this process. It fails with a
// *runstore.ClaimedError when a live process holds it; a stale claim is
// taken over, and the process groups its holder left running are killed.
// fresh says there was no claim to take over.
func acquire(files runstore.Files, dir string, opts runstore.ClaimOptions) (c *claim, fresh bool, err error) {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = runstore.DefaultHeartbeat
	}
	if opts.Timeout <= 0 {
		opts.Timeout = runstore.DefaultClaimTimeout
	}
	now := opts.Now()
	info := ClaimInfo{
		PID: os.Getpid(), Host: opts.HostName(), Started: now, Heartbeat: now,
		TimeoutMS: opts.Timeout.Milliseconds(), Token: runstore.NewToken(),
	}
	if fresh, err = create(dir, info); err != nil {
		return nil, false, err
	}
	folder, _ := os.Stat(dir)
	return &claim{dir: dir, files: files, info: info, now: opts.Now, folder: folder}, fresh, nil
}

// create links a fully written claim file into place: the link fails when
// claim.json exists, so of two processes exactly one wins, and no reader
// ever sees a half-written claim. fresh says there was no claim before.
func create(dir string, info ClaimInfo) (fresh bool, err error) {
	tmp, err := claimTemp(dir, info)
	if err != nil {
		return false, fmt.Errorf("claiming run %s: %w", dir, err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, filepath.Join(dir, ClaimFile))
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("claiming run %s: %w", dir, err)
	}
	return false, takeover(dir, tmp)
}

// claimTemp writes info to a temporary file beside claim.json, to be
// linked into place. A write that fails (a full disk) removes it: the
// file is made before its bytes fail, and a run that never started is
// not resumed, so nothing else would clear it.
func claimTemp(dir string, info ClaimInfo) (string, error) {
	data, _ := json.MarshalIndent(info, "", "  ")
	tmp := filepath.Join(dir, "."+ClaimFile+runstore.TempMark+info.Token)
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// takeover replaces a stale claim, and kills the process groups its holder
// left running on this host. The claim lock serialises contenders, and
// holders refreshing their claim, so that no claim is replaced by one
// that was read before it.
func takeover(dir, tmp string) error {
	path := filepath.Join(dir, ClaimFile)
	unlock, ok := lockClaim(dir)
	if !ok {
		holder, rerr := readClaim(dir)
		if rerr != nil {
			return fmt.Errorf("claiming run %s: another process is taking it over", dir)
		}
		return holder.claimed(dir)
	}
	defer unlock()
	holder, err := readClaim(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Released meanwhile: claim it normally.
	case err != nil:
		// A claim that does not parse was written by something else
		// than Acquire; take it over rather than refuse forever.
	case !holder.Stale(time.Now()):
		return holder.claimed(dir)
	case holder.Host == runstore.Hostname():
		// Whatever the holder's steps left running would run beside
		// the steps run again now.
		killGroups(dir)
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

// lockClaim takes the claim lock of dir, a lock on a file beside
// claim.json that the system releases when its process dies, and returns
// its release. It gives up after lockWait.
func lockClaim(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	for deadline := time.Now().Add(lockWait); ; time.Sleep(time.Millisecond) {
		if tryLock(f) {
			// Closing the file releases the lock.
			return func() { f.Close() }, true
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, false
		}
	}
}

// lockWait is how long a claim waits for the claim lock: a takeover or a
// heartbeat holds it for a few file operations.
const lockWait = 200 * time.Millisecond

// readClaim reads claim.json of the run in dir.
func readClaim(dir string) (*ClaimInfo, error) {
	return readJSON[ClaimInfo](filepath.Join(dir, ClaimFile))
}

// errLost is the error of a write refused because the claim is lost. It
// is a write error: the run is not at fault, and its record is left to the
// process that holds it now.
func (c *claim) errLost() error {
	return &runstore.WriteError{Err: fmt.Errorf("run %s: %w", c.dir, runstore.ErrClaimLost)}
}

// verify reports whether claim.json is still this claim, before the
// holder writes to the record: a claim that another process took over is
// lost for good.
func (c *claim) verify() error {
	if c.lost.Load() {
		return c.errLost()
	}
	fi, statErr := os.Stat(filepath.Join(c.dir, ClaimFile))
	c.mu.Lock()
	seen := c.seen
	c.mu.Unlock()
	if statErr == nil && seen != nil && os.SameFile(fi, seen) && fi.Size() == seen.Size() && fi.ModTime().Equal(seen.ModTime()) {
		return nil
	}
	cur, err := readClaim(c.dir)
	if err == nil && cur.Token == c.info.Token {
		if statErr == nil && time.Since(fi.ModTime()) > racyWindow {
			// The file as it was before the read: if it changed since,
			// the next verify reads it again. One written within the
			// clock's tick of the file system could be rewritten in place
			// with the same time and size, so it is read again too (as
			// git treats a racily clean entry).
			c.mu.Lock()
			c.seen = fi
			c.mu.Unlock()
		}
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Deleted under us: put it back, unless another process
		// claimed the run meanwhile, or the run's folder went with it.
		err := c.refresh()
		if err == nil || errors.Is(err, runstore.ErrRunRemoved) {
			return err
		}
	}
	c.setLost()
	return c.errLost()
}

// removed reports whether the run's folder is gone, or is another folder
// now (removed and made again: rm -rf, then mkdir -p): the record's files
// went with the old one, and a claim put back in the new one would hold
// an empty folder. It is looked at by a heartbeat and where claim.json
// is missing, never on a commit's way.
func (c *claim) removed() bool {
	fi, err := os.Stat(c.dir)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return c.folder != nil && !os.SameFile(fi, c.folder)
}

// errRemoved is the error of a write to a run whose folder was removed.
func (c *claim) errRemoved() error {
	return &runstore.WriteError{Err: fmt.Errorf("%w: %s (by a step, or by something outside the run): its record went with it, so it cannot be resumed",
		runstore.ErrRunRemoved, c.dir)}
}

// racyWindow is how old claim.json must be for verify to trust its
// size and time: file systems stamp times by a clock tick of up to 10 ms.
const racyWindow = 100 * time.Millisecond

func (c *claim) setLost() { c.lost.Store(true) }

// refresh rewrites claim.json with the heartbeat now, if it is still this
// claim: under the claim lock, so that a takeover between the read and the
// write is not undone. A claim.json that is gone is put back. It fails
// with ErrClaimLost when another process holds the run, and with
// ErrRunRemoved when the run's folder is gone. The record stops
// its heartbeat before it releases the claim, so a released claim is not
// written again.
func (c *claim) refresh() error {
	if c.removed() {
		return c.errRemoved()
	}
	now := c.now()
	unlock, ok := lockClaim(c.dir)
	if !ok {
		return errors.New("the claim lock is busy")
	}
	defer unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.info.Heartbeat = now
	c.seen = nil
	cur, err := readClaim(c.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		tmp, err := claimTemp(c.dir, c.info)
		if err != nil {
			return err
		}
		defer os.Remove(tmp)
		if err := os.Link(tmp, filepath.Join(c.dir, ClaimFile)); err != nil {
			return fmt.Errorf("%w: %w", runstore.ErrClaimLost, err)
		}
		return nil
	case err != nil:
		return err
	case cur.Token != c.info.Token:
		return runstore.ErrClaimLost
	}
	data, _ := json.MarshalIndent(c.info, "", "  ")
	return runstore.WriteFile(c.files, filepath.Join(c.dir, ClaimFile), append(data, '\n'), false)
}

// The process groups of the holder's commands (a step's shell, a hook,
// the agent) are lines of GroupsFile, "+pgid" when one starts and "-pgid"
// when it ends: one small append each, where rewriting claim.json would
// cost a file replacement per command. Whoever takes the claim over from a
// dead or frozen holder on the same host kills the groups still listed
// before it runs anything.

// Started records the process group of a command that started
// (proc.Groups).
func (c *claim) Started(pgid int) { c.noteGroup('+', pgid) }

// Ended records that the command of a process group ended.
func (c *claim) Ended(pgid int) { c.noteGroup('-', pgid) }

func (c *claim) noteGroup(sign byte, pgid int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.groups == nil {
		f, err := os.OpenFile(filepath.Join(c.dir, GroupsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			// Without the list a resume cannot kill what this run
			// leaves behind if it is killed; the run itself is fine.
			return
		}
		c.groups = f
	}
	c.groups.Write(append(strconv.AppendInt([]byte{sign}, int64(pgid), 10), '\n'))
}

// killGroups kills the process groups GroupsFile of the run in dir lists
// as running, and empties it.
func killGroups(dir string) {
	path := filepath.Join(dir, GroupsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	running := map[int]bool{}
	lines := strings.Split(string(data), "\n")
	// The last piece is "" or a line a failing disk cut short, whose
	// number may be another's.
	for _, line := range lines[:len(lines)-1] {
		if len(line) < 2 {
			continue
		}
		if pgid, err := strconv.Atoi(line[1:]); err == nil {
			running[pgid] = line[0] == '+'
		}
	}
	for pgid, on := range running {
		if on {
			proc.KillGroup(pgid)
		}
	}
	os.Truncate(path, 0)
}

// release stops the heartbeat and removes claim.json when it is still
// this claim's, or, with running set (the record says the run is running),
// marks it released. It is safe to call more than once.
func (c *claim) release(running bool) error {
	var err error
	c.once.Do(func() {
		c.mu.Lock()
		if c.groups != nil {
			c.groups.Close()
			c.groups = nil
		}
		c.mu.Unlock()
		cur, rerr := readClaim(c.dir)
		if rerr != nil || cur.Token != c.info.Token {
			return
		}
		// The run's commands have ended: none is left to kill.
		os.Remove(filepath.Join(c.dir, GroupsFile))
		path := filepath.Join(c.dir, ClaimFile)
		if running {
			c.mu.Lock()
			c.info.Released = true
			data, _ := json.MarshalIndent(c.info, "", "  ")
			c.mu.Unlock()
			if runstore.WriteFile(c.files, path, append(data, '\n'), false) == nil {
				return
			}
			// A full disk: a missing claim costs the next resume a
			// wait, a claim left behind would refuse it.
		}
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = fmt.Errorf("releasing claim of %s: %w", c.dir, rerr)
		}
	})
	return err
}

// claimed is the error for a run this claim holds.
func (c ClaimInfo) claimed(dir string) error {
	return c.lease().Claimed(dir, c.Started)
}
