//go:build !linux

package mototest

import "syscall"

// sysProcAttr puts moto in a process group of its own, which stop kills
// whole.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
