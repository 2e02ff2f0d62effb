// Command skillkit scaffolds, lints, plans and runs agent skills.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
