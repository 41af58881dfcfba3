//go:build !unix

package local

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func terminate(p *os.Process) error { return p.Kill() }
