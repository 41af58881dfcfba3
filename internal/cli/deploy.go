package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/diff"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/synth"
)

// AWSFlags are the flags of the commands that call AWS. Credentials and
// region otherwise come from the AWS SDK's default chain: environment
// (AWS_ACCESS_KEY_ID, AWS_REGION, AWS_PROFILE, ...), ~/.aws/config and
// ~/.aws/credentials (section default), SSO.
type AWSFlags struct {
	Profile string `help:"AWS profile from ~/.aws/config and ~/.aws/credentials (default: AWS_PROFILE, else default)."`
	Region  string `help:"AWS region (default: AWS_REGION, else the profile's region)."`
}

// DeployCmd deploys the app to a stage: synthesis, a plan of what the
// deploy does, the user's confirmation when the function's IAM policy
// changes, then the plan carried out by the deploy engine.
type DeployCmd struct {
	Stage           string `default:"${default_stage}" help:"Stage to deploy; its stack is <app>-<stage>."`
	NoAutogenPolicy bool   `name:"no-autogen-policy" help:"Use .framework/policy.json as written instead of generating the policy from the source."`
	Yes             bool   `short:"y" help:"Answer yes to the confirmations: IAM permissions that change, resources holding data that are replaced or deleted (needed when stdin is not a terminal)."`
	AWSFlags
	Hotswap   bool `help:"When only function code changed, update the functions through the Lambda API instead of CloudFormation (seconds); otherwise deploy fully, saying why."`
	Watch     bool `help:"Keep running: rebuild on every saved change and hotswap it, deploying fully when a hotswap cannot carry the change."`
	NoHotswap bool `name:"no-hotswap" help:"With --watch: deploy fully on every change."`
	Force     bool `help:"Hotswap a stage named like production (${production_stages}), or functions whose code someone else changed."`
	Wait      bool `help:"When another operation is running on the stage's stack (a deploy from elsewhere, a deletion), wait for it to finish, then deploy, instead of refusing."`
	JSON      bool `name:"json" help:"Print the result as one JSON object on stdout (with --watch, one line per deploy): stage, stack, region, action (created, updated, unchanged, hotswapped, failed), url, outputs, seconds. Progress and questions go to stderr."`
}

// Run synthesizes the stage's stack, plans and executes its deploy, and
// prints the base URL.
func (c *DeployCmd) Run(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	if c.Hotswap || c.Watch || c.NoHotswap || c.Force {
		return c.runHotswap(g, env)
	}
	ctx, stop := env.Context()
	defer stop()
	start := time.Now()
	human := humanEnv(env, c.JSON)
	e, err := newEngine(ctx, c.AWSFlags, human, c.Stage, true)
	if err != nil {
		return err
	}
	if err := checkStageTypo(ctx, g, e, c.Stage); err != nil {
		return err
	}
	res, err := env.Synth(ctx, synth.Options{ProjectDir: g.ProjectDir, Stage: c.Stage, NoAutogenPolicy: c.NoAutogenPolicy, Progress: human.Stdout})
	if err != nil {
		return synthError(ctx, err)
	}
	plan, err := planStage(ctx, g, e, res, c.Stage, c.Wait, human.Stdout)
	if err != nil {
		return deployError(ctx, err)
	}
	out, err := e.Deploy(ctx, plan, c.deployOptions(ctx, g, human, res))
	if err != nil {
		return deployError(ctx, err)
	}
	if err := recordDeploy(ctx, env, e, plan); err != nil {
		return deployError(ctx, err)
	}
	return c.finish(env, human, newDeployResult(c.Stage, res.StackName, e.Region, fullAction(out), out.Outputs, start))
}

// finish ends a deploy: the base URL on the human output, and with --json
// the result on stdout.
func (c *DeployCmd) finish(env, human *Env, r deployResult) error {
	if err := printURL(human.Stdout, r.Stack, r.Outputs); err != nil {
		return err
	}
	if c.JSON {
		return writeJSONLine(env.Stdout, r)
	}
	return nil
}

// deployOptions are the options of every full deploy: confirm a change of
// the role's policy, and write .framework/policy.json just before the change
// set runs when the policy was generated. The questions end, unanswered,
// when ctx does (Ctrl-C).
func (c *DeployCmd) deployOptions(ctx context.Context, g *Globals, env *Env, res *synth.Result) deploy.Options {
	opts := deploy.Options{
		ConfirmPolicy: func(pc deploy.PolicyChange) (bool, error) {
			return c.confirmPolicy(ctx, env, pc)
		},
		ConfirmData: func(risk []diff.DataChange) (bool, error) {
			return confirmData(ctx, env, c.Yes, risk)
		},
	}
	if res.Policy != nil && !c.NoAutogenPolicy {
		opts.BeforeExecute = func() error { return writePolicy(g.ProjectDir, res.Policy) }
	}
	return opts
}

