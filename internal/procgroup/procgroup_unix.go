//go:build unix

package procgroup

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

func setOwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// kill sends SIGKILL to the group; false when there is no such group.
func kill(pgid int) bool {
	return pgid > 1 && syscall.Kill(-pgid, syscall.SIGKILL) == nil
}

// alive reports whether a member of group pgid may still run: it exists
// and, where /proc tells, is not a zombie.
func alive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: only the group's end tells
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything but ")".
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) >= 3 && fields[2] == want && fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}
