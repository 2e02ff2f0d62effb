package storetest

import "testing"

func TestBackends(t *testing.T) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { Run(t, b) })
	}
}
