package cli

import (
	"errors"
	"fmt"

	"github.com/framework-dev/framework/internal/deploy"
)

// DestroyCmd deletes a stage's stack and with it the stage's REST API,
// function and role, after asking (--yes answers for a script). The assets
// bucket, shared by every app of the account and region, stays.
type DestroyCmd struct {
	Stage string `default:"${default_stage}" help:"Stage to delete."`
	Yes   bool   `short:"y" help:"Do not ask for confirmation (needed when stdin is not a terminal)."`
	AWSFlags
}

// Run asks for confirmation, deletes the stack and waits for the deletion.
func (c *DestroyCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	stdout := env.Stdout
	name, err := stackName(ctx, g.ProjectDir, c.Stage)
	if err != nil {
		return err
	}
	e, err := newEngine(ctx, c.AWSFlags, env, true)
	if err != nil {
		return err
	}
	found, err := e.Destroy(ctx, name, func(st *deploy.Stack) (bool, error) {
		if c.Yes {
			return true, nil
		}
		if !env.StdinIsTerminal() {
			return false, fmt.Errorf("refusing to delete stack %s without confirmation: stdin is not a terminal; pass --yes", name)
		}
		return ask(env, fmt.Sprintf("Delete stack %s (the REST API, function and role of stage %s) in %s? [y/N]: ", name, c.Stage, e.Region), false)
	})
	if err != nil {
		if errors.Is(err, deploy.ErrDeclined) {
			fmt.Fprintf(stdout, "Nothing deleted.\n")
			return nil
		}
		return deployError(ctx, err)
	}
	if !found {
		fmt.Fprintf(stdout, "Stage %s is not deployed: there is no stack %s in %s. Nothing to delete.\n", c.Stage, name, e.Region)
		return nil
	}
	fmt.Fprintf(stdout, "Deleted stage %s (stack %s).\n", c.Stage, name)
	return nil
}
