package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/synth"
	"github.com/framework-dev/framework/internal/wording"
)

// runHotswap is `framework deploy --hotswap` and `--watch`: it checks the
// flags and the stage, then deploys once or watches.
func (c *DeployCmd) runHotswap(g *Globals, env *Env) error {
	if c.NoHotswap && !c.Watch {
		return errors.New("--no-hotswap goes with --watch (a plain `framework deploy` never hotswaps)")
	}
	if c.Force && !c.Hotswap && !c.Watch {
		return errors.New("--force goes with --hotswap or --watch: it lets a hotswap through, and a plain deploy never hotswaps")
	}
	if err := config.CheckStageName(c.Stage); err != nil {
		return fmt.Errorf("stage %q: %w", c.Stage, err)
	}
	if !c.NoHotswap && names.LooksLikeProduction(c.Stage) && !c.Force {
		return fmt.Errorf("stage %s is named like a production stage: hotswap refuses it, because it changes functions outside CloudFormation (no change set, no rollback) and leaves the stack differing from its template; deploy it with `framework deploy --stage %s`, or pass --force if this stage is not production", c.Stage, c.Stage)
	}
	ctx, stop := env.Context()
	defer stop()
	human := humanEnv(env, c.JSON)
	e, err := newEngine(ctx, c.AWSFlags, human, c.Stage, true)
	if err != nil {
		return err
	}
	if err := checkStageTypo(ctx, g, e, c.Stage); err != nil {
		return err
	}
	recDir, err := deploy.RecordDir(env.Getenv(names.EnvCacheDir))
	if err != nil {
		return err
	}
	if c.Watch {
		return c.watch(ctx, g, env, human, e, recDir)
	}
	return deployError(ctx, c.deployOnce(ctx, g, env, human, env.Synth, e, recDir, time.Now()))
}

// deployOnce synthesizes and plans the stage, then hotswaps it when the
// plan allows (unless --no-hotswap) and deploys it fully otherwise, saying
// why; it keeps the deploy record and prints the base URL (on human's
// stdout; with --json the result on env's). start is when the change being
// deployed was saved, for the time printed; synthesize is env.Synth, or a
// session's.
func (c *DeployCmd) deployOnce(ctx context.Context, g *Globals, env, human *Env, synthesize func(context.Context, synth.Options) (*synth.Result, error), e *deploy.Engine, recDir string, start time.Time) error {
	stdout := human.Stdout
	res, err := synthesize(ctx, synth.Options{ProjectDir: g.ProjectDir, Stage: c.Stage, NoAutogenPolicy: c.NoAutogenPolicy, Progress: stdout})
	if err != nil {
		return synthError(ctx, err)
	}
	plan, err := planStage(ctx, g, e, res, c.Stage, c.Wait, stdout)
	if err != nil {
		return err
	}
	if plan.Action == deploy.Refuse {
		return errors.New(plan.Reason)
	}
	deployed, err := deployedCode(recDir, plan)
	if err != nil {
		return err
	}
	if !c.NoHotswap {
		hr, err := e.Hotswap(ctx, plan, deploy.HotswapOptions{Deployed: deployed, Force: c.Force})
		var he *deploy.HotswapError
		switch {
		case errors.As(err, &he):
			fmt.Fprintf(stdout, "Hotswap not possible: %s. Deploying fully.\n", he.Reason)
		case err != nil:
			if hr != nil && len(hr.Updated) > 0 {
				if serr := deploy.SaveRecord(recDir, plan.Env, plan.Assembly.StackName, merge(deployed, hr.Deployed)); serr != nil {
					err = errors.Join(err, serr)
				}
			}
			return err
		default:
			if err := deploy.SaveRecord(recDir, plan.Env, plan.Assembly.StackName, merge(deployed, hr.Deployed)); err != nil {
				return err
			}
			if len(hr.Updated) == 0 {
				fmt.Fprintf(stdout, "No changes: stack %s matches its template and its functions run the new code.\n", plan.Assembly.StackName)
			} else {
				fmt.Fprintf(stdout, "Hotswapped %d %s of stack %s in %s since the change (%s of it uploading and updating).\n", len(hr.Updated), wording.Plural(len(hr.Updated), "function", "functions"), plan.Assembly.StackName, wording.Seconds(time.Since(start)), wording.Seconds(hr.Elapsed))
				fmt.Fprintf(stdout, "Note: stack %s now differs from its template: its functions run code CloudFormation has not deployed. The next full `framework deploy --stage %s` reconciles it.\n", plan.Assembly.StackName, c.Stage)
			}
			r := newDeployResult(c.Stage, plan.Assembly.StackName, e.Region, "unchanged", plan.Stack.Outputs, start)
			if len(hr.Updated) > 0 {
				r.Action = "hotswapped"
				for _, u := range hr.Updated {
					r.Hotswapped = append(r.Hotswapped, u.FunctionName)
				}
			}
			return c.finish(env, human, r)
		}
	}
	out, err := e.Deploy(ctx, plan, c.deployOptions(ctx, g, human, res))
	if err != nil {
		return err
	}
	fns, err := e.Reconcile(ctx, plan, deployed)
	if err != nil {
		return err
	}
	if err := deploy.SaveRecord(recDir, plan.Env, plan.Assembly.StackName, fns); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Deployed stack %s in %s since the change.\n", plan.Assembly.StackName, wording.Seconds(time.Since(start)))
	return c.finish(env, human, newDeployResult(c.Stage, plan.Assembly.StackName, e.Region, fullAction(out), out.Outputs, start))
}

