// Package nodeshim keeps a terminal's Ctrl-C away from the Node.js process
// that the AWS CDK's Go bindings (jsii) start, so that interrupting
// `framework deploy` or `diff` is handled by the CLI alone, with its own
// message, and not also by Node.js (which jsii would report as a crash).
//
// jsii starts Node.js as the command named by JSII_NODE. Enable points it at
// the running program with EnvNode naming the real node; that program's
// main calls Run first, which moves the process into a process group of its
// own and replaces it with node: same process, same pipes to jsii, but no
// longer in the terminal's foreground group. Node.js still ends when the
// CLI does, as its input from jsii closes.
//
// The shim also records the process id under which Node.js runs, so that a
// CLI ending while the CDK is still busy (a build failed while Node.js was
// loading the CDK, a second Ctrl-C) can stop it with Kill before removing
// its files, instead of leaving it writing into them.
package nodeshim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvNode names the real node executable when the program runs as the shim.
const EnvNode = "FRAMEWORK_NODE_SHIM"

// EnvPIDFile names the file the shim writes its process id to (Node.js's,
// once it has replaced itself).
const EnvPIDFile = "FRAMEWORK_NODE_PIDFILE"

// Run returns at once unless this process was started as the shim; then it
// execs node with the same arguments and never returns.
func Run() {
	node := os.Getenv(EnvNode)
	if node == "" {
		return
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		// Best effort: without it, Kill cannot stop this Node.js early.
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvNode+"=") && !strings.HasPrefix(kv, EnvPIDFile+"=") {
			env = append(env, kv)
		}
	}
	err := execInOwnGroup(node, append([]string{node}, os.Args[1:]...), env)
	fmt.Fprintf(os.Stderr, "framework: cannot start Node.js (%s) for the AWS CDK: %v\n", node, err)
	os.Exit(127)
}

// Enable makes the next Node.js process jsii starts go through the running
// program (whose main must call Run first), with node the real executable.
// It does nothing where process groups do not exist, or when the user chose
// the runtime with JSII_NODE or JSII_RUNTIME.
func Enable(node string) {
	if !supported || node == "" || os.Getenv("JSII_NODE") != "" || os.Getenv("JSII_RUNTIME") != "" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	os.Setenv(EnvNode, node)
	os.Setenv(EnvPIDFile, pidFile())
	os.Setenv("JSII_NODE", self)
}

// pidFile is where the shims of this process record Node.js's process id.
func pidFile() string { return pidFileOf(os.Getpid()) }

// pidFileOf is where the shims of the process pid record Node.js's process
// id (in the temporary directory, which that process shares with ours).
func pidFileOf(pid int) string {
	return filepath.Join(os.TempDir(), "framework-node-"+strconv.Itoa(pid)+".pid")
}

// Forget removes the record of a Node.js process that has ended.
func Forget() { os.Remove(pidFile()) }

// Kill stops the Node.js process last started through the shim, if it is
// still running, and returns once it has ended (or after two seconds). It
// reports whether there was one to stop.
func Kill() bool { return KillOf(os.Getpid()) }

// KillOf is Kill for the Node.js process that the process pid (a child
// of ours that enabled the shim, sharing our temporary directory) started.
func KillOf(pid int) bool {
	f := pidFileOf(pid)
	b, err := os.ReadFile(f)
	if err != nil {
		return false
	}
	os.Remove(f)
	node, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || node <= 1 {
		return false
	}
	return kill(node)
}
