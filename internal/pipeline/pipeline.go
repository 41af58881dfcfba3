// Package pipeline writes what `framework generate-pipeline --github`
// generates: a GitHub Actions workflow that tests the app, shows
// `framework diff` on pull requests and deploys the main branch, and the
// CloudFormation template of the OIDC-trusted AWS roles it runs with.
package pipeline

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/framework-dev/framework/internal/names"
)

// Role variables: the repository variables the workflow reads the roles'
// ARNs from (the template's outputs of the same names).
const (
	DeployRoleVariable = "FRAMEWORK_DEPLOY_ROLE_ARN"
	DiffRoleVariable   = "FRAMEWORK_DIFF_ROLE_ARN"
)

// Default paths, relative to the project directory.
const (
	DefaultWorkflowPath = ".github/workflows/framework.yml"
	DefaultTemplatePath = ".framework/pipeline-role.yaml"
)

// RoleStackName is the stack name the template's header suggests for
// the roles: not <app>-<stage>, so that no stage's stack is named so.
func RoleStackName(app string) string { return app + "-github-pipeline" }

// Options are what the generated files depend on.
type Options struct {
	App        string // the app's name: its stacks are <App>-<stage>
	Repository string // owner/name on GitHub
	Branch     string // the branch whose pushes deploy
	Stage      string // the stage the branch deploys
	DiffStage  string // the stage pull requests are compared with
	Region     string // the AWS region of the stacks
	Module     string // the framework's module path
	// WorkflowPath and TemplatePath are where the two files are written,
	// relative to the project directory: each names the other.
	WorkflowPath, TemplatePath string
}

var (
	repoRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)
	branchRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	regionRE = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	nameRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*$`)
	stageRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)
)

// Check says what is wrong with o, in terms of the flag that sets it.
func (o Options) Check() error {
	switch {
	case !nameRE.MatchString(o.App):
		return fmt.Errorf("app name %q: want letters, digits and hyphens, starting with a letter", o.App)
	case !repoRE.MatchString(o.Repository):
		return fmt.Errorf("repository %q: want owner/name as on GitHub (--repo)", o.Repository)
	case !branchRE.MatchString(o.Branch) || strings.Contains(o.Branch, ".."):
		return fmt.Errorf("branch %q: want a git branch name such as main (--branch)", o.Branch)
	case !stageRE.MatchString(o.Stage):
		return fmt.Errorf("stage %q: want letters, digits and hyphens (--stage)", o.Stage)
	case !stageRE.MatchString(o.DiffStage):
		return fmt.Errorf("stage %q: want letters, digits and hyphens (--diff-stage)", o.DiffStage)
	case !regionRE.MatchString(o.Region):
		return fmt.Errorf("region %q: want an AWS region such as us-east-1 (--region)", o.Region)
	}
	return nil
}

// data is what the templates read.
type data struct {
	Options
	DeployStack, DiffStack     string
	AssetsStack, AssetsBucket  string
	DeployVar, DiffVar         string
	DeploySubject, DiffSubject string
	RoleStack                  string
}

func newData(o Options) data {
	return data{
		Options:     o,
		DeployStack: names.StackName(o.App, o.Stage), DiffStack: names.StackName(o.App, o.DiffStage),
		AssetsStack: names.AssetsStackName, AssetsBucket: names.AssetsBucketName,
		DeployVar: DeployRoleVariable, DiffVar: DiffRoleVariable,
		DeploySubject: "repo:" + o.Repository + ":ref:refs/heads/" + o.Branch,
		DiffSubject:   "repo:" + o.Repository + ":pull_request",
		RoleStack:     RoleStackName(o.App),
	}
}

func render(t *template.Template, o Options) ([]byte, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, newData(o)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Workflow returns the GitHub Actions workflow.
func Workflow(o Options) ([]byte, error) { return render(workflowTemplate, o) }

// RoleTemplate returns the CloudFormation template of the roles.
func RoleTemplate(o Options) ([]byte, error) { return render(roleTemplate, o) }

// The templates use <% %> as delimiters: GitHub's ${{ }} and Go's
// {{.Version}} appear in the text.
func parse(name, text string) *template.Template {
	return template.Must(template.New(name).Delims("<%", "%>").Parse(text))
}

var workflowTemplate = parse("workflow", workflowText)
var roleTemplate = parse("roles", roleText)

// RepoFromRemote returns the owner/name of a GitHub remote URL, in any of
// git's forms: https://github.com/o/r(.git), git@github.com:o/r.git,
// ssh://git@github.com/o/r.git. A remote elsewhere is an error.
func RepoFromRemote(remote string) (string, error) {
	u := strings.TrimSpace(remote)
	var path string
	switch {
	case strings.HasPrefix(u, "git@github.com:"):
		path = strings.TrimPrefix(u, "git@github.com:")
	default:
		_, rest, ok := strings.Cut(u, "://")
		if !ok {
			return "", fmt.Errorf("remote %q is not a GitHub URL", u)
		}
		host, p, _ := strings.Cut(rest, "/")
		if _, h, ok := strings.Cut(host, "@"); ok {
			host = h
		}
		if host != "github.com" && host != "www.github.com" {
			return "", fmt.Errorf("remote %q is not on github.com", u)
		}
		path = p
	}
	repo := strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	if !repoRE.MatchString(repo) {
		return "", fmt.Errorf("remote %q does not name a GitHub repository owner/name", u)
	}
	return repo, nil
}