// confirmPolicy prints what the deploy changes in what the stack's roles
// may do (the IAM actions added and removed, then every permission
// statement and managed policy added and removed) and asks whether to go
// on: --yes answers yes, and without a terminal to ask on the deploy
// stops.
func (c *DeployCmd) confirmPolicy(ctx context.Context, env *Env, pc deploy.PolicyChange) (bool, error) {
	var b strings.Builder
	b.WriteString("Updating IAM policy.\n")
	if len(pc.Added) > 0 {
		b.WriteString("The following actions will be added to the execution policy:\n")
		for _, a := range pc.Added {
			b.WriteString("  + " + a + "\n")
		}
	}
	if len(pc.Removed) > 0 {
		b.WriteString("The following actions will be removed from the execution policy:\n")
		for _, a := range pc.Removed {
			b.WriteString("  - " + a + "\n")
		}
	}
	if len(pc.Changes) > 0 {
		b.WriteString("The permissions of the stack's roles change:\n")
		for _, l := range pc.Changes {
			b.WriteString("  " + l + "\n")
		}
	}
	io.WriteString(env.Stdout, b.String())
	if c.Yes {
		return true, nil
	}
	if !env.StdinIsTerminal() {
		return false, errors.New("the permissions of the stack's IAM roles change (see above) and stdin is not a terminal to confirm it: run deploy on a terminal, or pass --yes to accept")
	}
	return ask(ctx, env, "Would you like to continue?  [Y/n]: ", true)
}

// errUnanswered is the error of a question interrupted (Ctrl-C) before
// it was answered.
var errUnanswered = errors.New("the question was not answered: nothing was changed")

// ask prints prompt on env's stdout and reads a yes or no answer from its
// stdin; an empty answer is def. When ctx ends first (Ctrl-C at the
// question) it returns errUnanswered at once: a question waiting for a
// line must not outlast the first Ctrl-C.
func ask(ctx context.Context, env *Env, prompt string, def bool) (bool, error) {
	type answer struct {
		yes bool
		err error
	}
	answered := make(chan answer, 1) // the reader may finish after ask returned
	go func() {
		yes, err := readAnswer(env, prompt, def)
		answered <- answer{yes, err}
	}()
	select {
	case a := <-answered:
		return a.yes, a.err
	case <-ctx.Done():
		io.WriteString(env.Stdout, "\n")
		return false, errUnanswered
	}
}

// readAnswer is ask's reading: the prompt, again after an answer that is
// neither yes nor no.
func readAnswer(env *Env, prompt string, def bool) (bool, error) {
	w := env.Stdout
	r := bufio.NewReader(env.Stdin)
	for {
		io.WriteString(w, prompt)
		line, err := r.ReadString('\n')
		answer := strings.ToLower(strings.TrimSpace(line))
		switch answer {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		case "":
			if err == nil || errors.Is(err, io.EOF) && line != "" {
				return def, nil
			}
		}
		if err != nil {
			return false, fmt.Errorf("no answer on stdin: %w", err)
		}
		io.WriteString(w, "Please answer y or n.\n")
	}
}

// writePolicy writes the project's policy file atomically: a temporary file
// renamed into place, so that an interrupted deploy leaves the previous
// file whole.
func writePolicy(projectDir string, d *policy.Document) error {
	b, err := d.Marshal()
	if err != nil {
		return err
	}
	path := filepath.Join(projectDir, names.PolicyFile)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".policy-*.json")
	if err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write policy %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write policy %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write policy %s: %w", path, err)
	}
	return nil
}

// newEngine loads the AWS configuration and returns a deploy engine for
// the stage's stack, polling as often as the environment's
// FRAMEWORK_POLL_INTERVAL says.
// With progress it writes to env's stdout, with a live status line when
// that is a terminal; without, it writes nothing.
func newEngine(ctx context.Context, f AWSFlags, env *Env, stage string, progress bool) (*deploy.Engine, error) {
	var poll time.Duration
	if v := env.Getenv(names.EnvPollInterval); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%s=%q: want a positive duration such as 5s", names.EnvPollInterval, v)
		}
		poll = d
	}
	cfg, err := deploy.LoadConfig(ctx, f.Profile, f.Region, sdkLog(env)...)
	if err != nil {
		return nil, err
	}
	out := io.Discard
	if progress {
		out = env.Stdout
	}
	e := deploy.New(cfg, out)
	e.Stage = stage
	e.Terminal = progress && env.StdoutIsTerminal()
	if e.Terminal {
		e.Width = env.StdoutWidth()
	}
	if poll > 0 {
		e.PollInterval = poll
	}
	return e, nil
}

