package resource

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// clearAWS keeps the developer's AWS environment out of a test.
func clearAWS(t *testing.T) {
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SECRETS_MANAGER", "AWS_ENDPOINT_URL_SSM", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "FRAMEWORK_LOCAL_RESOURCES"} {
		t.Setenv(k, "")
	}
}

// captureWarnings sends the handles' lines to w during the test.
func captureWarnings(t *testing.T, w io.Writer) {
	saved := warnTo
	warnTo = w
	t.Cleanup(func() { warnTo = saved })
}

// The handles read the names, ARNs and URLs the stack puts in the
// function's environment.
func TestHandlesReadTheEnvironment(t *testing.T) {
	app := framework.New("todo")
	todos := NewTable(app, "todos", TableSpec{PartitionKey: Key{Name: "id", Type: String}, Stream: NewImage})
	jobs := NewQueue(app, "jobs", QueueSpec{})
	topic := NewTopic(app, "events")
	files := NewBucket(app, "files", BucketSpec{})
	apiKey := NewSecret(app, "apiKey")
	flag := NewParameter(app, "flag")
	env := map[string]string{
		"FRAMEWORK_RES_TODOS_NAME":       "todo-dev-todos-1A2B",
		"FRAMEWORK_RES_TODOS_ARN":        "arn:aws:dynamodb:us-east-1:123456789012:table/todo-dev-todos-1A2B",
		"FRAMEWORK_RES_TODOS_STREAM_ARN": "arn:aws:dynamodb:us-east-1:123456789012:table/todo-dev-todos-1A2B/stream/2026-01-01T00:00:00.000",
		"FRAMEWORK_RES_JOBS_NAME":        "todo-dev-jobs-9Z",
		"FRAMEWORK_RES_JOBS_ARN":         "arn:aws:sqs:us-east-1:123456789012:todo-dev-jobs-9Z",
		"FRAMEWORK_RES_JOBS_URL":         "https://sqs.us-east-1.amazonaws.com/123456789012/todo-dev-jobs-9Z",
		"FRAMEWORK_RES_EVENTS_NAME":      "todo-dev-events-X",
		"FRAMEWORK_RES_EVENTS_ARN":       "arn:aws:sns:us-east-1:123456789012:todo-dev-events-X",
		"FRAMEWORK_RES_FILES_NAME":       "todo-dev-files-abc",
		"FRAMEWORK_RES_FILES_ARN":        "arn:aws:s3:::todo-dev-files-abc",
		"FRAMEWORK_RES_APIKEY_NAME":      "apiKeyA1-B2",
		"FRAMEWORK_RES_APIKEY_ARN":       "arn:aws:secretsmanager:us-east-1:123456789012:secret:apiKeyA1-B2-xyz123",
		"FRAMEWORK_RES_FLAG_NAME":        "/todo/dev/flag",
		"FRAMEWORK_RES_FLAG_ARN":         "arn:aws:ssm:us-east-1:123456789012:parameter/todo/dev/flag",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	var warned bytes.Buffer
	captureWarnings(t, &warned)
	for _, c := range []struct {
		key string
		get func() string
	}{
		{"FRAMEWORK_RES_TODOS_NAME", todos.Name}, {"FRAMEWORK_RES_TODOS_ARN", todos.ARN}, {"FRAMEWORK_RES_TODOS_STREAM_ARN", todos.StreamARN},
		{"FRAMEWORK_RES_JOBS_NAME", jobs.Name}, {"FRAMEWORK_RES_JOBS_ARN", jobs.ARN}, {"FRAMEWORK_RES_JOBS_URL", jobs.URL},
		{"FRAMEWORK_RES_EVENTS_NAME", topic.Name}, {"FRAMEWORK_RES_EVENTS_ARN", topic.ARN},
		{"FRAMEWORK_RES_FILES_NAME", files.Name}, {"FRAMEWORK_RES_FILES_ARN", files.ARN},
		{"FRAMEWORK_RES_APIKEY_NAME", apiKey.Name}, {"FRAMEWORK_RES_APIKEY_ARN", apiKey.ARN},
		{"FRAMEWORK_RES_FLAG_NAME", flag.Name}, {"FRAMEWORK_RES_FLAG_ARN", flag.ARN},
	} {
		if got := c.get(); got != env[c.key] {
			t.Errorf("handle of %s answered %q, want %q", c.key, got, env[c.key])
		}
	}
	if warned.Len() != 0 {
		t.Errorf("a handle complained with its environment set: %s", warned.String())
	}
}

// Without the environment, a handle answers "" and writes one line, once,
// naming both ways to get its resource; each handle writes its own.
func TestMissingEnvironmentLineOncePerHandle(t *testing.T) {
	app := framework.New("todo")
	todos := NewTable(app, "todos", TableSpec{PartitionKey: Key{Name: "id", Type: String}})
	jobs := NewQueue(app, "jobs", QueueSpec{})
	for _, k := range []string{"FRAMEWORK_RES_TODOS_NAME", "FRAMEWORK_RES_TODOS_ARN", "FRAMEWORK_RES_JOBS_URL"} {
		t.Setenv(k, "")
	}
	var warned bytes.Buffer
	captureWarnings(t, &warned)
	for range 3 {
		if todos.Name() != "" || todos.ARN() != "" || jobs.URL() != "" {
			t.Fatal("a handle answered a name without its environment")
		}
	}
	lines := strings.Split(strings.TrimSuffix(warned.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per handle (2):\n%s", len(lines), warned.String())
	}
	for i, want := range []string{`table "todos": FRAMEWORK_RES_TODOS_NAME is not set`, `queue "jobs": FRAMEWORK_RES_JOBS_URL is not set`} {
		for _, w := range []string{want, "framework local --stage S", "framework local --aws-endpoint URL", "moto, LocalStack"} {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d does not say %q: %s", i+1, w, lines[i])
			}
		}
	}
}

// Secret.Value and Parameter.Value read Secrets Manager and SSM (moto
// here, through AWS_ENDPOINT_URL), say how to set a value never set, and
// reuse a value for a while only.
func TestValuesFromMoto(t *testing.T) {
	moto := mototest.Start(t)
	clearAWS(t)
	t.Setenv("AWS_ENDPOINT_URL", moto.URL)
	t.Setenv("AWS_REGION", mototest.Region)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAMOTOTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "moto-secret")
	ctx := context.Background()
	call := func(service, op string, in any, out any) {
		t.Helper()
		if err := awscall.Call(ctx, service, op, in, out); err != nil {
			t.Fatal(err)
		}
	}
	var created struct{ ARN, Name string }
	call("secretsmanager", "CreateSecret", map[string]string{"Name": "apiKeyA1-B2", "SecretString": "first"}, &created)
	t.Setenv("FRAMEWORK_RES_APIKEY_NAME", created.Name)
	t.Setenv("FRAMEWORK_RES_APIKEY_ARN", created.ARN)
	call("ssm", "PutParameter", map[string]any{"Name": "/todo/dev/flag", "Value": "on", "Type": "SecureString"}, nil)
	t.Setenv("FRAMEWORK_RES_FLAG_NAME", "/todo/dev/flag")
	t.Setenv("FRAMEWORK_RES_FLAG_ARN", "arn:aws:ssm:us-east-1:123456789012:parameter/todo/dev/flag")
	call("ssm", "PutParameter", map[string]any{"Name": "/todo/dev/unset", "Value": "framework:unset", "Type": "String"}, nil)
	t.Setenv("FRAMEWORK_RES_UNSET_NAME", "/todo/dev/unset")

	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now = func() time.Time { return clock }
	t.Cleanup(func() { now = time.Now })

	app := framework.New("todo")
	apiKey, flag, unset := NewSecret(app, "apiKey"), NewParameter(app, "flag"), NewParameter(app, "unset")
	value := func(get func(context.Context) (string, error), want string) {
		t.Helper()
		got, err := get(ctx)
		if err != nil || got != want {
			t.Fatalf("value %q, %v; want %q", got, err, want)
		}
	}
	value(apiKey.Value, "first")
	value(flag.Value, "on")

	call("secretsmanager", "PutSecretValue", map[string]string{"SecretId": created.ARN, "SecretString": "second"}, nil)
	clock = clock.Add(cacheFor - time.Second)
	value(apiKey.Value, "first") // reused
	clock = clock.Add(time.Second)
	value(apiKey.Value, "second") // read again

	// A value never set: how to set it where the app runs.
	endpoint := os.Getenv("AWS_ENDPOINT_URL")
	for _, c := range []struct{ endpoint, stage, want string }{
		{endpoint, "", "set it with `framework secret set unset --aws-endpoint " + endpoint + "` (the emulator the app uses)"},
		{"", "dev", "set it with `framework secret set unset --stage dev`"},
		{"", "", "set it with `framework secret set unset --stage S` (S: the stage)"},
	} {
		t.Setenv("FRAMEWORK_STAGE", c.stage)
		if c.endpoint == "" {
			// Deployed, the calls go to AWS: here, still to moto.
			t.Setenv("AWS_ENDPOINT_URL_SSM", endpoint)
		}
		t.Setenv("AWS_ENDPOINT_URL", c.endpoint)
		clock = clock.Add(cacheFor)
		_, err := unset.Value(ctx)
		if err == nil || !strings.Contains(err.Error(), "parameter \"unset\" has no value yet: "+c.want) {
			t.Errorf("unset value with endpoint %q and stage %q: %v, want %q", c.endpoint, c.stage, err, c.want)
		}
	}
	t.Setenv("AWS_ENDPOINT_URL", endpoint)

	t.Setenv("FRAMEWORK_RES_APIKEY_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:gone-abcdef")
	clock = clock.Add(cacheFor)
	_, err := apiKey.Value(ctx)
	if err == nil || !strings.Contains(err.Error(), `secret "apiKey": secretsmanager GetSecretValue: ResourceNotFoundException`) {
		t.Errorf("missing secret: %v, want AWS's error naming the secret", err)
	}
}

