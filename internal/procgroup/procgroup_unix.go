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

// kill sends SIGKILL to group pgid and to every group below it: the
// groups of the processes that its members started, and theirs in turn
// (read from /proc where there is one). They are found before any is
// killed: a killed parent's children are handed to init, and the link is
// lost. It returns the groups signalled; false when pgid is no group.
func kill(pgid int) ([]int, bool) {
	if pgid <= 1 {
		return nil, false
	}
	groups := groupsBelow(pgid)
	if syscall.Kill(-pgid, syscall.SIGKILL) != nil {
		return nil, false
	}
	for _, g := range groups[1:] {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	return groups, true
}

// proc is what /proc/PID/stat tells of a process.
type proc struct {
	ppid, pgrp int
	state      string
}

// procs reads every process's parent, group and state from /proc; nil
// where there is no /proc.
func procs() map[int]proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything but ")".
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgrp, _ := strconv.Atoi(fields[2])
		out[pid] = proc{ppid: ppid, pgrp: pgrp, state: fields[0]}
	}
	return out
}

// groupsBelow returns pgid, then the groups of the processes descending
// from its members, never this process's own group.
func groupsBelow(pgid int) []int {
	all := procs()
	own := syscall.Getpgrp()
	in := map[int]bool{pgid: true}
	groups := []int{pgid}
	for grew := true; grew; {
		grew = false
		for _, p := range all {
			if in[p.pgrp] || p.pgrp <= 1 || p.pgrp == own {
				continue
			}
			if parent, ok := all[p.ppid]; ok && in[parent.pgrp] {
				in[p.pgrp] = true
				groups = append(groups, p.pgrp)
				grew = true
			}
		}
	}
	return groups
}

// alive reports whether a member of group pgid may still run: it exists
// and, where /proc tells, is not a zombie.
func alive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	all := procs()
	if all == nil {
		return true // no /proc: only the group's end tells
	}
	for _, p := range all {
		if p.pgrp == pgid && p.state != "Z" && p.state != "X" {
			return true
		}
	}
	return false
}

// descendants returns the process groups (other than this process's own)
// of the processes descending from pid, and the pids of those descendants
// that are in this process's own group.
func descendants(pid int) (groups, pids []int) {
	all := procs()
	own := syscall.Getpgrp()
	below := map[int]bool{pid: true}
	for grew := true; grew; {
		grew = false
		for p, pr := range all {
			if !below[p] && below[pr.ppid] {
				below[p], grew = true, true
			}
		}
	}
	seen := map[int]bool{}
	for p := range below {
		pr, ok := all[p]
		switch {
		case p == pid || !ok || pr.state == "Z":
		case pr.pgrp == own || pr.pgrp <= 1:
			pids = append(pids, p)
		case !seen[pr.pgrp]:
			seen[pr.pgrp] = true
			groups = append(groups, pr.pgrp)
		}
	}
	return groups, pids
}

// anyRunning reports whether one of pids still runs (is not a zombie).
func anyRunning(pids []int) bool {
	all := procs()
	for _, p := range pids {
		if pr, ok := all[p]; ok && pr.state != "Z" && pr.state != "X" {
			return true
		}
	}
	return false
}
