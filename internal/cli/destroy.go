package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/framework-dev/framework/internal/deploy"
)

// DestroyCmd deletes a stage's stack and with it the stage's REST API,
// functions, role and declared resources, after saying which resources
// holding data it deletes and which it keeps (retained, in a stage that
// looks like production) and asking (--yes answers for a script). The
// assets bucket, shared by every app of the account and region, stays.
type DestroyCmd struct {
	Stage string `default:"${default_stage}" help:"Stage to delete."`
	Yes   bool   `short:"y" help:"Do not ask for confirmation (needed when stdin is not a terminal)."`
	AWSFlags
	JSON bool `name:"json" help:"Print the result as one JSON object on stdout: stage, stack, region, result (deleted, not_deployed, declined), and the resources holding data deleted and kept. The rest goes to stderr."`
}

// destroyResult is what destroy --json prints.
type destroyResult struct {
	Stage  string `json:"stage"`
	Stack  string `json:"stack"`
	Region string `json:"region"`
	// Result is "deleted", "not_deployed" (there was no stack) or
	// "declined" (the question was answered no).
	Result string `json:"result"`
	// Deleted and Kept are the stack's resources holding data deleted
	// with it and kept (retained), when it was deleted.
	Deleted []dataResource `json:"deleted_data,omitempty"`
	Kept    []dataResource `json:"kept_data,omitempty"`
}

// dataResource is a resource holding data in destroy --json.
type dataResource struct {
	Kind       string `json:"kind"`
	Type       string `json:"type"`
	LogicalID  string `json:"logical_id"`
	PhysicalID string `json:"physical_id"`
	// Declared is the name the app declared it by, when it did.
	Declared string `json:"declared,omitempty"`
}

// Run asks for confirmation, deletes the stack and waits for the deletion.
func (c *DestroyCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	human := humanEnv(env, c.JSON)
	stdout := human.Stdout
	name, e, err := stageStack(ctx, g, human, c.Stage, c.AWSFlags, true)
	if err != nil {
		return err
	}
	var data []deploy.StackResource
	found, err := e.Destroy(ctx, name, func(st *deploy.Stack) (bool, error) {
		var err error
		if data, err = e.DataResources(ctx, st); err != nil {
			return false, err
		}
		writeDataFate(stdout, data)
		if c.Yes {
			return true, nil
		}
		if !env.StdinIsTerminal() {
			return false, fmt.Errorf("refusing to delete stack %s without confirmation: stdin is not a terminal; pass --yes", name)
		}
		return ask(ctx, human, fmt.Sprintf("Delete stack %s (the REST API, functions, role and resources of stage %s) in %s? [y/N]: ", name, c.Stage, e.Region), false)
	})
	if err != nil {
		if errors.Is(err, deploy.ErrDeclined) {
			fmt.Fprintf(stdout, "Nothing deleted.\n")
			return c.result(env, destroyResult{Stage: c.Stage, Stack: name, Region: e.Region, Result: "declined"})
		}
		return deployError(ctx, err)
	}
	if !found {
		fmt.Fprintf(stdout, "Stage %s is not deployed: there is no stack %s in %s. Nothing to delete.\n", c.Stage, name, e.Region)
		return c.result(env, destroyResult{Stage: c.Stage, Stack: name, Region: e.Region, Result: "not_deployed"})
	}
	fmt.Fprintf(stdout, "Deleted stage %s (stack %s).\n", c.Stage, name)
	res := destroyResult{Stage: c.Stage, Stack: name, Region: e.Region, Result: "deleted"}
	var kept []deploy.StackResource
	for _, r := range data {
		d := dataResource{Kind: r.Kind(), Type: r.Type, LogicalID: r.LogicalID, PhysicalID: r.PhysicalID, Declared: r.Declared}
		if r.Retained {
			kept = append(kept, r)
			res.Kept = append(res.Kept, d)
		} else {
			res.Deleted = append(res.Deleted, d)
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(stdout, "Kept (retained) with their data:\n")
		for _, r := range kept {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
		fmt.Fprintf(stdout, "They are no longer part of any stack: delete them in the AWS console or with the AWS CLI when you no longer need them. A new deploy of stage %s creates new, empty ones.\n", c.Stage)
	}
	return c.result(env, res)
}

// result prints r on stdout with --json.
func (c *DestroyCmd) result(env *Env, r destroyResult) error {
	if !c.JSON {
		return nil
	}
	return writeJSONLine(env.Stdout, r)
}

// writeDataFate says, before a stack is deleted, what becomes of its
// resources holding data: deleted with what they hold, or kept.
func writeDataFate(w io.Writer, data []deploy.StackResource) {
	for _, r := range data {
		if r.Retained {
			fmt.Fprintf(w, "Keeps %s and its data (retained).\n", r)
		} else {
			fmt.Fprintf(w, "DELETES %s and everything it holds.\n", r)
		}
	}
}