// planStage plans the deploy of the synthesized stage (Engine.Plan), with
// wait after waiting for an operation running on its stack to finish, and,
// when the deploy would create the stage's stack, checks the stage against
// .framework/config.json (config.File.CheckNewStage): a stage the file does
// not declare whose name is one slip from a declared stage (prdo for prod)
// makes the plan a refusal naming the stage meant, and another undeclared
// stage's note, that it gets the top-level settings, is printed on w.
func planStage(ctx context.Context, g *Globals, e *deploy.Engine, res *synth.Result, stage string, wait bool, w io.Writer) (*deploy.Plan, error) {
	if wait {
		if _, err := e.WaitIdle(ctx, res.StackName); err != nil {
			return nil, err
		}
	}
	plan, err := e.Plan(ctx, res.AssemblyDir, res.StackName)
	if err != nil || plan.Action != deploy.Create && plan.Action != deploy.Recreate {
		return plan, err
	}
	f, err := config.Load(g.ProjectDir)
	if err != nil {
		return nil, err
	}
	note, err := f.CheckNewStage(stage)
	if err != nil {
		plan.Refuse(err.Error())
	} else if note != "" {
		fmt.Fprintln(w, note)
	}
	return plan, nil
}

// checkStageTypo refuses, before anything is built, a stage that
// .framework/config.json does not declare and whose name is one slip from
// a declared one (config.File.CheckNewStage): the typo was found only
// after the build and synthesis. With e (deploy, diff), a stage whose stack
// exists is let through, as planStage lets an update through; without it
// (synth, which does not reach AWS) the typo is refused. Everything else
// (no configuration, an app whose name only the build knows, AWS not
// reachable) is left to the steps that report it.
func checkStageTypo(ctx context.Context, g *Globals, e *deploy.Engine, stage string) error {
	f, err := config.Load(g.ProjectDir)
	if err != nil || f.Meant(stage) == "" {
		return nil
	}
	if e != nil {
		if f.AppName == "" {
			return nil
		}
		st, err := e.DescribeStack(ctx, names.StackName(f.AppName, stage))
		if err != nil || st != nil {
			return nil
		}
	}
	_, err = f.CheckNewStage(stage)
	return err
}

// deployError maps engine errors to exit codes: 130 when interrupted.
func deployError(ctx context.Context, err error) error {
	var ie *deploy.InterruptedError
	if errors.As(err, &ie) {
		return &ExitError{Code: 130, Err: err}
	}
	return interrupted(ctx, err)
}

// synthError is the error of a deploy whose synthesis failed; interrupted
// (Ctrl-C), it says that nothing was deployed, exit 130.
func synthError(ctx context.Context, err error) error {
	return synthFailed(ctx, "deploy", "nothing was deployed", err)
}

// synthFailed is the error of command cmd whose synthesis failed;
// interrupted (Ctrl-C), it says so and what that left (nothing done), exit
// 130, rather than the build's "context canceled".
func synthFailed(ctx context.Context, cmd, left string, err error) error {
	if ctx.Err() != nil {
		return interruptedWhile(ctx, "building and synthesizing the app", left, err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// interruptedWhile is the error of a command interrupted (Ctrl-C) while
// doing what (building the app, ...): it says so and what that left, exit
// 130, rather than what the interruption made of the step under way (the
// build's "context canceled", a Node.js "killed"). Not interrupted, it is
// err as it is.
func interruptedWhile(ctx context.Context, what, left string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return &ExitError{Code: 130, Err: fmt.Errorf("interrupted while %s: %s", what, left)}
}

func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: %w", err)}
	}
	return err
}

// stageStack returns the stage's stack name for the project without
// synthesizing (the app name from the project's config.json, else from
// the app's route manifest), and a deploy engine to reach it with
// (newEngine).
func stageStack(ctx context.Context, g *Globals, env *Env, stage string, f AWSFlags, progress bool) (string, *deploy.Engine, error) {
	app, err := appName(ctx, g.ProjectDir, stage)
	if err != nil {
		return "", nil, err
	}
	e, err := newEngine(ctx, f, env, stage, progress)
	if err != nil {
		return "", nil, err
	}
	return names.StackName(app, stage), e, nil
}

// appName returns the app's name without synthesizing: app_name from
// .framework/config.json, else the name in the app's route manifest. It
// checks the stage name first.
func appName(ctx context.Context, projectDir, stage string) (string, error) {
	if err := config.CheckStageName(stage); err != nil {
		return "", fmt.Errorf("stage %q: %w", stage, err)
	}
	f, err := config.Load(projectDir)
	if err != nil {
		return "", err
	}
	if f.AppName != "" {
		return f.AppName, nil
	}
	m, err := build.Manifest(ctx, projectDir)
	if err != nil {
		return "", interruptedWhile(ctx, "building the app to find its name", "nothing was done", fmt.Errorf("find the app's name (app_name is not set in %s): %w", f.Path, err))
	}
	return m.App, nil
}
