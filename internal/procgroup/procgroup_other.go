//go:build !unix

package procgroup

import "os/exec"

func setOwnGroup(*exec.Cmd) {}

// kill cannot end a group here: exec's own cancellation kills the leader.
func kill(int) ([]int, bool) { return nil, false }

func alive(int) bool { return false }

func descendants(int) (groups, pids []int) { return nil, nil }

func anyRunning([]int) bool { return false }
