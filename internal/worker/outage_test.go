package worker_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/worker"
)

// The outage test stops and starts a PostgreSQL cluster of its own, never
// the one other tests share: SKILLKIT_TEST_OUTAGE_CLUSTER names it for
// pg_ctlcluster ("15 outage") and SKILLKIT_TEST_OUTAGE_DATABASE_URL is a
// URL of it (the README's Development section says how to make one).
const (
	outageCluster = "SKILLKIT_TEST_OUTAGE_CLUSTER"
	outageURL     = "SKILLKIT_TEST_OUTAGE_DATABASE_URL"
)

// safeBuffer is a bytes.Buffer the worker's slots may write at once.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWorkerRidesOutARestart: PostgreSQL stops for 3 s under a polling
// worker, which retries with backoff, says so, and then works the tasks
// added once it is back (N10: every worker exited 3 at the first error).
func TestWorkerRidesOutARestart(t *testing.T) {
	cluster, url := strings.Fields(os.Getenv(outageCluster)), os.Getenv(outageURL)
	if len(cluster) != 2 || url == "" {
		t.Skip(outageCluster + " and " + outageURL + " are not set: no cluster of its own to stop")
	}
	ctl := func(action string) {
		t.Helper()
		if out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", cluster[0], cluster[1], action).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctlcluster %s: %v\n%s", action, err, out)
		}
	}
	d, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	skill, _ := writeSkill(t, 1, "0")
	o := options(d, "rider")
	o.WorkBase, o.Outage = filepath.Join(t.TempDir(), "work"), time.Minute
	var out safeBuffer
	o.Out = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, o) }()
	time.Sleep(300 * time.Millisecond)
	ctl("stop")
	time.Sleep(3 * time.Second)
	select {
	case err := <-done:
		ctl("start")
		t.Fatalf("the worker exited during the outage: %v\n%s", err, out.String())
	default:
	}
	ctl("start")
	addTasks(t, d, skill, 3)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tasks, err := d.Tasks(context.Background(), "")
		n := 0
		for _, k := range tasks {
			if k.State == sqlstore.Complete {
				n++
			}
		}
		if err == nil && n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 tasks complete after the restart (%v)\n%s", n, err, out.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("worker: %v", err)
	}
	if s := out.String(); !strings.Contains(s, "the database is away") || !strings.Contains(s, "the database is back") {
		t.Errorf("the worker did not say the database went and came back:\n%s", s)
	}
}
