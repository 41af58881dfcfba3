package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/framework-dev/framework/internal/synth"
)

// DiffCmd shows what a deploy would change: the synthesized stack against
// the deployed one.
type DiffCmd struct {
	Stage           string `default:"dev" help:"Stage to compare."`
	NoAutogenPolicy bool   `name:"no-autogen-policy" help:"Synthesize with .framework/policy.json as written, as deploy --no-autogen-policy would."`
	Fail            bool   `help:"Exit with code 1 when there are differences."`
	JSON            bool   `name:"json" help:"Print the differences as JSON."`
	AWSFlags
}

// Run synthesizes the stage and prints the differences with the deployed
// stack: resources, routes, IAM statements, and which resources
// CloudFormation would replace (from a change set created, described and
// deleted, never executed).
func (c *DiffCmd) Run(g *Globals, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e, err := newEngine(ctx, c.AWSFlags, io.Discard)
	if err != nil {
		return err
	}
	progress := stdout
	if c.JSON {
		progress = io.Discard
	}
	res, err := synthesize(ctx, synth.Options{ProjectDir: g.ProjectDir, Stage: c.Stage, NoAutogenPolicy: c.NoAutogenPolicy, Progress: progress})
	if err != nil {
		return interrupted(ctx, fmt.Errorf("diff: %w", err))
	}
	r, err := e.Diff(ctx, res.AssemblyDir, res.StackName)
	if err != nil {
		return interrupted(ctx, err)
	}
	if c.JSON {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if c.Fail && !r.Empty() {
		return &ExitError{Code: 1, Err: fmt.Errorf("stack %s differs from the deployed one (--fail)", res.StackName)}
	}
	return nil
}