// Without the environment, Value is an error naming the two ways to get
// the resource, and no call is made.
func TestValueWithoutEnvironment(t *testing.T) {
	t.Setenv("FRAMEWORK_RES_APIKEY_ARN", "")
	captureWarnings(t, &bytes.Buffer{})
	_, err := NewSecret(framework.New("todo"), "apiKey").Value(context.Background())
	if err == nil || !strings.Contains(err.Error(), "FRAMEWORK_RES_APIKEY_ARN is not set") || !strings.Contains(err.Error(), "--aws-endpoint URL") {
		t.Fatalf("Value: %v", err)
	}
}

// A table declared without a stream has no stream ARN: StreamARN answers ""
// without claiming the environment is missing, which would send the user
// to `framework local --stage` for nothing.
func TestStreamARNOfATableWithoutStream(t *testing.T) {
	app := framework.New("todo")
	plain := NewTable(app, "plain", TableSpec{PartitionKey: Key{Name: "id", Type: String}})
	t.Setenv("FRAMEWORK_RES_PLAIN_STREAM_ARN", "")
	var warned bytes.Buffer
	captureWarnings(t, &warned)
	if got := plain.StreamARN(); got != "" {
		t.Errorf("StreamARN = %q, want \"\"", got)
	}
	if warned.Len() != 0 {
		t.Errorf("a table without a stream warned: %s", warned.String())
	}
}

