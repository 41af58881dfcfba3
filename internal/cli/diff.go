package cli

import (
	"fmt"
	"io"

	"github.com/framework-dev/framework/internal/synth"
)

// DiffCmd shows what a deploy would change: the synthesized stack against
// the deployed one.
type DiffCmd struct {
	Stage           string `default:"${default_stage}" help:"Stage to compare."`
	NoAutogenPolicy bool   `name:"no-autogen-policy" help:"Synthesize with .framework/policy.json as written, as deploy --no-autogen-policy would."`
	Fail            bool   `help:"Exit with code 1 when there are differences."`
	JSON            bool   `name:"json" help:"Print the differences as JSON."`
	AWSFlags
}

// Run synthesizes the stage, plans its deploy as `framework deploy` would
// and prints the plan: the differences with the deployed stack (resources,
// routes, IAM statements, and which resources CloudFormation would replace,
// from a change set created, described and deleted, never executed), then
// what the deploy would do.
func (c *DiffCmd) Run(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	ctx, stop := env.Context()
	defer stop()
	stdout := env.Stdout
	e, err := newEngine(ctx, c.AWSFlags, env, c.Stage, !c.JSON)
	if err != nil {
		return err
	}
	if err := checkStageTypo(ctx, g, e, c.Stage); err != nil {
		return err
	}
	progress := stdout
	if c.JSON {
		progress = io.Discard
	}
	res, err := env.Synth(ctx, synth.Options{ProjectDir: g.ProjectDir, Stage: c.Stage, NoAutogenPolicy: c.NoAutogenPolicy, Progress: progress})
	if err != nil {
		return synthFailed(ctx, "diff", "nothing was compared", err)
	}
	plan, err := planStage(ctx, g, e, res, c.Stage, false, progress)
	if err != nil {
		return interrupted(ctx, err)
	}
	r, err := e.Diff(ctx, plan)
	if err != nil {
		return interrupted(ctx, err)
	}
	if c.JSON {
		err = r.WriteJSON(stdout)
	} else {
		r.Color = useColor(env)
		err = r.WriteText(stdout)
		if err == nil {
			_, err = fmt.Fprintln(stdout, plan.Summary())
		}
	}
	if err != nil {
		return err
	}
	if c.Fail && !r.Empty() {
		return &ExitError{Code: 1, Err: fmt.Errorf("stack %s differs from the deployed one (--fail)", res.StackName)}
	}
	return nil
}
