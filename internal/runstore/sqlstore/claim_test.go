package sqlstore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// A holder killed with a heartbeat under way moves its heartbeat after
// its death: PostgreSQL runs a statement whose client is gone. The
// claimer's guarded takeover then finds the claim changed since it read
// it; it judges the claim again, finds its holder still dead, and takes
// the run (it once refused, naming the dead holder, "heartbeat 0s ago":
// a resume in CI's crash test).
func TestClaimTakesOverADeadHolderWhoseBeatMoved(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		d := openDB(t, url)
		ctx := context.Background()
		h := createRun(t, d)
		// The holder is a process that is gone: pid 0 is nobody's.
		if _, err := d.exec(ctx, `UPDATE runs SET holder = ? WHERE id = ?`, runstore.Holder(0, runstore.Hostname()), h.id); err != nil {
			t.Fatal(err)
		}
		var beats atomic.Int32
		opts := runstore.ClaimOptions{Clock: func() time.Time {
			// The claim's time is read after its lease, just before the
			// guarded takeover: the dead holder's last beat lands there.
			if beats.Add(1) == 1 {
				if _, err := d.exec(ctx, `UPDATE runs SET heartbeat = heartbeat + 1 WHERE id = ?`, h.id); err != nil {
					t.Error(err)
				}
			}
			return time.Now()
		}}
		c, err := d.Backend(t.TempDir()).Claim(ctx, h.id, opts)
		if err != nil {
			t.Fatalf("claim of a dead holder's run whose beat moved: %v", err)
		}
		defer c.Handle.Release(ctx, false)
		if beats.Load() < 2 {
			t.Errorf("the takeover was tried %d times, want a second after the beat moved", beats.Load())
		}
	})
}
