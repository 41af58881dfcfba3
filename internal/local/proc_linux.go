//go:build linux

package local

import "syscall"

// withParentDeathSignal makes the kernel stop the app if the supervisor
// dies without stopping it (kill -9), so no orphan keeps the port.
func withParentDeathSignal(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	a.Pdeathsig = syscall.SIGTERM
	return a
}
