// Package synth turns a project (its app's route manifest, its Lambda
// package, its configuration and its policy) into a cloud assembly holding
// the stage's CloudFormation stack `<app>-<stage>`: the input of `framework
// synth`, `diff` and `deploy`.
//
// The work is done by the synthesis engine (internal/engine, the program
// cli/framework-synth), the only part of the framework that links the AWS
// CDK. This package links none of it: Synth finds the engine (the one
// FRAMEWORK_ENGINE names, else the one built for this CLI in the user's
// cache directory, building it once when missing) and runs it as a child
// process that reads the Options as JSON on stdin and answers with JSON
// lines on stdout (see Request and Reply). So the commands that never
// synthesize (local, new-project, invoke --local, openapi, url, logs,
// destroy) neither build nor load the CDK.
package synth

import (
	"io"

	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// Options selects what to synthesize and where.
type Options struct {
	// ProjectDir is the project's root, the directory holding .framework/.
	ProjectDir string
	// Stage is the stage name; empty means names.DefaultStage ("dev").
	Stage string
	// OutDir is the cloud assembly directory; empty means the stage's own,
	// <ProjectDir>/cdk.out/<stage>, so that each stage keeps its assembly.
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
	Progress io.Writer `json:"-"`
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
	// Undeclared are the calls the policy scan found that the functions
	// are granted on "*", their target being nothing the app declares
	// (perms.UndeclaredGrant): `framework synth` warns of each.
	Undeclared []perms.UndeclaredGrant
	// Reused is true when nothing had changed since the last synth into
	// AssemblyDir and the assembly there was kept as it was.
	Reused bool
	// Timings is how long each step took, in the order they ended; steps
	// that run at the same time overlap (`framework synth -v` prints them).
	Timings []Timing
}

// Timing is the duration of one step of a synthesis.
type Timing struct {
	// Step says what was done ("go build for linux/arm64 (Lambda package)").
	Step string `json:"step"`
	// Seconds is how long it took.
	Seconds float64 `json:"seconds"`
}
