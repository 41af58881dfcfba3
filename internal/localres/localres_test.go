package localres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/mototest"
)

// startMoto starts moto and points this process's AWS configuration at
// nothing else: fixed credentials and region, no shared files.
func startMoto(t *testing.T) *mototest.Server {
	t.Helper()
	m := mototest.Start(t)
	for k, v := range m.Environ(t.TempDir()) {
		t.Setenv(k, v)
	}
	return m
}

func declared() *manifest.Manifest {
	return &manifest.Manifest{App: "shop", Resources: []manifest.Resource{
		{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, Stream: "NEW_IMAGE", TTLAttribute: "expires"},
		{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 3, VisibilityTimeoutSeconds: 2},
		{Name: "events", Kind: manifest.ResourceTopic},
		{Name: "uploads", Kind: manifest.ResourceBucket},
		{Name: "apiKey", Kind: manifest.ResourceSecret},
		{Name: "flags", Kind: manifest.ResourceParameter},
	}}
}

func envMap(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

func TestEmulatorCreatesTheDeclaredResourcesOnce(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := declared()
	o := Options{App: "shop", Stage: "dev", Endpoint: moto.URL}
	r, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(r.Env)
	want := map[string]string{
		"AWS_ENDPOINT_URL":               moto.URL,
		"FRAMEWORK_RES_TODOS_NAME":       "shop-dev-todos",
		"FRAMEWORK_RES_JOBS_NAME":        "shop-dev-jobs",
		"FRAMEWORK_RES_EVENTS_NAME":      "shop-dev-events",
		"FRAMEWORK_RES_UPLOADS_NAME":     "shop-dev-uploads",
		"FRAMEWORK_RES_UPLOADS_ARN":      "arn:aws:s3:::shop-dev-uploads",
		"FRAMEWORK_RES_APIKEY_NAME":      "shop-dev-apikey",
		"FRAMEWORK_RES_FLAGS_NAME":       "shop-dev-flags",
		"FRAMEWORK_RES_EVENTS_ARN":       "arn:aws:sns:us-east-1:123456789012:shop-dev-events",
		"FRAMEWORK_RES_JOBS_ARN":         "arn:aws:sqs:us-east-1:123456789012:shop-dev-jobs",
		"FRAMEWORK_RES_TODOS_ARN":        "arn:aws:dynamodb:us-east-1:123456789012:table/shop-dev-todos",
		"FRAMEWORK_RES_TODOS_STREAM_ARN": "",
	}
	for k, v := range want {
		got, ok := env[k]
		if !ok || v != "" && got != v {
			t.Errorf("%s = %q (set: %v), want %q", k, got, ok, v)
		}
	}
	if !strings.Contains(env["FRAMEWORK_RES_TODOS_STREAM_ARN"], "table/shop-dev-todos/stream/") {
		t.Errorf("stream ARN %q", env["FRAMEWORK_RES_TODOS_STREAM_ARN"])
	}
	if !strings.Contains(env["FRAMEWORK_RES_JOBS_URL"], "shop-dev-jobs") {
		t.Errorf("queue URL %q", env["FRAMEWORK_RES_JOBS_URL"])
	}

	// What was created is what the declarations say.
	c := r.Client
	var q struct{ Attributes map[string]string }
	if err := c.Call(ctx, "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": env["FRAMEWORK_RES_JOBS_URL"], "AttributeNames": []string{"All"}}, &q); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(q.Attributes["RedrivePolicy"], "shop-dev-jobs-dlq") || q.Attributes["VisibilityTimeout"] != "2" {
		t.Errorf("queue attributes %v: want a redrive policy to shop-dev-jobs-dlq and a 2 s visibility timeout", q.Attributes)
	}
	var sec struct{ SecretString string }
	if err := c.Call(ctx, "secretsmanager", "GetSecretValue", map[string]any{"SecretId": "shop-dev-apikey"}, &sec); err != nil || sec.SecretString != manifest.UnsetValue {
		t.Errorf("secret: %q, %v; want %q", sec.SecretString, err, manifest.UnsetValue)
	}
	var par struct{ Parameter struct{ Value string } }
	if err := c.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": "shop-dev-flags"}, &par); err != nil || par.Parameter.Value != manifest.UnsetValue {
		t.Errorf("parameter: %q, %v; want %q", par.Parameter.Value, err, manifest.UnsetValue)
	}

	// A second run finds them, and leaves a value set meanwhile alone.
	if err := c.Call(ctx, "secretsmanager", "PutSecretValue", map[string]any{"SecretId": "shop-dev-apikey", "SecretString": "s3cr3t"}, nil); err != nil {
		t.Fatal(err)
	}
	r2, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !slices.Equal(r.Env, r2.Env) {
		t.Errorf("second run's environment differs:\n%v\n%v", r.Env, r2.Env)
	}
	if err := c.Call(ctx, "secretsmanager", "GetSecretValue", map[string]any{"SecretId": "shop-dev-apikey"}, &sec); err != nil || sec.SecretString != "s3cr3t" {
		t.Errorf("secret after a second run: %q, %v; want the value set", sec.SecretString, err)
	}
}

