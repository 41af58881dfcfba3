package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/local"
)

// watch is `framework deploy --watch`: a deploy of the current source
// (hotswap when it can), then one more after every batch of saved changes,
// found by the same watcher as `framework local`. A failed build or deploy
// prints its reason and the watch goes on; the first Ctrl-C ends it (while
// CloudFormation works, with the same message as an interrupted deploy).
//
// It is a flag of deploy rather than a command of its own because it is a
// deploy, repeated: the stage, the AWS flags, --yes and --force mean the
// same thing.
//
// With --json, env's stdout gets one result line per deploy (a failed one
// has action "failed"), and everything else goes to human's stdout.
func (c *DeployCmd) watch(ctx context.Context, g *Globals, env, human *Env, e *deploy.Engine, recDir string) error {
	changes, err := local.Changes(ctx, g.ProjectDir, 0, func(err error) {
		fmt.Fprintf(env.Stderr, "Watching for changes: %v\n", err)
	})
	if err != nil {
		return err
	}
	mode := "hotswapping code-only changes, deploying fully otherwise"
	if c.NoHotswap {
		mode = "deploying fully on every change"
	}
	// One engine for the whole watch: Node.js and the CDK stay loaded from
	// one change to the next.
	synthesize, end := env.session()
	defer end()
	fmt.Fprintf(human.Stdout, "Watching %s for changes to stage %s (%s); Ctrl-C stops.\n", g.ProjectDir, c.Stage, mode)
	once := func(start time.Time) error {
		err := c.deployOnce(ctx, g, env, human, synthesize, e, recDir, start)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return deployError(ctx, err)
		}
		fmt.Fprintf(env.Stderr, "Error: %s\n", strings.TrimRight(err.Error(), "\n"))
		fmt.Fprintln(human.Stdout, "Still watching: fix the cause and save to try again.")
		if c.JSON {
			r := newDeployResult(c.Stage, "", e.Region, "failed", nil, start)
			r.Error = err.Error()
			return writeJSONLine(env.Stdout, r)
		}
		return nil
	}
	if err := once(time.Now()); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(human.Stdout, "Stopped watching.")
			return nil
		case files, ok := <-changes:
			if !ok {
				fmt.Fprintln(human.Stdout, "Stopped watching.")
				return nil
			}
			start := time.Now()
			fmt.Fprintf(human.Stdout, "\nChanged: %s\n", strings.Join(files, ", "))
			if err := once(start); err != nil {
				return err
			}
		}
	}
}
