package mototest

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts moto in a process group of its own, which stop kills
// whole, and has the kernel kill it when the process that started it ends
// (a test binary or test/standins killed with SIGKILL), so that no moto
// outlives it holding its port.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// starts receives the commands to start on spawner's thread.
var starts = make(chan startReq)

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

func init() { go spawner() }

// spawner starts every moto from one thread that never ends: the kernel
// sends Pdeathsig when the thread that started the child ends, not the
// process, and the Go runtime ends the thread of a goroutine that exits
// locked to it (as internal/synth's background builds do).
func spawner() {
	runtime.LockOSThread()
	for r := range starts {
		r.done <- r.cmd.Start()
	}
}

// spawn starts cmd on spawner's thread.
func spawn(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	return <-done
}
