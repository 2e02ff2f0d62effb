package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A process group does not hold what left it: a `setsid` child, or a
// daemon, outlives the group's SIGKILL, and the parent-death signal
// reaches the direct child only. Where cgroup v2 is mounted and our own
// cgroup is writable, every command starts in a cgroup of its own
// (skillkit-<runner pid>-<n>), which cgroup.kill ends whole, whatever its
// processes did to their groups and sessions. Cgroups left by a runner that
// died (kill -9) are ended by the next command any runner starts beside
// them.
//
// A cgroup its command left empty is kept for the next command: making
// and removing one per command (mkdir and rmdir in cgroupfs, a second
// cgroup.kill) cost 0.2-0.3 ms of a `bash -c true` of 1.6-1.8 ms here. RemoveIdle removes the kept ones
// as the process ends; the sweep of the next runner those of a process
// that could not.

// cgroup is one command's cgroup.
type cgroup struct {
	dir string
	fd  *os.File
	// emptied says the command's end found nothing left in it (end): the
	// cgroup can take the next command. killed says cgroup.kill was
	// written to it: on the kernels we run on (6.18), what starts in such
	// a cgroup later (clone3 into it) is killed at once, so it is never
	// kept.
	emptied, killed bool
}

// maxIdle bounds the cgroups kept for reuse: as many as there were
// commands at once, up to this.
const maxIdle = 4

var cgroups struct {
	once sync.Once
	// base is the folder of our own cgroup in the cgroup v2 mount; "" when
	// there is none or it is not writable.
	base string
	n    atomic.Int64

	mu   sync.Mutex
	idle []*cgroup
}

// cgroupBase finds our cgroup's folder, and ends the cgroups dead runners
// left in it, once per process.
func cgroupBase() string {
	cgroups.once.Do(func() {
		mount := cgroup2Mount()
		self := ownCgroup()
		if mount == "" || self == "" {
			return
		}
		base := filepath.Join(mount, filepath.FromSlash(self))
		if syscall.Access(base, 2 /* W_OK */) != nil {
			return
		}
		cgroups.base = base
		sweepOrphans(base)
	})
	return cgroups.base
}

// cgroup2Mount is where cgroup v2 is mounted: /sys/fs/cgroup on a unified
// system, /sys/fs/cgroup/unified on a hybrid one.
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE ...
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(pre)
		if ok && strings.HasPrefix(post, "cgroup2 ") && len(fields) >= 5 {
			return fields[4]
		}
	}
	return ""
}

// ownCgroup is our cgroup v2 path ("0::/path" in /proc/self/cgroup).
func ownCgroup() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p
		}
	}
	return ""
}

// newCgroup makes a cgroup for one command, or takes one a command
// before left empty; nil where there is none.
func newCgroup() *cgroup {
	base := cgroupBase()
	if base == "" {
		return nil
	}
	cgroups.mu.Lock()
	if n := len(cgroups.idle); n > 0 {
		c := cgroups.idle[n-1]
		cgroups.idle = cgroups.idle[:n-1]
		cgroups.mu.Unlock()
		c.emptied = false
		return c
	}
	cgroups.mu.Unlock()
	dir := filepath.Join(base, fmt.Sprintf("skillkit-%d-%d", os.Getpid(), cgroups.n.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// attach has the command start in the cgroup (clone3's CLONE_INTO_CGROUP):
// nothing it starts can run before it is inside.
func (c *cgroup) attach(a *syscall.SysProcAttr) {
	if c != nil {
		a.UseCgroupFD, a.CgroupFD = true, int(c.fd.Fd())
	}
}

// detach undoes attach, for a start without the cgroup.
func (c *cgroup) detach(a *syscall.SysProcAttr) {
	if c != nil {
		a.UseCgroupFD, a.CgroupFD = false, 0
	}
}

// kill ends every process in the cgroup.
func (c *cgroup) kill() {
	if c != nil {
		c.killed = true
		killCgroup(c.dir)
	}
}

// end ends what the command, which exited, left in the cgroup: nothing,
// most often, and then there is nothing to kill and the cgroup can be
// kept for the next command.
func (c *cgroup) end() {
	if c == nil {
		return
	}
	if c.emptied = !c.killed && !populated(c.dir); !c.emptied {
		c.kill()
	}
}

// release keeps the cgroup for the next command if its command's end
// found it empty (end), and removes it otherwise: what was killed may
// still be dying in it, and a panic unwinding past Run skipped end.
func (c *cgroup) release() {
	if c == nil {
		return
	}
	if c.emptied {
		cgroups.mu.Lock()
		if len(cgroups.idle) < maxIdle {
			cgroups.idle = append(cgroups.idle, c)
			cgroups.mu.Unlock()
			return
		}
		cgroups.mu.Unlock()
	}
	c.remove()
}

// RemoveIdle removes the cgroups kept for the next commands: a process
// that ran commands calls it before it exits, so that it leaves none
// behind for the next runner's sweep.
func RemoveIdle() {
	cgroups.mu.Lock()
	idle := cgroups.idle
	cgroups.idle = nil
	cgroups.mu.Unlock()
	for _, c := range idle {
		c.remove()
	}
}

// populated reports whether a process is in the cgroup (cgroup.events);
// when that cannot be read, it says yes, and the cgroup is killed and
// removed as it always was.
func populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err != nil || !strings.Contains(string(data), "populated 0")
}

// remove kills what is left and removes the cgroup.
func (c *cgroup) remove() {
	if c == nil {
		return
	}
	killCgroup(c.dir)
	removeCgroup(c.dir)
	c.fd.Close()
}

func killCgroup(dir string) {
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
}

// removeCgroup removes an emptied cgroup; the kernel ends its processes
// asynchronously, so it waits a little for them to go.
func removeCgroup(dir string) {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
			return
		}
	}
}

// sweepOrphans ends the command cgroups of runners that are dead.
func sweepOrphans(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "skillkit-")
		pid, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !e.IsDir() || err != nil || n == os.Getpid() || Alive(n) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		killCgroup(dir)
		removeCgroup(dir)
	}
}

// SweepOrphans ends, now, what commands of dead runners left running in
// their cgroups: a resume calls it before it runs a step again.
func SweepOrphans() {
	if base := cgroupBase(); base != "" {
		sweepOrphans(base)
	}
}
