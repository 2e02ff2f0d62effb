// Command appendfloor is the floor a durable run log is measured against:
// it appends n lines to a file, each followed by an fsync, as a run's
// record does once per step or loop iteration, and nothing else. bench/run.sh
// times it beside `skillkit run` on the same disk.
//
//	appendfloor -n 1000 -dir /tmp/x [-size 200]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	n := flag.Int("n", 1000, "lines to append, one fsync each")
	dir := flag.String("dir", ".", "folder to write floor.log in")
	size := flag.Int("size", 200, "bytes per line")
	flag.Parse()
	if err := run(*n, *dir, *size); err != nil {
		fmt.Fprintln(os.Stderr, "appendfloor:", err)
		os.Exit(1)
	}
}

func run(n int, dir string, size int) error {
	path := filepath.Join(dir, "floor.log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	line := append(bytes.Repeat([]byte("x"), max(size-1, 0)), '\n')
	for range n {
		if _, err := f.Write(line); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
