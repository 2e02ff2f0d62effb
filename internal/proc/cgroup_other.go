//go:build !linux

package proc

import "syscall"

// cgroup is nothing without Linux's cgroups: a command's process group is
// all there is to kill (docs/runtime.md, Security model).
type cgroup struct{}

func newCgroup() *cgroup                    { return nil }
func (*cgroup) attach(*syscall.SysProcAttr) {}
func (*cgroup) detach(*syscall.SysProcAttr) {}
func (*cgroup) kill()                       {}
func (*cgroup) remove()                     {}
func (*cgroup) end()                        {}
func (*cgroup) release()                    {}

// RemoveIdle does nothing without cgroups.
func RemoveIdle() {}

// SweepOrphans does nothing without cgroups.
func SweepOrphans() {}