func TestDeployedStageOutputs(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}}}
	o := Options{App: "shop", Stage: "dev"}

	_, err := Resolve(ctx, m, o)
	if !errors.Is(err, ErrNoneDeployed) || !strings.Contains(err.Error(), "framework deploy --stage dev") || !strings.Contains(err.Error(), "--aws-endpoint") {
		t.Fatalf("no stack: got %v, want the line naming deploy and --aws-endpoint", err)
	}

	moto.CreateStack(t, "shop-dev", `{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}},
		"Outputs": {"ResJobsName": {"Value": "real-jobs"}, "ResJobsArn": {"Value": "arn:aws:sqs:us-east-1:123456789012:real-jobs"}, "ResJobsUrl": {"Value": "https://sqs/real-jobs"}}}`)
	r, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(r.Env)
	if env["FRAMEWORK_RES_JOBS_NAME"] != "real-jobs" || env["FRAMEWORK_RES_JOBS_URL"] != "https://sqs/real-jobs" || env["AWS_ENDPOINT_URL"] != "" {
		t.Errorf("environment %v: want the stack's outputs and no endpoint", r.Env)
	}

	m.Resources = append(m.Resources, manifest.Resource{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}})
	r, err = Resolve(ctx, m, o)
	if !errors.Is(err, ErrNoneDeployed) || !strings.Contains(err.Error(), `table "todos"`) || r == nil || envMap(r.Env)["FRAMEWORK_RES_JOBS_NAME"] != "real-jobs" {
		t.Errorf("a resource declared after the deploy: got %v; want it named, and the others still set", err)
	}
}

// deliveries collects what a Deliverer reports.
type deliveries struct {
	mu  sync.Mutex
	got []Delivery
	ch  chan Delivery
}

func (d *deliveries) report(del Delivery) {
	d.mu.Lock()
	d.got = append(d.got, del)
	d.mu.Unlock()
	d.ch <- del
}

func (d *deliveries) wait(t *testing.T, within time.Duration) Delivery {
	t.Helper()
	select {
	case del := <-d.ch:
		return del
	case <-time.After(within):
		t.Fatalf("no delivery within %s", within)
	}
	return Delivery{}
}

func TestQueueHandlerGetsTheMessagesAndFailedOnesStay(t *testing.T) {
	moto := startMoto(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, VisibilityTimeoutSeconds: 1}},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs", ReportBatchItemFailures: true, BatchSize: 10}},
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["jobs"][manifest.AttrURL]
	sdk := sqs.NewFromConfig(moto.Config())

	var mu sync.Mutex
	var bodies []string
	got := &deliveries{ch: make(chan Delivery, 10)}
	d := &Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev", Report: got.report,
		Invoke: func(_ context.Context, fn *manifest.Function, event []byte) (*Outcome, error) {
			var ev events.SQSEvent
			if err := json.Unmarshal(event, &ev); err != nil {
				return nil, err
			}
			var resp events.SQSEventResponse
			mu.Lock()
			for _, rec := range ev.Records {
				bodies = append(bodies, rec.Body)
				if rec.EventSourceARN != r.Attrs["jobs"][manifest.AttrARN] {
					t.Errorf("record's source %q, want the queue's ARN", rec.EventSourceARN)
				}
				if rec.Body == "bad" {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
				}
			}
			mu.Unlock()
			b, _ := json.Marshal(resp)
			return &Outcome{Payload: b}, nil
		}}
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()

	if _, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("hello")}); err != nil {
		t.Fatal(err)
	}
	del := got.wait(t, 5*time.Second)
	if del.Function != "work" || del.Messages != 1 || len(del.Failed) != 0 || del.Error != "" {
		t.Errorf("delivery %+v", del)
	}

	sent, err := sdk.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []sqstypes.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("good")}, {Id: aws.String("b"), MessageBody: aws.String("bad")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	badID := ""
	for _, s := range sent.Successful {
		if aws.ToString(s.Id) == "b" {
			badID = aws.ToString(s.MessageId)
		}
	}
	n := 0
	for n < 2 {
		del := got.wait(t, 5*time.Second)
		n += del.Messages
		for _, id := range del.Failed {
			if id != badID {
				t.Errorf("message %s reported failed, want only %s", id, badID)
			}
		}
	}
	cancel()
	<-done

	// Exactly the failed message is left: it comes back once its
	// visibility timeout (1 s) ends.
	out, err := sdk.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 5})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, msg := range out.Messages {
		left = append(left, fmt.Sprintf("%s %s", aws.ToString(msg.MessageId), aws.ToString(msg.Body)))
	}
	if len(left) != 1 || left[0] != badID+" bad" {
		t.Errorf("left on the queue: %v; want only %s bad", left, badID)
	}
}

