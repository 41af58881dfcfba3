//go:build unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program that starts a child of its own (as go build starts the linker)
// and is cancelled must take the child with it: otherwise the child goes on
// writing into a directory the CLI is removing.
func TestCancelEndsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "written-after-cancel")
	ctx, cancel := context.WithCancel(context.Background())
	// The child writes the file a second after the parent was cancelled.
	cmd := exec.CommandContext(ctx, "sh", "-c", `(sleep 1.5; echo late > "$1") & wait`, "sh", mark)
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	_ = cmd.Wait()
	if alive(cmd.Process.Pid) {
		t.Fatal("a member of the group still runs after Wait returned")
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the cancelled program's child went on and wrote its file")
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
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; {
		if b, err := os.ReadFile(started); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else if time.Now().After(deadline) {
			t.Fatal("the child in its own group never started")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
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
