package main

import (
	"io"

	"github.com/skillkit/skillkit/internal/runstore/fs"
	"github.com/skillkit/skillkit/internal/runview"
)

// writeSteps prints the run in dir step by step, from its events.
func writeSteps(w io.Writer, dir string) error {
	events, err := fs.ReadEvents(dir)
	if err != nil {
		return usageErr(err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return runview.WriteSteps(w, runview.Read(events))
}
