package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func testOptions() Options {
	return Options{
		App: "todo", Repository: "acme/todo-api", Branch: "main", Stage: "prod", DiffStage: "prod",
		Region: "eu-west-1", Module: "github.com/framework-dev/framework",
		WorkflowPath: DefaultWorkflowPath, TemplatePath: DefaultTemplatePath,
	}
}

// writeBoth writes the workflow and the template of o under a temporary
// project directory and returns their paths.
func writeBoth(t *testing.T, o Options) (workflow, tpl string) {
	t.Helper()
	dir := t.TempDir()
	w, err := Workflow(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RoleTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	workflow, tpl = filepath.Join(dir, o.WorkflowPath), filepath.Join(dir, o.TemplatePath)
	for p, b := range map[string][]byte{workflow: w, tpl: r} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return workflow, tpl
}

// TestWorkflowPassesActionlint runs actionlint (with shellcheck on the
// run scripts when shellcheck is installed) on the generated workflow.
func TestWorkflowPassesActionlint(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		if gp, gerr := exec.Command("go", "env", "GOPATH").Output(); gerr == nil {
			if p := filepath.Join(strings.TrimSpace(string(gp)), "bin", "actionlint"); fileExists(p) {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		t.Fatal("actionlint is not installed (neither on PATH nor in $(go env GOPATH)/bin): install it with `go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12` (.ci/run does)")
	}
	for _, o := range []Options{testOptions(), func() Options {
		o := testOptions()
		o.Branch, o.Stage, o.DiffStage = "release/v2", "live", "staging"
		return o
	}()} {
		workflow, _ := writeBoth(t, o)
		out, err := exec.Command(bin, "-no-color", workflow).CombinedOutput()
		if err != nil {
			t.Errorf("actionlint on the workflow for branch %s: %v\n%s", o.Branch, err, out)
		}
	}
}

// TestRoleTemplatePassesCfnLint runs cfn-lint on the generated template:
// no errors and no warnings.
func TestRoleTemplatePassesCfnLint(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Fatal("cfn-lint is not installed: install it with `pip install cfn-lint`")
	}
	_, tpl := writeBoth(t, testOptions())
	out, err := exec.Command(bin, "--regions", "eu-west-1", "--", tpl).CombinedOutput()
	if err != nil {
		t.Errorf("cfn-lint on the role template: %v\n%s", err, out)
	}
}

// TestRoleTrustNamesRepositoryAndBranch checks who may assume each role:
// the deploy role only the runs for pushes to the branch of the
// repository, the diff role only the repository's pull requests, both for
// the audience sts.amazonaws.com.
func TestRoleTrustNamesRepositoryAndBranch(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Branch = "release/v2"
	b, err := RoleTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for role, sub := range map[string]string{
		"DeployRole": "repo:acme/todo-api:ref:refs/heads/release/v2",
		"DiffRole":   "repo:acme/todo-api:pull_request",
	} {
		trust := trustOf(t, s, role)
		want := []string{
			"StringEquals:",
			"token.actions.githubusercontent.com:aud: sts.amazonaws.com",
			"token.actions.githubusercontent.com:sub: " + sub,
		}
		if got := conditionLines(trust); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: trust condition\n%s\nwant exactly\n%s", role, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if n := strings.Count(trust, "- Effect:"); n != 1 || !strings.Contains(trust, "Action: sts:AssumeRoleWithWebIdentity") {
			t.Errorf("%s: want one statement allowing sts:AssumeRoleWithWebIdentity:\n%s", role, trust)
		}
	}
}

// trustOf returns the AssumeRolePolicyDocument of the role in template s.
func trustOf(t *testing.T, s, role string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, "\n  "+role+":\n")
	if !ok {
		t.Fatalf("no resource %s in the template:\n%s", role, s)
	}
	_, rest, ok = strings.Cut(rest, "AssumeRolePolicyDocument:\n")
	trust, _, ok2 := strings.Cut(rest, "      Policies:")
	if !ok || !ok2 {
		t.Fatalf("%s has no AssumeRolePolicyDocument followed by Policies", role)
	}
	return trust
}

