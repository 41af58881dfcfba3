package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/pipeline"
	"github.com/framework-dev/framework/internal/synth"
)

// GeneratePipelineCmd writes a CI/CD pipeline for the app: with --github,
// a GitHub Actions workflow (tests; framework diff on pull requests, in
// the job summary; framework deploy on pushes to the branch) and the
// CloudFormation template of the AWS roles it assumes through GitHub's
// OIDC provider. It writes nothing when a file exists, unless --force.
type GeneratePipelineCmd struct {
	GitHub    bool   `name:"github" help:"Write a GitHub Actions workflow and its AWS roles (the one pipeline supported; required)."`
	Stage     string `default:"prod" help:"Stage that pushes to --branch deploy (framework deploy --stage S --json --yes)."`
	DiffStage string `name:"diff-stage" help:"Stage that pull requests are compared with (framework diff --stage S); default: --stage."`
	Branch    string `default:"main" help:"Branch whose pushes deploy, and which pull requests target."`
	Repo      string `name:"repo" placeholder:"OWNER/NAME" help:"GitHub repository the workflow runs in (default: read from git remote get-url origin); the deploy role trusts only its runs."`
	Region    string `help:"AWS region of the app's stacks (default: AWS_REGION, else AWS_DEFAULT_REGION)."`
	Workflow  string `default:"${pipeline_workflow}" placeholder:"PATH" help:"Where to write the workflow, relative to the project directory (default: ${pipeline_workflow})."`
	Template  string `default:"${pipeline_template}" placeholder:"PATH" help:"Where to write the roles' CloudFormation template, relative to the project directory (default: ${pipeline_template})."`
	Force     bool   `help:"Replace the files when they exist (without it, nothing is written then)."`
	JSON      bool   `name:"json" help:"Print what was written as one JSON object: files [{path, kind}], app, repository, branch, stage, diff_stage, region, role_stack, variables {repository variable: template output}."`
}

// pipelineResult is what generate-pipeline --json prints.
type pipelineResult struct {
	Files      []pipelineFile    `json:"files"`
	App        string            `json:"app"`
	Repository string            `json:"repository"`
	Branch     string            `json:"branch"`
	Stage      string            `json:"stage"`
	DiffStage  string            `json:"diff_stage"`
	Region     string            `json:"region"`
	RoleStack  string            `json:"role_stack"`
	Variables  map[string]string `json:"variables"`
}

type pipelineFile struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "workflow" or "cloudformation"
}

// Run finds the app's name, repository and framework requirement, renders
// both files and writes them.
func (c *GeneratePipelineCmd) Run(g *Globals, env *Env) error {
	if !c.GitHub {
		return errors.New("generate-pipeline: say which CI to write a pipeline for: --github (GitHub Actions, the only one supported)")
	}
	ctx, stop := env.Context()
	defer stop()
	human := humanEnv(env, c.JSON)
	if c.DiffStage == "" {
		c.DiffStage = c.Stage
	}
	if err := config.CheckStageName(c.DiffStage); err != nil {
		return fmt.Errorf("generate-pipeline: --diff-stage: %w", err)
	}
	if err := checkFrameworkRequirement(g.ProjectDir, human); err != nil {
		return fmt.Errorf("generate-pipeline: %w", err)
	}
	app, err := appName(ctx, g.ProjectDir, c.Stage)
	if err != nil {
		return fmt.Errorf("generate-pipeline: %w", err)
	}
	repo, err := c.repository(g.ProjectDir)
	if err != nil {
		return fmt.Errorf("generate-pipeline: %w", err)
	}
	region := firstNonEmpty(c.Region, env.Getenv("AWS_REGION"), env.Getenv("AWS_DEFAULT_REGION"))
	if region == "" {
		return errors.New("generate-pipeline: no AWS region for the app's stacks: pass --region (or set AWS_REGION)")
	}
	o := pipeline.Options{
		App: app, Repository: repo, Branch: c.Branch, Stage: c.Stage, DiffStage: c.DiffStage,
		Region: region, Module: synth.Module,
	}
	files := []struct {
		flag, kind, abs string
		render          func(pipeline.Options) ([]byte, error)
	}{
		{"--workflow", "workflow", "", pipeline.Workflow},
		{"--template", "cloudformation", "", pipeline.RoleTemplate},
	}
	var rels [2]string
	for i, p := range []string{c.Workflow, c.Template} {
		abs, rel, err := projectPath(g.ProjectDir, p)
		if err != nil {
			return fmt.Errorf("generate-pipeline: %s: %w", files[i].flag, err)
		}
		files[i].abs, rels[i] = abs, rel
	}
	if filepath.Clean(files[0].abs) == filepath.Clean(files[1].abs) {
		return fmt.Errorf("generate-pipeline: --workflow and --template are the same file %s", rels[0])
	}
	o.WorkflowPath, o.TemplatePath = filepath.ToSlash(rels[0]), filepath.ToSlash(rels[1])
	contents := make([][]byte, len(files))
	for i, f := range files {
		if contents[i], err = f.render(o); err != nil {
			return fmt.Errorf("generate-pipeline: %w", err)
		}
	}
	if !c.Force {
		var exist []string
		for i, f := range files {
			if _, err := os.Stat(f.abs); err == nil {
				exist = append(exist, rels[i])
			}
		}
		switch len(exist) {
		case 1:
			return fmt.Errorf("generate-pipeline: %s already exists: nothing was written (pass --force to replace it, or --workflow/--template to write elsewhere)", exist[0])
		case 2:
			return fmt.Errorf("generate-pipeline: %s already exist: nothing was written (pass --force to replace them, or --workflow/--template to write elsewhere)", strings.Join(exist, " and "))
		}
	}
	res := pipelineResult{
		App: app, Repository: repo, Branch: c.Branch, Stage: c.Stage, DiffStage: c.DiffStage, Region: region,
		RoleStack: pipeline.RoleStackName(app),
		Variables: map[string]string{pipeline.DeployRoleVariable: "DeployRoleArn", pipeline.DiffRoleVariable: "DiffRoleArn"},
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.abs), 0o755); err != nil {
			return fmt.Errorf("generate-pipeline: %w", err)
		}
		if err := os.WriteFile(f.abs, contents[i], 0o644); err != nil {
			return fmt.Errorf("generate-pipeline: %w", err)
		}
		res.Files = append(res.Files, pipelineFile{Path: filepath.ToSlash(rels[i]), Kind: f.kind})
	}
	fmt.Fprintf(human.Stdout, `Wrote %s (tests; framework diff --stage %s on pull requests; framework deploy --stage %s on pushes to %s)
and %s (the AWS roles it assumes through GitHub's OIDC provider: the deploy role trusted
only by pushes to %s of %s, the read-only diff role by its pull requests).
Next:
  1. Create the roles once, with credentials that may create IAM roles:
       aws cloudformation deploy --region %s --capabilities CAPABILITY_IAM --stack-name %s --template-file %s
     (when the account has a GitHub OIDC provider already, add --parameter-overrides ExistingOIDCProviderArn=<its ARN>)
  2. Set the repository variables %s and %s (Settings > Secrets and variables > Actions > Variables)
     to the stack's outputs DeployRoleArn and DiffRoleArn.
  3. Commit both files and push.
`, o.WorkflowPath, c.DiffStage, c.Stage, c.Branch, o.TemplatePath, c.Branch, repo,
		region, res.RoleStack, o.TemplatePath, pipeline.DeployRoleVariable, pipeline.DiffRoleVariable)
	if c.JSON {
		return writeJSONLine(env.Stdout, res)
	}
	return nil
}