// recordDeploy runs after a plain `framework deploy`: functions still
// running code hotswapped from this machine get their template's
// (Reconcile), and the deploy record is written with the code the deploy
// put in place, so that the next `deploy --hotswap` of a code change can
// check the functions against it and update them through the Lambda API.
func recordDeploy(ctx context.Context, env *Env, e *deploy.Engine, plan *deploy.Plan) error {
	recDir, err := deploy.RecordDir(env.Getenv(names.EnvCacheDir))
	if err != nil {
		return nil // no place for records: the next hotswap deploys fully, as without one
	}
	deployed, err := deployedCode(recDir, plan)
	if err != nil {
		return err
	}
	fns, err := e.Reconcile(ctx, plan, deployed)
	if err != nil {
		return err
	}
	return deploy.SaveRecord(recDir, plan.Env, plan.Assembly.StackName, fns)
}

// printURL prints the stage's base URL from its stack outputs, and the
// custom domain's URL when the stage has one: what every deploy (full,
// hotswap or watched) ends with.
func printURL(w io.Writer, stack string, outputs map[string]string) error {
	url := outputs[names.OutputEndpointURL]
	if url == "" {
		return fmt.Errorf("stack %s has no %s output: was it synthesized by this framework?", stack, names.OutputEndpointURL)
	}
	// Which front door answers at the URL: its outputs tell.
	label := "Rest API URL"
	switch {
	case outputs[names.OutputHTTPAPIID] != "":
		label = "HTTP API URL"
	case outputs[names.OutputRestAPIID] == "":
		label = "Function URL"
	}
	fmt.Fprintf(w, "%s: %s\n", label, url)
	if domain := outputs[names.OutputCustomDomainURL]; domain != "" {
		fmt.Fprintf(w, "Custom domain URL: %s\n", domain)
	}
	if ws := outputs[names.OutputWebSocketURL]; ws != "" {
		fmt.Fprintf(w, "WebSocket URL: %s\n", ws)
	}
	return nil
}

// merge returns the record old updated with new.
func merge(old, new map[string]deploy.DeployedCode) map[string]deploy.DeployedCode {
	out := map[string]deploy.DeployedCode{}
	for k, v := range old {
		out[k] = v
	}
	for k, v := range new {
		out[k] = v
	}
	return out
}

// deployedCode returns the code the deploy record in recDir says the
// functions of plan's stack run, or nil when there is no record.
func deployedCode(recDir string, plan *deploy.Plan) (map[string]deploy.DeployedCode, error) {
	rec, err := deploy.LoadRecord(recDir, plan.Env, plan.Assembly.StackName)
	if err != nil || rec == nil {
		return nil, err
	}
	return rec.Functions, nil
}