// What the emulator cannot create is named, and the rest is still given:
// here an emulator that serves DynamoDB only, as DynamoDB Local does.
func TestEmulatorPartialFailure(t *testing.T) {
	moto := startMoto(t)
	target, _ := url.Parse(moto.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	dynamoOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_") {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#UnknownOperationException"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer dynamoOnly.Close()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{
		{Name: "jobs", Kind: manifest.ResourceQueue},
		{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}},
	}}
	r, err := Resolve(context.Background(), m, Options{App: "shop", Stage: "dev", Endpoint: dynamoOnly.URL})
	if err == nil || !strings.Contains(err.Error(), `create queue "jobs" at `+dynamoOnly.URL) || !strings.Contains(err.Error(), "UnknownOperationException") || strings.Contains(err.Error(), "todos") {
		t.Errorf("error %v: want the queue named, not the table", err)
	}
	if r == nil || envMap(r.Env)["FRAMEWORK_RES_TODOS_NAME"] != "shop-dev-todos" || envMap(r.Env)["FRAMEWORK_RES_JOBS_NAME"] != "" {
		t.Errorf("resources %+v: want the table only", r)
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, ok := range []string{"http://localhost:4566", "https://emulator.example:443/"} {
		if err := CheckEndpoint(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"localhost:4566", "4566", "ftp://x", "http://"} {
		if err := CheckEndpoint(bad); err == nil || !strings.Contains(err.Error(), "http://localhost:4566") {
			t.Errorf("%s: got %v, want an error showing a URL", bad, err)
		}
	}
}

// A queue handler with a batching window gets its batch gathered across
// receives, as Lambda's event source mapping does: up to its batch size
// (more than one receive's 10), or what came within the window.
func TestQueueBatchingWindowGathers(t *testing.T) {
	moto := startMoto(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs", BatchSize: 25, MaxBatchingWindowSeconds: 2}},
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["jobs"][manifest.AttrURL]
	sdk := sqs.NewFromConfig(moto.Config())
	send := func(from, n int) {
		t.Helper()
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i := from; i < from+n; i++ {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("m", i)), MessageBody: aws.String(fmt.Sprint(i))})
			if len(entries) == 10 || i == from+n-1 {
				if _, err := sdk.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries}); err != nil {
					t.Fatal(err)
				}
				entries = nil
			}
		}
	}
	send(0, 30)

	got := &deliveries{ch: make(chan Delivery, 10)}
	d := &Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev", Report: got.report,
		Invoke: func(context.Context, *manifest.Function, []byte) (*Outcome, error) {
			return &Outcome{Payload: []byte("null")}, nil
		}}
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()

	if del := got.wait(t, 10*time.Second); del.Messages != 25 || del.Error != "" {
		t.Errorf("first delivery %+v: want a batch of 25 (the batch size) gathered from several receives", del)
	}
	// The 5 left make a batch when the window ends.
	if del := got.wait(t, 10*time.Second); del.Messages != 5 {
		t.Errorf("second delivery %+v: want the 5 messages left, once the window passed", del)
	}
	cancel()
	<-done
}
