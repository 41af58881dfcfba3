// Package procgroup runs a child program in a process group of its own and
// ends the whole group at once.
//
// `go build` starts the compiler and the linker as children of its own;
// killing go build alone (what exec.CommandContext does when its context
// ends) leaves them running, writing into the run's temporary directory
// while the CLI removes it. Ending the group ends them too, and Kill waits
// until none of them can write any more.
package procgroup

import (
	"os/exec"
	"time"
)

// killWait is how long Kill waits for the group's members to end.
const killWait = 2 * time.Second

// Own makes cmd start in a process group of its own (a terminal's Ctrl-C
// then reaches the CLI only, which cancels cmd's context), and makes the
// end of cmd's context kill the whole group (see Kill). cmd must come from
// exec.CommandContext.
func Own(cmd *exec.Cmd) {
	setOwnGroup(cmd)
	cmd.Cancel = func() error {
		if Kill(cmd.Process.Pid) {
			return nil
		}
		return cmd.Process.Kill()
	}
}

// Kill ends the process group pgid (the id of the process that leads it)
// at once, with every process group that a member started below it (a
// go build that the engine runs in a group of its own, the compiler that
// go build starts), and waits, up to two seconds, until each member of
// them has ended or is a zombie: a zombie writes nothing more. It does not
// reap the leader, so that the exec.Cmd that started it can still Wait for
// it. It reports false where it could not signal the group (no such
// group, or a system without process groups).
func Kill(pgid int) bool {
	groups, ok := kill(pgid)
	if !ok {
		return false
	}
	for deadline := time.Now().Add(killWait); time.Now().Before(deadline) && anyAlive(groups); {
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func anyAlive(groups []int) bool {
	for _, g := range groups {
		if alive(g) {
			return true
		}
	}
	return false
}