// Behind framework local's IAM check, AWS_ENDPOINT_URL is its proxy and
// the function is not given the emulator's URL: the advice to set a value
// names the flag to pass the emulator's URL with, and the stage; against
// the deployed stage, the stage; never the proxy.
func TestSetAdviceBehindTheIAMCheck(t *testing.T) {
	clearAWS(t)
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:40000")
	t.Setenv("FRAMEWORK_STAGE", "dev")
	t.Setenv("FRAMEWORK_LOCAL_RESOURCES", "emulator")
	if got := setAdvice("token"); !strings.Contains(got, "`framework secret set token --stage dev --aws-endpoint URL`") ||
		!strings.Contains(got, "URL: the emulator framework local runs against") || strings.Contains(got, "40000") {
		t.Errorf("with an emulator: %q, want the command with --aws-endpoint URL, what URL is, and not the proxy", got)
	}
	t.Setenv("FRAMEWORK_LOCAL_RESOURCES", "stage")
	if got := setAdvice("token"); !strings.Contains(got, "--stage dev") || strings.Contains(got, "40000") || strings.Contains(got, "--aws-endpoint") {
		t.Errorf("against the deployed stage: %q, want the stage and not the proxy", got)
	}
}

// A queue's DeadLetter handle reads its dead-letter queue's attributes
// from the environment; on a queue declared without one, they are "" and
// one line says how to declare it.
func TestDeadLetterHandle(t *testing.T) {
	app := framework.New("todo")
	jobs := NewQueue(app, "jobs", QueueSpec{MaxReceiveCount: 3})
	plain := NewQueue(app, "plain", QueueSpec{})
	t.Setenv("FRAMEWORK_RES_JOBS_DLQ_NAME", "todo-dev-jobsdlq-9Z")
	t.Setenv("FRAMEWORK_RES_JOBS_DLQ_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/todo-dev-jobsdlq-9Z")
	t.Setenv("FRAMEWORK_RES_JOBS_DLQ_ARN", "arn:aws:sqs:us-east-1:123456789012:todo-dev-jobsdlq-9Z")
	var warned bytes.Buffer
	captureWarnings(t, &warned)
	d := jobs.DeadLetter()
	if d.Name() != "todo-dev-jobsdlq-9Z" || !strings.HasSuffix(d.URL(), "/todo-dev-jobsdlq-9Z") || d.ARN() != "arn:aws:sqs:us-east-1:123456789012:todo-dev-jobsdlq-9Z" {
		t.Errorf("DeadLetter() = %q %q %q", d.Name(), d.URL(), d.ARN())
	}
	if warned.Len() != 0 {
		t.Errorf("warned: %s", warned.String())
	}
	if plain.DeadLetter().URL() != "" || plain.DeadLetter().ARN() != "" {
		t.Error("a queue without a dead-letter queue gave one")
	}
	if n := strings.Count(warned.String(), "\n"); n != 1 || !strings.Contains(warned.String(), `queue "plain"`) || !strings.Contains(warned.String(), "QueueSpec.MaxReceiveCount") {
		t.Errorf("%d lines: %q, want one naming the queue and MaxReceiveCount", n, warned.String())
	}
}
