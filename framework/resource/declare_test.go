package resource_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

func noSQS(context.Context, events.SQSEvent) error { return nil }

func partialSQS(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return events.SQSEventResponse{}, nil
}

func noDynamo(context.Context, events.DynamoDBEvent) error { return nil }

func key(name string) resource.Key { return resource.Key{Name: name, Type: resource.String} }

// Every kind of resource, app-wide and per-handler accesses, and declared
// sources reach the manifest as the stack reads it.
func TestDeclarationsReachTheManifest(t *testing.T) {
	app := framework.New("todo")
	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: key("id"), SortKey: resource.Key{Name: "at", Type: resource.Number}, TTLAttribute: "expires", Stream: resource.NewImage})
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{MaxReceiveCount: 3, VisibilityTimeout: time.Minute})
	topic := resource.NewTopic(app, "events")
	files := resource.NewBucket(app, "files", resource.BucketSpec{EmptyOnDestroy: true})
	apiKey := resource.NewSecret(app, "apiKey")
	flag := resource.NewParameter(app, "flag")

	todos.Allow(resource.ReadWrite)
	jobs.Allow(resource.Send, "add")
	jobs.Allow(resource.Consume, "worker")
	topic.Allow("worker", "add")
	files.Allow(resource.Read, "worker")
	apiKey.Allow("add")
	flag.Allow()
	app.Route("/todos", func(r *framework.Request) (any, error) { return nil, nil }, framework.Methods("POST"), framework.Name("add"))
	app.OnSQSPartialBatch("worker", jobs.Ref(), partialSQS)
	app.OnDynamoDBRecord("audit", todos.Stream(), noDynamo)
	app.OnSNSMessage("fanout", topic.Ref(), func(context.Context, events.SNSEvent) error { return nil })
	app.OnS3Event("uploaded", files.Ref(), func(context.Context, events.S3Event) error { return nil })
	app.OnSQSMessage("external", "arn:aws:sqs:us-east-1:123456789012:theirs", noSQS)

	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	j := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	if got, want := j(m.Resources), `[`+
		`{"name":"apiKey","kind":"secret"},`+
		`{"name":"events","kind":"topic"},`+
		`{"name":"files","kind":"bucket","empty_on_destroy":true},`+
		`{"name":"flag","kind":"parameter"},`+
		`{"name":"jobs","kind":"queue","visibility_timeout_seconds":60,"max_receive_count":3},`+
		`{"name":"todos","kind":"table","partition_key":{"name":"id","type":"S"},"sort_key":{"name":"at","type":"N"},"ttl_attribute":"expires","stream":"NEW_IMAGE"}]`; got != want {
		t.Errorf("resources\n got %s\nwant %s", got, want)
	}
	if got, want := j(m.Grants), `[{"resource":"todos","access":"read_write"},{"resource":"flag","access":"read"}]`; got != want {
		t.Errorf("app-wide grants %s, want %s", got, want)
	}
	if got, want := j(m.Routes[0].Grants), `[{"resource":"jobs","access":"send"},{"resource":"events","access":"publish"},{"resource":"apiKey","access":"read"}]`; got != want {
		t.Errorf("route add's grants %s, want %s", got, want)
	}
	fns := map[string]manifest.Function{}
	for _, f := range m.Functions {
		fns[f.Name] = f
	}
	if got, want := j(fns["worker"].Grants), `[{"resource":"jobs","access":"consume"},{"resource":"events","access":"publish"},{"resource":"files","access":"read"}]`; got != want {
		t.Errorf("worker's grants %s, want %s", got, want)
	}
	for name, want := range map[string][2]string{
		"worker": {"jobs", ""}, "audit": {"todos", ""}, "fanout": {"events", ""}, "uploaded": {"files", ""},
		"external": {"", "arn:aws:sqs:us-east-1:123456789012:theirs"},
	} {
		if f := fns[name]; f.SourceResource != want[0] || f.Source != want[1] {
			t.Errorf("%s: source_resource %q, source %q; want %q, %q", name, f.SourceResource, f.Source, want[0], want[1])
		}
	}
	if fns["audit"].Grants != nil || fns["external"].Grants != nil {
		t.Errorf("handlers granted nothing have grants: %v, %v", fns["audit"].Grants, fns["external"].Grants)
	}
}