// repository is --repo, else the GitHub repository of the project's git
// remote origin.
func (c *GeneratePipelineCmd) repository(dir string) (string, error) {
	if c.Repo != "" {
		return c.Repo, nil
	}
	out, err := exec.Command("git", "-C", dir, "remote", "get-url", "origin").Output()
	if err != nil {
		return "", errors.New("no --repo, and no git remote origin to read the repository from: pass --repo OWNER/NAME (the GitHub repository the workflow runs in)")
	}
	repo, err := pipeline.RepoFromRemote(string(out))
	if err != nil {
		return "", fmt.Errorf("git remote origin: %w: pass --repo OWNER/NAME (the GitHub repository the workflow runs in)", err)
	}
	return repo, nil
}

// checkFrameworkRequirement checks that the project's go.mod requires the
// framework module, which the workflow installs the CLI at, and notes on w
// a replace of it by a directory, which CI does not have.
func checkFrameworkRequirement(dir string, env *Env) error {
	path := filepath.Join(dir, "go.mod")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the project's go.mod (the workflow installs the framework CLI at the version it requires): %w", err)
	}
	f, err := modfile.Parse(path, b, nil)
	if err != nil {
		return err
	}
	if f.Module != nil && f.Module.Mod.Path == synth.Module {
		return fmt.Errorf("%s is the framework's own module, not an app's: run generate-pipeline in an app's project (--project-dir)", path)
	}
	required := false
	for _, r := range f.Require {
		required = required || r.Mod.Path == synth.Module
	}
	if !required {
		return fmt.Errorf("%s does not require %s: the workflow installs the framework CLI at the version go.mod requires", path, synth.Module)
	}
	for _, r := range f.Replace {
		if r.Old.Path == synth.Module && r.New.Version == "" {
			fmt.Fprintf(env.Stdout, "Note: go.mod replaces %s with the directory %s, which CI does not have: require a released version (go get %s@vX.Y.Z, then drop the replace) before pushing the workflow.\n", synth.Module, r.New.Path, synth.Module)
		}
	}
	return nil
}

// projectPath returns p (relative to the project directory dir, or
// absolute) as an absolute path and as a path relative to dir, which it
// must be inside of: the workflow and the template name each other so.
func projectPath(dir, p string) (abs, rel string, err error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	abs = p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(root, p)
	}
	rel, err = filepath.Rel(root, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return "", "", fmt.Errorf("%s is not a file inside the project directory %s", p, root)
	}
	return abs, rel, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
