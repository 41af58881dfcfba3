package procgroup

import (
	"os"
	"time"
)

// AdoptOrphans makes this process the parent of every descendant whose own
// parent ends first (Linux's child subreaper; elsewhere it does nothing and
// reports false), so that KillDescendants still finds them: a go list that
// the policy scan runs, left behind by an engine that ended on Ctrl-C,
// would otherwise be handed to init and go on writing into the run's
// temporary directory.
func AdoptOrphans() bool { return adopt() }

// KillDescendants kills every process descending from this one, with the
// process groups they lead, and waits (up to two seconds) until they have
// ended. The command has returned by then: what is still running belongs to
// nobody.
func KillDescendants() {
	groups, pids := descendants(os.Getpid())
	for _, g := range groups {
		kill(g)
	}
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
	for deadline := time.Now().Add(killWait); time.Now().Before(deadline) && (anyAlive(groups) || anyRunning(pids)); {
		time.Sleep(5 * time.Millisecond)
	}
}
