//go:build !linux

package mototest

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts moto in a process group of its own, which stop kills
// whole.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// spawn starts cmd.
func spawn(cmd *exec.Cmd) error { return cmd.Start() }