// Bad declarations are start-up errors, reported with the rest by
// Validate, each naming the declaration.
func TestDeclarationErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		declare func(app *framework.App)
		want    []string
	}{
		{"two resources with one name", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{})
			resource.NewTopic(app, "Jobs")
		}, []string{`topic "Jobs" declared at resource/declare_test.go:`, `: queue "jobs" declared at resource/declare_test.go:`, `has the same name`}},
		{"access for an unknown handler", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{}).Allow(resource.Consume, "wroker")
			app.OnSQSMessage("worker", "q", noSQS)
		}, []string{`access "consume" to resource "jobs" granted at resource/declare_test.go:`, `to handler "wroker", which the app does not declare`}},
		{"stream of a table without one", func(app *framework.App) {
			todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: key("id")})
			app.OnDynamoDBRecord("audit", todos.Stream(), noDynamo)
		}, []string{`dynamodb handler "audit": table "todos" has no stream: declare the table with a stream`}},
		{"a resource of another app", func(app *framework.App) {
			other := resource.NewQueue(framework.New("other"), "jobs", resource.QueueSpec{})
			app.OnSQSMessage("worker", other.Ref(), noSQS)
		}, []string{`sqs handler "worker": its source is resource "jobs", which the app does not declare`}},
		{"a queue feeding an S3 handler", func(app *framework.App) {
			jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
			app.OnS3Event("uploaded", jobs.Ref(), func(context.Context, events.S3Event) error { return nil })
		}, []string{`s3 handler "uploaded": its source queue "jobs" cannot feed an s3 handler`}},
		{"zero access", func(app *framework.App) {
			resource.NewBucket(app, "files", resource.BucketSpec{}).Allow(resource.DataAccess{})
		}, []string{`bucket "files" (declared at resource/declare_test.go:`, `is the zero value`}},
		{"visibility timeout not in seconds", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{VisibilityTimeout: 1500 * time.Millisecond})
		}, []string{`queue "jobs" (declared at resource/declare_test.go:`, `visibility timeout 1.5s is not whole seconds`}},
		{"table without a partition key", func(app *framework.App) {
			resource.NewTable(app, "todos", resource.TableSpec{})
		}, []string{`table "todos": a table needs a partition key`}},
		// A handler's name may hold a hyphen, a resource's not: the error
		// says the rule, why, and a name that follows it.
		{"hyphen in the name", func(app *framework.App) { resource.NewSecret(app, "api-key") },
			[]string{`secret "api-key": the name "api-key" must be 1 to 64 letters and digits, starting with a letter`,
				`unlike a handler's name it holds no hyphen nor underscore`, `FRAMEWORK_RES_<NAME>_<ATTR>`, `rename it, for example to "apiKey"`}},
		{"underscore in the name", func(app *framework.App) {
			resource.NewTable(app, "order_items", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
		}, []string{`table "order_items": the name "order_items" must be`, `for example to "orderItems"`}},
		{"name starting with a digit", func(app *framework.App) { resource.NewQueue(app, "2fa-codes", resource.QueueSpec{}) },
			[]string{`queue "2fa-codes": the name "2fa-codes" must be`, `environment variables FRAMEWORK_RES_<NAME>_<ATTR> that carry the resource to the functions; rename it`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := framework.New("app")
			tc.declare(app)
			err := app.Validate()
			if _, ok := err.(interface{ Unwrap() []error }); !ok {
				t.Fatalf("Validate: %v, want the declaration errors", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// A resource declared after the app started serving is refused.
func TestDeclarationAfterStart(t *testing.T) {
	app := framework.New("app")
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	resource.NewTopic(app, "late")
	if err := app.Validate(); err == nil || !strings.Contains(err.Error(), `topic "late" declared at resource/declare_test.go:`) {
		t.Fatalf("Validate: %v, want the late declaration refused", err)
	}
}

// A queue's access given to a table does not compile.
func TestWrongAccessDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "vet", "./testdata/wrongaccess").CombinedOutput()
	if err == nil {
		t.Fatalf("go vet accepted the fixture:\n%s", out)
	}
	for _, w := range []string{"main.go:12:", "resource.Send", "QueueAccess", "DataAccess"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("the compiler's message does not say %q:\n%s", w, out)
		}
	}
}

// An app that declares resources links neither the AWS SDK nor the CDK:
// the handles call AWS through internal/awscall.
func TestDoesNotLinkTheSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", "github.com/framework-dev/framework/framework/resource").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/aws/aws-sdk-go") || strings.HasPrefix(dep, "github.com/aws/aws-cdk-go") || strings.HasPrefix(dep, "github.com/aws/jsii-runtime-go") {
			t.Errorf("package resource depends on %s", dep)
		}
	}
}
