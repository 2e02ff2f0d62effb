package runstore

import (
	"path"
	"strings"
)

// Names a store keeps in a run's work dir: state.json, which the
// processes of the skill read, and the filesystem store's record, which
// is the work dir itself.
const (
	StateFile    = "state.json"
	ProgressFile = "skill-state.yaml"
	EventsFile   = "events.jsonl"
	MetricsFile  = "metrics.jsonl"
	ClaimFile    = "claim.json"
	ThreadsDir   = "threads"
	LogsDir      = "logs"
	// ClaimLockFile serialises the processes that replace claim.json, and
	// ClaimGroupsFile lists the process groups of the holder's commands:
	// the filesystem store's, beside its record.
	ClaimLockFile   = ".claim.lock"
	ClaimGroupsFile = ".claim.groups"
	// WorkspaceThreads and WorkspaceMetrics are where threads/ and
	// metrics.jsonl go in the work dir of a skill with a worker.yaml: the
	// worker lifecycle specification's workspace/threads/ and
	// workspace/metrics/metrics.jsonl (NewRun.Workspace).
	WorkspaceThreads = "workspace/threads"
	WorkspaceMetrics = "workspace/metrics"
)

// RecordFile reports whether a name at the top of a work dir is a
// store's (the files above, their temporary copies and the claim's lock),
// not the work the steps left beside it: what a cassette or a test of the
// work dir passes over, whichever store kept the run.
func RecordFile(name string) bool {
	switch name {
	case StateFile, ProgressFile, EventsFile, MetricsFile, ClaimFile, ClaimFile + ".lock", ClaimLockFile, ClaimGroupsFile, ThreadsDir, LogsDir:
		return true
	}
	// Files are replaced through hidden temporary copies (.state.json…).
	return IsTemp(name)
}

// RecordPath reports whether a slash-separated path in a work dir is a
// store's: a top-level RecordFile, or the folders of a workspace layout.
func RecordPath(rel string) bool {
	if rel == WorkspaceThreads || rel == WorkspaceMetrics {
		return true
	}
	return !strings.Contains(rel, "/") && RecordFile(path.Base(rel))
}
