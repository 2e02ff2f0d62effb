package runstore

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A claim made on this host in an earlier boot is stale although its pid
// names a live process now (pids are reused across boots) and its
// heartbeat lies in the future (a clock set back by the reboot); one made
// in this boot by a live process is not.
func TestClaimOfAnEarlierBoot(t *testing.T) {
	if thisBoot() == "" {
		t.Skip("no boot id on this system")
	}
	tok := NewToken()
	if !strings.HasPrefix(tok, thisBoot()+"-") {
		t.Fatalf("token %q does not name this boot %q", tok, thisBoot())
	}
	live := Holder(os.Getpid(), Hostname())
	ahead := time.Now().Add(time.Hour)
	earlier := "ffffffff"
	if thisBoot() == earlier {
		earlier = "00000000"
	}
	other := earlier + strings.TrimPrefix(tok, thisBoot())
	for _, c := range []struct {
		name  string
		lease Lease
		stale bool
	}{
		{"this boot", Lease{Holder: live, Token: tok, Heartbeat: ahead, Timeout: time.Second}, false},
		{"an earlier boot", Lease{Holder: live, Token: other, Heartbeat: ahead, Timeout: time.Second}, true},
		{"a token naming no boot", Lease{Holder: live, Token: "5f1c0e2a9b7d3c48", Heartbeat: ahead, Timeout: time.Second}, false},
		{"an earlier boot of another host", Lease{Holder: "1@elsewhere", Token: other, Heartbeat: time.Now(), Timeout: time.Minute}, false},
	} {
		if got := c.lease.Stale(time.Now()); got != c.stale {
			t.Errorf("%s: stale = %v, want %v", c.name, got, c.stale)
		}
	}
}

// TestSightingsForgotten: the claims from the future a process has
// watched are forgotten an hour after they were seen, so that a worker
// that lives for days does not keep every token it met.
func TestSightingsForgotten(t *testing.T) {
	now := time.Now()
	sightings.Store("old-token", sighting{beat: now.Add(time.Hour), at: now.Add(-2 * sightingKept)})
	defer sightings.Delete("old-token")
	l := Lease{Holder: "1@elsewhere", Token: "new-token", Heartbeat: now.Add(time.Hour), Timeout: time.Minute}
	defer sightings.Delete("new-token")
	if frozen(l, now) {
		t.Fatal("a claim first seen now is frozen")
	}
	if _, ok := sightings.Load("old-token"); ok {
		t.Error("a sighting of two hours ago is kept")
	}
	if _, ok := sightings.Load("new-token"); !ok {
		t.Error("the new sighting is not kept")
	}
}