// conditionLines returns the trimmed lines of the statement's Condition.
func conditionLines(trust string) []string {
	_, cond, _ := strings.Cut(trust, "Condition:\n")
	var lines []string
	for _, l := range strings.Split(cond, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestRolePoliciesNameOnlyTheAppsStacks checks that the roles reach
// CloudFormation on the stage's stack (and the assets stack) only, and
// that the diff role may not execute a change set.
func TestRolePoliciesNameOnlyTheAppsStacks(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.DiffStage = "staging"
	b, err := RoleTemplate(o)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	deploy, diff, _ := strings.Cut(s[strings.Index(s, "  DeployRole:"):], "  DiffRole:")
	for _, c := range []struct{ name, text, want, not string }{
		{"deploy", deploy, "stack/todo-prod/*", "stack/todo-staging/"},
		{"diff", diff, "stack/todo-staging/*", "stack/todo-prod/"},
	} {
		if !strings.Contains(c.text, c.want) || strings.Contains(c.text, c.not) {
			t.Errorf("%s role: want %q and not %q in its policy:\n%s", c.name, c.want, c.not, c.text)
		}
	}
	if !strings.Contains(deploy, "stack/FrameworkAssets/*") || strings.Contains(diff, "stack/FrameworkAssets") {
		t.Errorf("want the assets stack in the deploy role's policy only (deploy creates it, diff never touches it)")
	}
	if strings.Contains(diff, "ExecuteChangeSet") || strings.Contains(diff, "cloudformation:*") {
		t.Errorf("diff role may execute change sets:\n%s", diff)
	}
	if !strings.Contains(deploy, "role/todo-prod-*") || strings.Contains(deploy, "iam:*") {
		t.Errorf("deploy role: want IAM limited to the stack's roles role/todo-prod-*:\n%s", deploy)
	}
}

// TestWorkflowSteps checks what the workflow runs: tests, diff on pull
// requests into the job summary, deploy --json on pushes to the branch,
// each with its role through OIDC.
func TestWorkflowSteps(t *testing.T) {
	t.Parallel()
	b, err := Workflow(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"go-version-file: go.mod",
		"go test ./...",
		"framework diff --stage prod 2>&1 | tee",
		`>> "$GITHUB_STEP_SUMMARY"`,
		"framework deploy --stage prod --json --yes",
		"id-token: write",
		"role-to-assume: ${{ vars.FRAMEWORK_DIFF_ROLE_ARN }}",
		"role-to-assume: ${{ vars.FRAMEWORK_DEPLOY_ROLE_ARN }}",
		`go install "$FRAMEWORK_MODULE/cli/framework@$version"`,
		"branches: [main]",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("workflow lacks %q:\n%s", want, s)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		set  func(*Options)
		want string
	}{
		{func(o *Options) { o.Repository = "todo-api" }, "--repo"},
		{func(o *Options) { o.Branch = "main\n  evil: x" }, "--branch"},
		{func(o *Options) { o.Stage = "prod stage" }, "--stage"},
		{func(o *Options) { o.Region = "" }, "--region"},
	} {
		o := testOptions()
		c.set(&o)
		if _, err := Workflow(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", o, err, c.want)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestRepoFromRemote(t *testing.T) {
	t.Parallel()
	for _, remote := range []string{
		"git@github.com:acme/todo-api.git", "https://github.com/acme/todo-api.git\n", "https://github.com/acme/todo-api",
		"ssh://git@github.com/acme/todo-api.git", "https://token@github.com/acme/todo-api.git",
	} {
		if got, err := RepoFromRemote(remote); err != nil || got != "acme/todo-api" {
			t.Errorf("RepoFromRemote(%q) = %q, %v; want acme/todo-api", remote, got, err)
		}
	}
	for _, remote := range []string{"https://gitlab.com/acme/todo-api.git", "/srv/git/todo.git", "git@github.com:acme"} {
		if got, err := RepoFromRemote(remote); err == nil {
			t.Errorf("RepoFromRemote(%q) = %q, want an error", remote, got)
		}
	}
}
