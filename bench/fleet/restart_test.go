// Package fleet measures a fleet of workers across a database restart:
// N `skillkit worker` processes work M tasks on PostgreSQL while the
// server is stopped for 30 s in the middle, and every task must end
// complete with each of its steps run once and recorded once. It is a
// measurement, not a test CI runs: it stops a cluster, and takes minutes.
//
//	SKILLKIT_BENCH_FLEET=1 \
//	SKILLKIT_TEST_OUTAGE_CLUSTER="15 outage" \
//	SKILLKIT_TEST_OUTAGE_DATABASE_URL=postgres://skillkit:skillkit@localhost:5499/postgres \
//	go test ./bench/fleet -run TestFleetAcrossARestart -v -timeout 20m
//
// FLEET_WORKERS, FLEET_CONCURRENCY, FLEET_TASKS and FLEET_OUTAGE (a
// duration) change its size; bench/RESULTS.md keeps what it measured.
package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

func setting(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func TestFleetAcrossARestart(t *testing.T) {
	cluster, base := strings.Fields(os.Getenv("SKILLKIT_TEST_OUTAGE_CLUSTER")), os.Getenv("SKILLKIT_TEST_OUTAGE_DATABASE_URL")
	if os.Getenv("SKILLKIT_BENCH_FLEET") == "" || len(cluster) != 2 || base == "" {
		t.Skip("set SKILLKIT_BENCH_FLEET=1, SKILLKIT_TEST_OUTAGE_CLUSTER and SKILLKIT_TEST_OUTAGE_DATABASE_URL to measure a fleet across a restart")
	}
	workers, concurrency, tasks := setting("FLEET_WORKERS", 4), setting("FLEET_CONCURRENCY", 2), setting("FLEET_TASKS", 200)
	outage := 30 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEET_OUTAGE")); err == nil {
		outage = d
	}
	ctl := func(action string) {
		if out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", cluster[0], cluster[1], action).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctlcluster %s: %v\n%s", action, err, out)
		}
	}
	url := sqltest.PostgresAt(t, base)
	ctx := context.Background()
	d, err := sqlstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	dir := t.TempDir()
	bin := filepath.Join(dir, "skillkit")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/skillkit/skillkit/cmd/skillkit").CombinedOutput(); err != nil {
		t.Fatalf("building skillkit: %v\n%s", err, out)
	}
	skill, marks := filepath.Join(dir, "mark"), filepath.Join(dir, "marks")
	os.MkdirAll(filepath.Join(skill, "phases"), 0o755)
	os.MkdirAll(marks, 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: mark\ndescription: Marks its steps.\n---\n# Mark\n"), 0o644)
	body := "# Phase 1: Mark\n\n## Execution Steps\n\n"
	for i := 1; i <= 3; i++ {
		body += fmt.Sprintf("### Step %d: Mark\n\n```bash\nsleep 0.2\necho %d >> %s/$SKILL_INPUT_N\n```\n\n", i, i, marks)
	}
	os.WriteFile(filepath.Join(skill, "phases", "01-mark.md"), []byte(body), 0o644)
	for i := range tasks {
		if _, err := d.AddTask(ctx, skill, map[string]string{"n": strconv.Itoa(i)}, nil, sqlstore.ReviewNone); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	type exit struct {
		i   int
		err error
	}
	exits := make(chan exit, workers)
	logs := make([]*os.File, workers)
	for i := range workers {
		logs[i], _ = os.Create(filepath.Join(dir, fmt.Sprintf("worker-%d.log", i)))
		cmd := exec.Command(bin, "worker", "--db", url, "--concurrency", strconv.Itoa(concurrency), "--until-idle",
			"--outage", (outage + 2*time.Minute).String(), "--poll", "200ms", "--name", fmt.Sprintf("w%d", i))
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, logs[i], logs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { exits <- exit{i, cmd.Wait()} }()
	}
	// The restart comes once a quarter of the tasks are done, with steps
	// running on every slot.
	for done(t, d) < tasks/4 {
		time.Sleep(50 * time.Millisecond)
	}
	before := done(t, d)
	stopped := time.Now()
	ctl("stop")
	time.Sleep(outage)
	ctl("start")
	away := time.Since(stopped)
	for range workers {
		if e := <-exits; e.err != nil {
			log, _ := os.ReadFile(logs[e.i].Name())
			t.Errorf("worker %d: %v\n%s", e.i, e.err, tail(string(log)))
		}
	}
	wall := time.Since(start)

	all, err := d.Tasks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	complete, lost, twice, recorded := 0, 0, 0, 0
	for _, k := range all {
		if k.State == sqlstore.Complete {
			complete++
		} else {
			lost++
			t.Errorf("task %s (n=%s): %s: %s", k.ID, k.Inputs["n"], k.State, k.Message)
		}
		data, _ := os.ReadFile(filepath.Join(marks, k.Inputs["n"]))
		if got := strings.Join(strings.Fields(string(data)), " "); got != "1 2 3" {
			twice++
			t.Errorf("task n=%s ran steps %v, want 1 2 3 once each", k.Inputs["n"], got)
		}
		if k.RunID == "" {
			continue
		}
		log, err := d.Backend("").ReadEvents(ctx, k.RunID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range log.Events {
			if e.Step != "" && e.To == "completed" {
				n++
			}
		}
		if n != 3 {
			t.Errorf("run %s records %d step completions, want 3", k.RunID, n)
		} else {
			recorded++
		}
	}
	away1 := 0
	for _, f := range logs {
		log, _ := os.ReadFile(f.Name())
		away1 += strings.Count(string(log), "the database is away")
	}
	t.Logf("fleet: %d workers x %d slots, %d tasks of 3 steps; database stopped %v after %d tasks were done (away %v); wall %v",
		workers, concurrency, tasks, outage, before, away.Round(time.Millisecond), wall.Round(time.Millisecond))
	t.Logf("complete %d, lost %d, a step run other than once %d, runs recording each step once %d; 'the database is away' said %d times",
		complete, lost, twice, recorded, away1)
}

// done is how many tasks are complete.
func done(t *testing.T, d *sqlstore.DB) int {
	all, err := d.Tasks(context.Background(), sqlstore.Complete)
	if err != nil {
		t.Fatal(err)
	}
	return len(all)
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
