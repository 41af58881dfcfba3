//go:build unix

package nodeshim

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	Run() // when started as the shim by the test below
	os.Exit(m.Run())
}

// TestShimRunsNodeInItsOwnProcessGroup starts this test binary as the shim
// with /bin/sh standing for node: the shell must get the arguments, run in
// a process group of its own (so a terminal's Ctrl-C to ours misses it) and
// not see the shim's variable.
func TestShimRunsNodeInItsOwnProcessGroup(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-c", `echo "$$ $(ps -o pgid= -p $$) ${FRAMEWORK_NODE_SHIM:-unset}"`)
	cmd.Env = append(os.Environ(), EnvNode+"=/bin/sh")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("shim: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		t.Fatalf("shim printed %q", out)
	}
	pid, _ := strconv.Atoi(f[0])
	pgid, _ := strconv.Atoi(f[1])
	if pid != cmd.Process.Pid {
		t.Errorf("node ran as pid %d, want the shim's own pid %d (exec, not a child)", pid, cmd.Process.Pid)
	}
	if pgid != pid || pgid == syscall.Getpgrp() {
		t.Errorf("node's process group is %d (ours %d), want a group of its own (%d)", pgid, syscall.Getpgrp(), pid)
	}
	if f[2] != "unset" {
		t.Errorf("node saw %s=%s", EnvNode, f[2])
	}
}

func TestEnableRespectsTheUsersChoice(t *testing.T) {
	t.Setenv("JSII_NODE", "/opt/node")
	t.Setenv(EnvNode, "")
	Enable("/usr/bin/node")
	if os.Getenv("JSII_NODE") != "/opt/node" || os.Getenv(EnvNode) != "" {
		t.Errorf("Enable overrode JSII_NODE set by the user")
	}
	t.Setenv("JSII_NODE", "")
	Enable("/usr/bin/node")
	self, _ := os.Executable()
	if os.Getenv("JSII_NODE") != self || os.Getenv(EnvNode) != "/usr/bin/node" {
		t.Errorf("Enable: JSII_NODE=%q %s=%q", os.Getenv("JSII_NODE"), EnvNode, os.Getenv(EnvNode))
	}
}
