//go:build unix && !linux

package local

import "syscall"

func withParentDeathSignal(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }
