// Package synth turns a project (its app's route manifest, its Lambda
// package, its configuration and its policy) into a cloud assembly holding
// the stage's CloudFormation stack `<app>-<stage>`: the input of `framework
// synth`, `diff` and `deploy`.
//
// Synth prepares the construct's inputs in Go (constructs.Prepare: the
// route manifest, the Linux package, the policy and the stage's
// configuration, tags included), then runs the AWS CDK (stacks.New on
// constructs.App) through jsii, which needs Node.js 20 or newer; a missing or older node is
// a one-line *NodeError. jsii's Node version banners are silenced, and so
// is CDK's default template lint (CDK_VALIDATION=false unless the
// environment sets it), which would cost seconds on every synth.
//
// The assembly directory records what it was made from (KeyFile): a synth
// whose manifest, package hash, configuration, stage, policy and framework
// build are all unchanged keeps the assembly and returns Result.Reused.
package synth

import (
	"context"
	"io"

	"github.com/framework-dev/framework/internal/policy"
)

// Options selects what to synthesize and where.
type Options struct {
	// ProjectDir is the project's root, the directory holding .framework/.
	ProjectDir string
	// Stage is the stage name; empty means names.DefaultStage ("dev").
	Stage string
	// OutDir is the cloud assembly directory; empty means <ProjectDir>/cdk.out.
	OutDir string
	// NoAutogenPolicy uses .framework/policy.json as written by hand instead
	// of generating the policy from the app's AWS SDK calls, whatever the
	// configuration's autogen_policy says.
	NoAutogenPolicy bool
	// NodeShim starts the CDK's Node.js through the running program, in a
	// process group of its own, so that a terminal's Ctrl-C reaches only
	// the program. Set it only in a program whose main calls nodeshim.Run
	// first (the framework CLI).
	NodeShim bool
	// Progress, when not nil, receives one human-readable line per step
	// ("Building the Lambda package...", "Synthesizing dev stack..."). Nil is silent.
	Progress io.Writer
}

// Result describes the assembly Synth wrote.
type Result struct {
	// App is the app's name from its route manifest.
	App string
	// Stage is the stage synthesized.
	Stage string
	// StackName is the stack's name, <app>-<stage>.
	StackName string
	// AssemblyDir is the cloud assembly directory (holding manifest.json).
	AssemblyDir string
	// TemplatePath is the stack's template file inside AssemblyDir.
	TemplatePath string
	// ResourceCount is the number of resources in the template.
	ResourceCount int
	// Policy is the execution role's policy in the template, or nil when
	// the configuration has manage_role false (an existing role is used).
	Policy *policy.Document
	// Reused is true when nothing had changed since the last synth into
	// AssemblyDir and the assembly there was kept as it was.
	Reused bool
}

// synthesize is set by the implementation file of this package.
var synthesize func(ctx context.Context, o Options) (*Result, error)

// Synth synthesizes the stage's stack of the project into a cloud assembly.
func Synth(ctx context.Context, o Options) (*Result, error) {
	return synthesize(ctx, o)
}
