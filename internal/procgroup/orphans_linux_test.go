//go:build linux

package procgroup

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A child whose parent ended first (the engine gone on Ctrl-C, its go list
// still running in a group of its own) is still found and killed.
func TestKillDescendantsEndsOrphans(t *testing.T) {
	if !AdoptOrphans() {
		t.Fatal("prctl(PR_SET_CHILD_SUBREAPER) failed")
	}
	started := filepath.Join(t.TempDir(), "started")
	// sh ends at once; the child it started in a new session is orphaned.
	cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; sleep 30' sh "$1" & exit 0`, "sh", started)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := startedPID(t, started)
	if !alive(pid) {
		t.Fatal("the orphan ended by itself: the test proves nothing")
	}
	KillDescendants()
	if alive(pid) {
		t.Fatalf("the orphan %d still runs after KillDescendants", pid)
	}
}

// A program whose child runs in a process group of its own (as the engine
// runs go build, and go build the compiler) is killed with that child:
// otherwise the child, handed to init, goes on writing into the run's
// temporary directory after the CLI removed it.
func TestKillEndsTheGroupsBelow(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	// setsid puts the child in a new session and group, which a kill of
	// the parent's group does not reach.
	cmd := exec.CommandContext(context.Background(), "sh", "-c", `setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; sleep 30' sh "$1" & wait`, "sh", started)
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	pid := startedPID(t, started)
	if pgrp, err := syscall.Getpgid(pid); err != nil || pgrp == cmd.Process.Pid {
		t.Fatalf("the child runs in group %d (%v): the test needs a group of its own", pgrp, err)
	}
	if !Kill(cmd.Process.Pid) {
		t.Fatal("Kill could not signal the group")
	}
	if alive(pid) {
		t.Fatalf("the child %d in a group of its own still runs after Kill returned", pid)
	}
}

// startedPID waits for the file at path in which a started child writes
// its process id (whole: it is renamed into place), and returns the id.
func startedPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if b, err := os.ReadFile(path); err == nil {
			var pid int
			if _, err := fmt.Sscan(string(b), &pid); err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
