//go:build unix

package script

import (
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// A symlink swapped between the check of a path and its open (inside,
// then out of the roots, and back, as fast as it goes) never lets Read,
// Write or Edit reach outside: every operation lands inside or fails.
func TestSymlinkSwapRace(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	testfs.WriteFile(t, filepath.Join(f.work, "in", "secret.txt"), "inside")
	link := filepath.Join(f.work, "d")
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		tmp := link + ".new"
		for i := 0; !stop.Load(); i++ {
			target := filepath.Join(f.work, "in")
			if i%2 == 1 {
				target = f.outside
			}
			os.Remove(tmp)
			os.Symlink(target, tmp)
			os.Rename(tmp, link)
		}
	}()
	const tries = 3000
	state, err := f.step(t, h, `
		let leaked = 0, ok = 0;
		for (let i = 0; i < `+strconv.Itoa(tries)+`; i++) {
			try { if (Read("d/secret.txt") === "secret") leaked++; else ok++ } catch (e) {}
			try { Write("d/written.txt", "x") } catch (e) {}
			try { Edit("d/secret.txt", "secret", "edited") } catch (e) {}
		}
		state.leaked = leaked; state.ok = ok;
	`)
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if state["leaked"] != int64(0) && state["leaked"] != 0.0 {
		t.Errorf("%v of %d reads returned the file outside the roots", state["leaked"], tries)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "written.txt")); err == nil {
		t.Error("a write landed outside the roots")
	}
	if got := testfs.ReadFile(t, filepath.Join(f.outside, "secret.txt")); got != "secret" {
		t.Errorf("an edit changed the file outside the roots: %q", got)
	}
	t.Logf("%v of %d reads went through (inside); none outside", state["ok"], tries)
}
