package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/synth"
)

// SynthCmd synthesizes the stage's stack into a cloud assembly that the
// deploy engine, or the official CDK CLI, reads.
type SynthCmd struct {
	Stage           string `default:"${default_stage}" help:"Stage to synthesize; the stack is <app>-<stage>."`
	Out             string `name:"out" short:"o" placeholder:"DIR" help:"Cloud assembly directory (default <project>/cdk.out/<stage>: each stage keeps its own)." type:"path"`
	NoAutogenPolicy bool   `name:"no-autogen-policy" help:"Use .framework/policy.json as written instead of generating the role's policy from the source."`
	JSON            bool   `name:"json" help:"Print the result as one JSON object instead of text."`
}

// synthResult is the --json output.
type synthResult struct {
	App           string `json:"app"`
	Stage         string `json:"stage"`
	Stack         string `json:"stack"`
	AssemblyDir   string `json:"assembly_dir"`
	Template      string `json:"template"`
	ResourceCount int    `json:"resource_count"`
	Reused        bool   `json:"reused"`
	// Undeclared are the calls granted on "*", of which the text output
	// warns; [] when none.
	Undeclared []perms.UndeclaredGrant `json:"undeclared"`
	// Timings is set with --verbose (-v).
	Timings []synth.Timing `json:"timings,omitempty"`
	// Seconds is the command's wall time, set with --verbose.
	Seconds float64 `json:"seconds,omitempty"`
}

// Run synthesizes and prints the stack name, the template path and the
// number of resources, then on stderr a warning for each call the policy
// scan found that is granted on "*" (synthResult.Undeclared with --json). The first Ctrl-C (SIGINT) or SIGTERM stops it
// (exit 130, as deploy and diff).
func (c *SynthCmd) Run(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	ctx, stop := env.Context()
	defer stop()
	stdout := env.Stdout
	// Progress lines, then the result, as deploy does; --json prints one object only.
	var progress io.Writer = stdout
	if c.JSON {
		progress = nil
	}
	if err := checkStageTypo(ctx, g, nil, c.Stage); err != nil {
		return err
	}
	start := time.Now()
	res, err := env.Synth(ctx, synth.Options{
		ProjectDir: g.ProjectDir, Stage: c.Stage, OutDir: c.Out,
		NoAutogenPolicy: c.NoAutogenPolicy, Progress: progress,
	})
	if err != nil {
		// After Ctrl-C, exit 130 saying so, as deploy and diff do, rather
		// than what the interruption made of the step under way (a build's
		// context canceled, a Node.js that "does not run").
		return interruptedWhile(ctx, "building and synthesizing the app", "no stack was synthesized", err)
	}
	took := time.Since(start)
	if c.JSON {
		r := synthResult{
			App: res.App, Stage: res.Stage, Stack: res.StackName, AssemblyDir: res.AssemblyDir,
			Template: res.TemplatePath, ResourceCount: res.ResourceCount, Reused: res.Reused,
			Undeclared: res.Undeclared,
		}
		if r.Undeclared == nil {
			r.Undeclared = []perms.UndeclaredGrant{}
		}
		if g.Verbose {
			r.Timings, r.Seconds = res.Timings, took.Seconds()
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	note := ""
	if res.Reused {
		note = " (unchanged, assembly reused)"
	}
	if g.Verbose {
		writeTimings(stdout, res.Timings, took)
	}
	_, err = fmt.Fprintf(stdout, "Stack:     %s%s\nTemplate:  %s\nResources: %d\n", res.StackName, note, res.TemplatePath, res.ResourceCount)
	writeUndeclared(env.Stderr, res.Undeclared)
	return err
}

// writeUndeclared warns, one line each, of the calls the policy scan
// found that the functions are granted on "*" because they target
// nothing the app declares, saying how to declare each.
func writeUndeclared(w io.Writer, grants []perms.UndeclaredGrant) {
	var b strings.Builder
	for _, g := range grants {
		fmt.Fprintf(&b, "Warning: %s\n", g)
	}
	_, _ = io.WriteString(w, b.String())
}

// writeTimings prints one line per step of a synthesis and the total.
func writeTimings(w io.Writer, steps []synth.Timing, total time.Duration) {
	fmt.Fprintln(w, "Timings (steps that run at the same time overlap):")
	for _, s := range steps {
		fmt.Fprintf(w, "  %6.2f s  %s\n", s.Seconds, s.Step)
	}
	fmt.Fprintf(w, "  %6.2f s  total\n", total.Seconds())
}
