package runstore

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"time"
)

// Lease is what a claimant sees of a claim: enough to judge, by its own
// clock, whether the holder still holds it. Every backend judges its
// claims here.
type Lease struct {
	// Holder is pid@host.
	Holder string
	// Token tells this claim from one that replaced it.
	Token string
	// Heartbeat is when the holder last said it is alive, by the
	// holder's clock.
	Heartbeat time.Time
	// Timeout is how long a heartbeat lasts.
	Timeout time.Duration
	// Released says the holder let the run go.
	Released bool
}

// Stale reports whether the claim may be taken over at now (this
// process's clock): it was released; its holder ran on this host and is
// gone, or ran before the host last booted; or its heartbeat is older
// than its timeout. A heartbeat from the
// future is clock skew, not a sign of life: on this host the holder's
// liveness decides alone; from another host, whether the heartbeat moves
// does: a claim whose heartbeat this process has seen stand still for a
// whole lease is stale, whatever time it says (F13).
func (l Lease) Stale(now time.Time) bool {
	switch {
	case l.Released, Gone(l.Holder), l.here() && l.bootedSince():
		return true
	case !l.ahead(now):
		return now.Sub(l.Heartbeat) > l.timeout()
	case l.here():
		return false
	}
	return frozen(l, now)
}

// Claimed is the refusal of a claim that is not stale: where names the
// run, started is when the holder claimed it. A refusal that only the
// heartbeat's movement can lift says how long to watch it (Watch).
func (l Lease) Claimed(where string, started time.Time) *ClaimedError {
	e := &ClaimedError{Where: where, Holder: l.Holder, Started: started, Heartbeat: l.Heartbeat}
	if now := time.Now(); l.ahead(now) && !l.here() {
		e.Watch = l.timeout()
	}
	return e
}

func (l Lease) timeout() time.Duration {
	if l.Timeout <= 0 {
		return DefaultClaimTimeout
	}
	return l.Timeout
}

// ahead says the heartbeat lies in the future by more than skew.
func (l Lease) ahead(now time.Time) bool { return l.Heartbeat.After(now.Add(skew)) }

// here says the holder ran on this host, where its liveness can be
// looked up.
func (l Lease) here() bool {
	_, host, _ := cutHolder(l.Holder)
	return host == Hostname()
}

// NewToken returns a claim's token: the boot of this host it was made
// in, then random bytes. A holder on this host whose token names another
// boot died in a reboot, whatever process its pid names now: a pid is
// reused across boots, and a clock set back by the reboot can leave its
// heartbeat in the future.
func NewToken() string {
	var b [8]byte
	rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	if boot := thisBoot(); boot != "" {
		tok = boot + "-" + tok
	}
	return tok
}

// bootedSince says the claim was made in another boot of this host than
// the running one; a token that names none (written before tokens did,
// or where the system has no boot id) says nothing.
func (l Lease) bootedSince() bool {
	boot, _, ok := strings.Cut(l.Token, "-")
	return ok && thisBoot() != "" && boot != thisBoot()
}

// thisBoot names this boot of the host: 8 hex digits of a hash of the
// kernel's boot id, "" where there is none.
var thisBoot = sync.OnceValue(func() string {
	id, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(id))))
	return hex.EncodeToString(sum[:4])
})

// skew is how far in the future a heartbeat may be before it counts as
// clock skew: the clock readings of one host are closer than that.
const skew = time.Second

// sightings are the claims from the future this process has seen: the
// heartbeat each had, and when, by this process's clock, it was first
// seen with it.
var sightings sync.Map // token → sighting

type sighting struct {
	beat time.Time
	at   time.Time
}

// frozen reports whether l's heartbeat has stood still for longer than
// its timeout since this process first saw it; a heartbeat that moved
// starts the watch again.
func frozen(l Lease, now time.Time) bool {
	v, ok := sightings.Load(l.Token)
	if s, _ := v.(sighting); ok && s.beat.Equal(l.Heartbeat) {
		return now.Sub(s.at) > l.timeout()
	}
	sightings.Store(l.Token, sighting{beat: l.Heartbeat, at: now})
	sightings.Range(func(k, v any) bool {
		if now.Sub(v.(sighting).at) > sightingKept {
			sightings.Delete(k)
		}
		return true
	})
	return false
}

// sightingKept is how long a sighting is kept: a lease is far shorter,
// and a claim watched that long was stale long before (its watch only
// starts again); a process that lives for days keeps the last hour's.
const sightingKept = time.Hour
