package fsstore

import "os"

// TryLock takes an exclusive lock on f without waiting, as a run's claim
// does, for other files one process at a time must write (a cassette
// being recorded); the system drops it when f closes or the process
// dies.
func TryLock(f *os.File) bool { return tryLock(f) }
