package synth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/nodeshim"
)

// MinNodeMajor is the oldest Node.js major version synthesis runs on: the
// one aws-cdk-lib 2.270.0 declares in its engines field (>= 20.0.0).
// jsii-runtime-go 1.139.0 itself lists 22 and 24 as supported and prints a
// large end-of-life banner on 20, which synth silences.
const MinNodeMajor = 20

// nodeInstallHint says what to install, in the one line users see.
const nodeInstallHint = "install Node.js 20 or newer (22 or 24, the LTS releases, recommended) from https://nodejs.org or your package manager"

// NodeError is a missing or unsupported Node.js, which the AWS CDK needs.
type NodeError struct {
	// Path is the node command looked for or found.
	Path string
	// Version is what `node --version` printed; empty when node is missing.
	Version string
	// Err is the underlying failure, if any.
	Err error
}

// Error is one line saying what is wrong and what to install.
func (e *NodeError) Error() string {
	if e.Version == "" {
		why := "was not found"
		if e.Err != nil && !errors.Is(e.Err, exec.ErrNotFound) {
			why = "does not run (" + e.Err.Error() + ")"
		}
		return fmt.Sprintf("synthesis runs the AWS CDK on Node.js, and `%s` %s: %s", e.Path, why, nodeInstallHint)
	}
	return fmt.Sprintf("synthesis needs Node.js %d or newer and `%s` is %s: %s", MinNodeMajor, e.Path, e.Version, nodeInstallHint)
}

// Unwrap returns the underlying failure.
func (e *NodeError) Unwrap() error { return e.Err }

// CheckNode finds the node command jsii will start (JSII_NODE, else node on
// PATH), checks its major version and silences jsii's version banners for
// it, so that users see at most one line of ours. With shim set, jsii will
// start node through the running program (Options.NodeShim). It returns the
// major version.
func CheckNode(ctx context.Context, shim bool) (int, error) {
	name := "node"
	if n := os.Getenv(nodeshim.EnvNode); n != "" {
		name = n // JSII_NODE names the shim (see Options.NodeShim)
	} else if n := os.Getenv("JSII_NODE"); n != "" {
		name = n
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return 0, &NodeError{Path: name, Err: err}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil && ctx.Err() == nil {
		// Once seen failing on a loaded machine with node present: ask again
		// before telling the user to install what they have.
		out, err = exec.CommandContext(ctx, path, "--version").Output()
	}
	if err != nil && parent.Err() != nil {
		// Interrupted (Ctrl-C): node was stopped, not found wanting.
		return 0, fmt.Errorf("checking the version of %s: %w", path, parent.Err())
	}
	if err != nil {
		return 0, &NodeError{Path: path, Err: err}
	}
	v := strings.TrimSpace(string(out))
	major, err := nodeMajor(v)
	if err != nil {
		return 0, &NodeError{Path: path, Version: v, Err: err}
	}
	if major < MinNodeMajor {
		return major, &NodeError{Path: path, Version: v}
	}
	// jsii prints a screenful for Node versions past their end of life,
	// deprecated or untested; the check above is ours to make.
	for _, k := range []string{
		"JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION",
		"JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION",
		"JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION",
	} {
		if os.Getenv(k) == "" {
			os.Setenv(k, strconv.Itoa(major))
		}
	}
	// CDK lints every synthesized template against its default CloudFormation
	// rules (warnings only, unless a feature flag makes them errors), which
	// costs about 2.5 s, most of a synth. The stage stack's shape is fixed
	// and tested; CDK_VALIDATION=true in the environment turns it back on.
	if os.Getenv("CDK_VALIDATION") == "" {
		os.Setenv("CDK_VALIDATION", "false")
	}
	if shim {
		nodeshim.Enable(path)
	}
	return major, nil
}

// nodeMajor parses "v20.20.2" into 20.
func nodeMajor(v string) (int, error) {
	s := strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, errors.New("unrecognized version " + strconv.Quote(v))
	}
	return n, nil
}
