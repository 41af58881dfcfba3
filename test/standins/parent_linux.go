package main

import (
	"os"
	"syscall"
)

// prSetPdeathsig is prctl's PR_SET_PDEATHSIG.
const prSetPdeathsig = 1

// endWithParent asks the kernel to send sig to this process when its
// parent ends, and sends it at once when the parent ended already.
func endWithParent(sig syscall.Signal) {
	parent := os.Getppid()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(sig), 0); errno != 0 {
		return
	}
	if os.Getppid() != parent {
		_ = syscall.Kill(os.Getpid(), sig)
	}
}
