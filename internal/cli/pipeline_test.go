package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pipelineProject makes an app's project: go.mod requiring the framework,
// .framework/config.json naming the app todo, and, when remote is not
// empty, a git repository whose origin is remote.
func pipelineProject(t *testing.T, remote string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module example.com/todo\n\ngo 1.26\n\nrequire github.com/framework-dev/framework v0.3.0\n",
		".framework/config.json": `{"version": "1.0", "app_name": "todo"}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if remote != "" {
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", remote}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return dir
}

func runPipeline(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code = MainEnv(append([]string{"generate-pipeline", "-C", dir}, args...), env)
	return code, out.String(), errb.String()
}

func TestGeneratePipelineWritesBothFiles(t *testing.T) {
	t.Parallel()
	dir := pipelineProject(t, "git@github.com:acme/todo-api.git")
	code, stdout, stderr := runPipeline(t, dir, "--github", "--region", "eu-west-1", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var res pipelineResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if res.App != "todo" || res.Repository != "acme/todo-api" || res.Branch != "main" || res.Stage != "prod" || len(res.Files) != 2 {
		t.Errorf("result %+v, want app todo, repository acme/todo-api (from origin), branch main, stage prod, two files", res)
	}
	wf, err := os.ReadFile(filepath.Join(dir, ".github/workflows/framework.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := os.ReadFile(filepath.Join(dir, ".framework/pipeline-role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wf), "framework deploy --stage prod --json") {
		t.Errorf("workflow does not deploy stage prod:\n%s", wf)
	}
	if !strings.Contains(string(tpl), "token.actions.githubusercontent.com:sub: repo:acme/todo-api:ref:refs/heads/main") {
		t.Errorf("template's deploy role does not trust pushes to main of acme/todo-api:\n%s", tpl)
	}
	if !strings.Contains(stderr, "FRAMEWORK_DEPLOY_ROLE_ARN") {
		t.Errorf("stderr does not say which repository variables to set:\n%s", stderr)
	}
	// What the command wrote passes the linters (internal/pipeline's tests
	// lint other option sets).
	for _, lint := range [][]string{
		{lintTool(t, "actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"), "-no-color", filepath.Join(dir, ".github/workflows/framework.yml")},
		{lintTool(t, "cfn-lint", "pip install cfn-lint"), "--regions", "eu-west-1", "--", filepath.Join(dir, ".framework/pipeline-role.yaml")},
	} {
		if out, err := exec.Command(lint[0], lint[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s on what generate-pipeline wrote: %v\n%s", filepath.Base(lint[0]), err, out)
		}
	}
}

// lintTool returns the path of a linter the test needs, on PATH or in
// $(go env GOPATH)/bin, and fails the test saying how to install it
// when it is in neither.
func lintTool(t *testing.T, name, install string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(gp)), "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("%s is not installed (neither on PATH nor in $(go env GOPATH)/bin): install it with `%s` (.ci/run does)", name, install)
	return ""
}

func TestGeneratePipelineRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	dir := pipelineProject(t, "")
	wf := filepath.Join(dir, ".github/workflows/framework.yml")
	if err := os.MkdirAll(filepath.Dir(wf), 0o755); err != nil {
		t.Fatal(err)
	}
	const mine = "name: mine\n"
	if err := os.WriteFile(wf, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--github", "--repo", "acme/todo-api", "--region", "eu-west-1"}
	code, _, stderr := runPipeline(t, dir, args...)
	if code == 0 || !strings.Contains(stderr, ".github/workflows/framework.yml already exists") || !strings.Contains(stderr, "--force") {
		t.Errorf("exit %d, stderr %q: want a refusal naming the existing file and --force", code, stderr)
	}
	if b, _ := os.ReadFile(wf); string(b) != mine {
		t.Errorf("the existing workflow was changed to:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".framework/pipeline-role.yaml")); !os.IsNotExist(err) {
		t.Errorf("the template was written although the refusal said nothing was: %v", err)
	}
	if code, _, stderr := runPipeline(t, dir, append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d, stderr %s", code, stderr)
	}
	if b, _ := os.ReadFile(wf); string(b) == mine {
		t.Error("--force left the existing workflow as it was")
	}
}

func TestGeneratePipelineNeedsARepository(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ remote, want string }{
		{"", "no git remote origin"},
		{"https://gitlab.com/acme/todo-api.git", "not on github.com"},
	} {
		dir := pipelineProject(t, c.remote)
		code, _, stderr := runPipeline(t, dir, "--github", "--region", "eu-west-1")
		if code == 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--repo OWNER/NAME") {
			t.Errorf("origin %q: exit %d, stderr %q: want an error saying %q and to pass --repo", c.remote, code, stderr, c.want)
		}
	}
}

func TestGeneratePipelineNeedsGitHubAndRegion(t *testing.T) {
	t.Parallel()
	dir := pipelineProject(t, "")
	if code, _, stderr := runPipeline(t, dir, "--repo", "acme/todo-api", "--region", "eu-west-1"); code == 0 || !strings.Contains(stderr, "--github") {
		t.Errorf("without --github: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runPipeline(t, dir, "--github", "--repo", "acme/todo-api"); code == 0 || !strings.Contains(stderr, "--region") {
		t.Errorf("without a region: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".github")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote files: %v", err)
	}
}

func TestGeneratePipelineChecksTheFrameworkRequirement(t *testing.T) {
	t.Parallel()
	args := []string{"--github", "--repo", "acme/todo-api", "--region", "eu-west-1"}
	dir := pipelineProject(t, "")
	gomod := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(gomod, []byte("module example.com/todo\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runPipeline(t, dir, args...); code == 0 || !strings.Contains(stderr, "does not require github.com/framework-dev/framework") {
		t.Errorf("go.mod without the framework: exit %d, stderr %q", code, stderr)
	}
	// A replace by a directory (a development build's project) is written
	// out, with a note that CI cannot build it so.
	if err := os.WriteFile(gomod, []byte("module example.com/todo\n\ngo 1.26\n\nrequire github.com/framework-dev/framework v0.3.0\n\nreplace github.com/framework-dev/framework => ../framework\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runPipeline(t, dir, args...)
	if code != 0 || !strings.Contains(stdout, "replaces github.com/framework-dev/framework with the directory ../framework") {
		t.Errorf("go.mod with a replace: exit %d, stdout %q, stderr %q: want the files and a note about the replace", code, stdout, stderr)
	}
}
