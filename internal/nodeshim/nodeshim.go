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
package nodeshim

import (
	"fmt"
	"os"
	"strings"
)

// EnvNode names the real node executable when the program runs as the shim.
const EnvNode = "FRAMEWORK_NODE_SHIM"

// Run returns at once unless this process was started as the shim; then it
// execs node with the same arguments and never returns.
func Run() {
	node := os.Getenv(EnvNode)
	if node == "" {
		return
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvNode+"=") {
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
	os.Setenv("JSII_NODE", self)
}
