// Package crashtest holds what the runners' crash tests share: killing a
// child run with SIGKILL at seeded random moments, finishing it by resume,
// and counting, from a log the skill appends to, that completed work ran
// exactly once and only the work in flight at the kill ran again.
package crashtest

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// Backend is a store of runs the crash tests run on: Env tells the helper
// processes to use it (StoreFromEnv), and Store reads what they left. The
// in-memory backend is not one: a killed process takes it along.
type Backend struct {
	Env   []string
	Store runstore.Store
}

// dbEnv names the database of the helper processes; without it they use
// the filesystem.
const dbEnv = "SKILLKIT_CRASH_DB"

// Each runs f on the filesystem, SQLite and PostgreSQL, as subtests.
func Each(t *testing.T, f func(t *testing.T, b Backend)) {
	t.Run("fs", func(t *testing.T) { f(t, Backend{Store: fsstore.New(fsstore.Options{})}) })
	sqltest.Each(t, func(t *testing.T, url string) {
		d, err := sqlstore.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		f(t, Backend{Env: []string{dbEnv + "=" + url}, Store: d.Store(t.TempDir())})
	})
}

// StoreFromEnv is the store of a helper process, as Each's Env says.
func StoreFromEnv() (runstore.Store, error) {
	url := os.Getenv(dbEnv)
	if url == "" {
		return fsstore.New(fsstore.Options{}), nil
	}
	d, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return d.Store(""), nil
}

// Killer kills child runs at random moments from one seed.
type Killer struct {
	rng *rand.Rand
}

// NewKiller seeds from SKILLKIT_CRASH_SEED when set, else the clock, and
// logs the seed so that a failure can be replayed.
func NewKiller(t testing.TB) *Killer {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SKILLKIT_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("SKILLKIT_CRASH_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (replay with SKILLKIT_CRASH_SEED=%d)", seed, seed)
	return &Killer{rng: rand.New(rand.NewPCG(seed, 0))}
}

// Kill starts cmd, kills it with SIGKILL after a random wait in
// [least, least+span) and reaps it. It returns the wait.
func (k *Killer) Kill(t testing.TB, cmd *exec.Cmd, least, span time.Duration) time.Duration {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	after := least + time.Duration(k.rng.Int64N(int64(span)))
	time.Sleep(after)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	return after
}

// Finish completes a killed run in dir, as s records it: nothing if it
// completed anyway, restart when the kill came before the run existed,
// else resume.
func Finish(t testing.TB, what, dir string, s runstore.Store, resume, restart func() *exec.Cmd) {
	t.Helper()
	sum, err := s.Status(dir)
	if err == nil && sum.Progress.RunState == runstore.RunCompleted {
		return
	}
	cmd := resume()
	if err != nil {
		cmd = restart()
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: resume failed: %v\n%s", what, err, out)
	}
}

// CountRuns reads the words of log (one per unit of work that ran) and
// checks that each id ran once, except at most one that had not completed
// before the kill, which may have run twice. It returns how many ran
// twice (0 or 1).
func CountRuns(t testing.TB, what, log string, ids []string, doneBefore func(id string) bool) int {
	t.Helper()
	data, _ := os.ReadFile(log)
	counts := map[string]int{}
	for _, w := range strings.Fields(string(data)) {
		counts[w]++
	}
	twice := 0
	for _, id := range ids {
		switch n := counts[id]; {
		case n == 1:
		case n == 2 && !doneBefore(id):
			twice++
		default:
			t.Fatalf("%s: %s ran %d times (completed before the kill: %v)", what, id, n, doneBefore(id))
		}
	}
	if twice > 1 {
		t.Fatalf("%s: %d units ran twice; only the one in flight may", what, twice)
	}
	return twice
}

// AgentCalls reads log, where a test's agent command writes its call's
// number (SKILLKIT_CALL) as it starts, one a line, and checks it against
// recorded, the calls the run's record counts: every call that started
// is counted, so none is numbered past recorded, and no number is used
// twice (a resume that lost a killed call's count would number its next
// call as that one). It returns how many calls started.
func AgentCalls(t testing.TB, what, log string, recorded int) int {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, w := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(w)
		if err != nil {
			t.Fatalf("%s: %s: %q is no call number", what, log, w)
		}
		if seen[n] {
			t.Fatalf("%s: agent call %d started twice (%s: %s)", what, n, log, strings.Fields(string(data)))
		}
		if n > recorded {
			t.Fatalf("%s: agent call %d started, but the record counts %d calls", what, n, recorded)
		}
		seen[n] = true
	}
	return len(seen)
}
