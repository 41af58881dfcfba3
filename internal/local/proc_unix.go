//go:build unix

package local

import (
	"os"
	"syscall"
)

// sysProcAttr puts the app in its own process group, so a Ctrl-C in the
// terminal reaches only the supervisor, which then stops the app in order.
func sysProcAttr() *syscall.SysProcAttr {
	return withParentDeathSignal(&syscall.SysProcAttr{Setpgid: true})
}

// terminate asks p to shut down gracefully.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
