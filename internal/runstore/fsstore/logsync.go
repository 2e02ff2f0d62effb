package fsstore

import (
	"sync"

	"github.com/skillkit/skillkit/internal/runstore"
)

// logSync makes the log durable behind Pipelined commits: one goroutine
// syncs, and syncs again as long as commits were written during its last
// sync, then ends. A commit written while a sync is under way so waits
// for nothing: the next sync covers it and every other commit written
// meanwhile (a group commit). A loop whose iteration is shorter than a
// sync on a slow disk runs at its own pace rather than at the disk's,
// and pays fewer syncs; what waits for durability (settle: effects,
// snapshots, the run's end) waits for all of them.
type logSync struct {
	mu sync.Mutex
	// idle is closed when the goroutine ends, nil when none runs.
	idle chan struct{}
	// again says a commit was written since the sync under way started.
	again bool
	// err is the failure of a sync not yet reported (wait, failed).
	err error
}

// start has f synced behind the commit just written: by a goroutine of
// its own, or by the one under way once its sync ends.
func (s *logSync) start(f runstore.AppendFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		// A sync failed: the next wait reports it, and nothing is synced
		// after it.
		return
	}
	if s.idle != nil {
		s.again = true
		return
	}
	idle := make(chan struct{})
	s.idle = idle
	go s.run(f, idle)
}

func (s *logSync) run(f runstore.AppendFile, idle chan struct{}) {
	defer close(idle)
	for {
		err := f.Sync()
		s.mu.Lock()
		if err != nil || !s.again {
			s.err, s.again, s.idle = err, false, nil
			s.mu.Unlock()
			return
		}
		s.again = false
		s.mu.Unlock()
	}
}

// wait waits until every commit started is synced, and returns the
// failure of a sync not yet reported.
func (s *logSync) wait() error {
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	if idle != nil {
		<-idle
	}
	return s.failed()
}

// failed returns the failure of a sync that ended and was not yet
// reported, without waiting.
func (s *logSync) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	s.err = nil
	return err
}
