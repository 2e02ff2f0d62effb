package main

import (
	"io"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runview"
)

// writeSteps prints the run ref names step by step, from its events as the store
// keeps them (a folder's events.jsonl, a database's rows).
func writeSteps(w io.Writer, store runstore.Store, ref string) error {
	events, err := store.Events(ref)
	if err != nil {
		return usageErr(err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return runview.WriteSteps(w, runview.Read(events))
}
