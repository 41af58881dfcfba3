package frameworktest_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/mototest"
)

// stageChild is the environment variable that makes
// TestUseEmulatorFollowsTheStage's process a child, and says which.
const stageChild = "FRAMEWORKTEST_STAGE_CHILD"

// jobsApp declares a queue feeding a handler, with visibility timeout vis
// (0: the default).
func jobsApp(vis time.Duration) *framework.App {
	app := framework.New("jobs")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{VisibilityTimeout: vis})
	app.OnSQSMessage("worker", jobs.Ref(), func(context.Context, events.SQSEvent) error { return nil })
	return app
}

// runStageChild runs TestUseEmulatorFollowsTheStage as child which in dir
// and returns its output, and whether it passed.
func runStageChild(t *testing.T, which, dir, endpoint string) (string, bool) {
	t.Helper()
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestUseEmulatorFollowsTheStage$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), stageChild+"="+which, frameworktest.EndpointEnv+"="+endpoint)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err == nil
}

// TestUseEmulatorFollowsTheStage: UseEmulator reads the project's
// .framework/config.json as framework local does: a queue's default
// visibility timeout at the emulator follows the dev stage's
// lambda_timeout (6 × 20 s, not 6 × 60 s); and a declaration that synth
// refuses (a visibility timeout shorter than the timeout of the handler
// it feeds) fails the test with synth's message, creating nothing.
func TestUseEmulatorFollowsTheStage(t *testing.T) {
	switch os.Getenv(stageChild) {
	case "default":
		frameworktest.UseEmulator(t, jobsApp(0))
		cfg, err := config.LoadDefaultConfig(context.Background()) // the emulator's, as UseEmulator set it
		if err != nil {
			t.Fatal(err)
		}
		out, err := sqs.NewFromConfig(cfg).GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(os.Getenv("FRAMEWORK_RES_JOBS_URL")),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameVisibilityTimeout}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("visibility timeout %s", out.Attributes["VisibilityTimeout"])
		return
	case "refused":
		frameworktest.UseEmulator(t, jobsApp(30*time.Second))
		t.Log("UseEmulator returned")
		return
	}
	moto := mototest.Start(t)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".framework"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".framework", "config.json"), []byte(`{"version": "1.0", "app_name": "jobs", "lambda_timeout": 20}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(project, "jobs")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	out, ok := runStageChild(t, "default", pkg, moto.URL)
	if !ok || !strings.Contains(out, "visibility timeout 120") {
		t.Errorf("with lambda_timeout 20: want the queue's visibility timeout 120 (6 × 20 s) at the emulator:\n%s", out)
	}

	// Without lambda_timeout (60 s by default), 30 s is refused.
	m, err := apphook.Of(jobsApp(30 * time.Second)).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	synthErr := declspec.Check(m, declspec.Stage{})
	if synthErr == nil {
		t.Fatal("declspec.Check accepts a 30 s visibility timeout with the 60 s default timeout")
	}
	out, ok = runStageChild(t, "refused", t.TempDir(), moto.URL)
	if ok || !strings.Contains(out, "frameworktest: "+synthErr.Error()) || strings.Contains(out, "UseEmulator returned") {
		t.Errorf("a declaration synth refuses: want the test failed with %q:\n%s", synthErr, out)
	}
}
