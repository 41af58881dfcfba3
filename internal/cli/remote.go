package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/remote"
)

// FunctionFlags select a deployed function's stage, and the AWS profile
// and region to reach it with: the flags of invoke and logs.
type FunctionFlags struct {
	Stage string `placeholder:"STAGE" help:"Stage of the function (default ${default_stage})."`
	AWSFlags
}

// stage is the stage the flags select.
func (f FunctionFlags) stage() string {
	if f.Stage == "" {
		return names.DefaultStage
	}
	return f.Stage
}

// deployFirst says what to do about a stage that is not deployed: deploy
// it, or, when .framework/config.json does not declare it and its name is
// one slip from a stage the file declares (prdo for prod), use that one,
// rather than deploy a typo.
func deployFirst(projectDir, stage string) string {
	if f, err := config.Load(projectDir); err == nil {
		if meant := f.Meant(stage); meant != "" {
			return fmt.Sprintf("%s does not declare stage %s either: did you mean --stage %s?", f.Path, stage, meant)
		}
	}
	return fmt.Sprintf("run `framework deploy --stage %s`", stage)
}

// deployed finds, without synthesizing (as `framework url` does),
// the deployed stage's stack and in its outputs the function that name
// designates (see remote.Resolve), and returns it with the AWS
// configuration to reach it. A stage that is not deployed is an ExitError
// with code 2.
func (f FunctionFlags) deployed(ctx context.Context, g *Globals, env *Env, name string) (remote.Function, aws.Config, error) {
	stage := f.stage()
	app, err := appName(ctx, g.ProjectDir, stage)
	if err != nil {
		return remote.Function{}, aws.Config{}, err
	}
	stack := names.StackName(app, stage)
	cfg, err := deploy.LoadConfig(ctx, f.Profile, f.Region, sdkLog(env)...)
	if err != nil {
		return remote.Function{}, aws.Config{}, err
	}
	st, err := deploy.New(cfg, io.Discard).DescribeStack(ctx, stack)
	if err != nil {
		return remote.Function{}, aws.Config{}, interrupted(ctx, err)
	}
	if st == nil {
		return remote.Function{}, aws.Config{}, &ExitError{Code: 2, Err: fmt.Errorf("stage %s is not deployed: no stack %s in %s; %s", stage, stack, cfg.Region, deployFirst(g.ProjectDir, stage))}
	}
	fn, err := remote.Resolve(app, stage, st.Outputs, name)
	if err != nil {
		if len(remote.Functions(st.Outputs)) == 0 {
			return remote.Function{}, aws.Config{}, &ExitError{Code: 2, Err: err}
		}
		return remote.Function{}, aws.Config{}, err
	}
	return fn, cfg, nil
}
