package mototest

import "syscall"

// sysProcAttr puts moto in a process group of its own, which stop kills
// whole, and has the kernel kill it when the process that started it ends
// (a test binary or test/standins killed with SIGKILL), so that no moto
// outlives it holding its port.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
