//go:build unix

package nodeshim

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestKillStopsTheShimmedProcess: the shim records the process id it
// execs under, and Kill ends that process (a stand-in for Node.js busy
// loading the CDK) and waits for it, so that its files can go.
func TestKillStopsTheShimmedProcess(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	if Kill() {
		t.Fatal("Kill reported a process before any was started")
	}
	cmd := exec.Command(os.Args[0], "-c", "echo started; exec sleep 60")
	cmd.Env = append(os.Environ(), EnvNode+"=/bin/sh", EnvPIDFile+"="+pidFile())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	if _, err := out.Read(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	if !Kill() {
		t.Fatal("Kill found no process to stop")
	}
	select {
	case <-done: // reaped by Wait or by Kill itself
	case <-time.After(5 * time.Second):
		t.Fatal("the process still runs after Kill")
	}
	if err := syscall.Kill(cmd.Process.Pid, 0); err != syscall.ESRCH {
		t.Errorf("the process is still there after Kill (kill -0: %v)", err)
	}
	if _, err := os.Stat(pidFile()); !os.IsNotExist(err) {
		t.Errorf("Kill left the process id file (%v)", err)
	}
}
