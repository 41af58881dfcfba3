package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
)

var baseURL = regexp.MustCompile(`(?m)^Rest API URL: (https://[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com/dev/)$`)

// TestDeployLifecycle drives the built CLI as a user would, against the
// CloudFormation + STS stand-in and the S3 fake reached through the real
// AWS SDK: new-project, deploy, url, a new route shown by diff, deploy,
// Ctrl-C while CloudFormation works, destroy.
func TestDeployLifecycle(t *testing.T) {
	fake, env := startStandins(t)
	proj := newProject(t, env, "shop")
	run := cliRunner(t, proj, env)

	out := run(0, "deploy")
	if !strings.Contains(out, "Initiating first time deployment...") {
		t.Errorf("first deploy did not say so:\n%s", out)
	}
	m := baseURL.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("deploy printed no base URL ending in /dev/:\n%s", out)
	}
	url := m[1]
	if got := strings.TrimSpace(run(0, "url")); got != url {
		t.Errorf("url printed %q, deploy %q", got, url)
	}
	if _, err := os.Stat(filepath.Join(proj, ".framework", "policy.json")); err != nil {
		t.Errorf("deploy did not write .framework/policy.json: %v", err)
	}
	// The Lambda package is in the assets bucket.
	objs, err := fake.S3.ListBucket("framework-assets-123456789012-us-east-1", nil, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	zips := 0
	for _, o := range objs.Contents {
		if strings.HasSuffix(o.Key, ".zip") {
			zips++
		}
	}
	if zips != 1 {
		t.Errorf("%d zip objects in the assets bucket, want the one Lambda package", zips)
	}

	out = run(0, "deploy")
	if !strings.Contains(out, "No changes: stack shop-dev is up to date.") || !strings.Contains(out, "Rest API URL: "+url) || strings.Contains(out, "Initiating") {
		t.Errorf("second deploy:\n%s", out)
	}

	// A new route: diff shows it, deploy carries it, diff is then clean.
	mainGo := filepath.Join(proj, "main.go")
	addUsersRoute(t, proj)
	withRoute, _ := os.ReadFile(mainGo)
	out = run(0, "diff")
	if !strings.Contains(out, "+ POST /users/{name}") {
		t.Errorf("diff does not show the new route:\n%s", out)
	}
	run(1, "diff", "--fail")
	out = run(0, "deploy")
	if !strings.Contains(out, "Rest API URL: "+url) {
		t.Errorf("update deploy:\n%s", out)
	}
	if !strings.Contains(fake.CFN.Template("shop-dev"), "/users/{name}") {
		t.Error("the deployed template lacks the new route")
	}
	out = run(0, "diff", "--fail")
	if !strings.Contains(out, "No differences") {
		t.Errorf("diff after deploy:\n%s", out)
	}

	// Ctrl-C while CloudFormation works: the CLI stops waiting, says how to
	// follow the stack, exits 130 and leaves no stray file.
	writeFile(t, mainGo, strings.Replace(string(withRoute), `framework.Methods("POST")`, `framework.Methods("PUT")`, 1))
	fake.CFN.Hold("shop-dev")
	before := listDir(t, filepath.Join(proj, ".framework"))
	cmd := exec.Command(frameworkCLI(t), "deploy")
	cmd.Dir, cmd.Env = proj, env
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(stdout.String(), "Updating stack shop-dev") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("deploy never started updating:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	t.Logf("$ framework deploy, interrupted\n%s%s", stdout.String(), stderr.String())
	noNoise(t, stdout.String()+stderr.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("interrupted deploy: %v, want exit 130", err)
	}
	for _, want := range []string{"stopped waiting for stack shop-dev (UPDATE_IN_PROGRESS)", "CloudFormation goes on", "aws cloudformation describe-stack-events --stack-name shop-dev"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("interrupted deploy's message lacks %q", want)
		}
	}
	if after := listDir(t, filepath.Join(proj, ".framework")); after != before {
		t.Errorf(".framework changed from %s to %s", before, after)
	}
	fake.CFN.Settle("shop-dev")
	if s := fake.CFN.Status("shop-dev"); s != "UPDATE_COMPLETE" {
		t.Errorf("after the interrupted deploy CloudFormation finished with %s", s)
	}

	// destroy asks; without a terminal it needs --yes.
	out = run(1, "destroy")
	if !strings.Contains(out, "pass --yes") {
		t.Errorf("destroy without a terminal:\n%s", out)
	}
	out = run(0, "destroy", "--yes")
	if !strings.Contains(out, "Deleted stage dev (stack shop-dev).") {
		t.Errorf("destroy:\n%s", out)
	}
	run(2, "url")
	out = run(0, "delete", "--yes")
	if !strings.Contains(out, "Stage dev is not deployed") {
		t.Errorf("second destroy:\n%s", out)
	}
}

// noNoise fails the test when a command's output holds warnings of the
// libraries under it (the AWS SDK's logger, the jsii runtime) rather than
// the CLI's own messages.
func noNoise(t *testing.T, out string) {
	t.Helper()
	for _, noise := range []string{" WARN ", "Runtime process exited"} {
		if strings.Contains(out, noise) {
			t.Errorf("output holds library noise %q:\n%s", noise, out)
		}
	}
}
