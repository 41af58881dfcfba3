package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/mototest"
)

// The manifest declares the table, queue, topic, bucket and secret, and
// each handler's accesses: the stack creates them and grants exactly those.
func TestManifestDeclaresResourcesAndGrants(t *testing.T) {
	app := newApp()
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range m.Resources {
		kinds = append(kinds, r.Name+":"+string(r.Kind))
	}
	if got, want := strings.Join(kinds, " "), "apiKey:secret events:topic files:bucket history:queue jobs:queue todos:table"; got != want {
		t.Errorf("resources %s, want %s", got, want)
	}
	if todos := m.Resource("todos"); todos.Stream != "NEW_IMAGE" || todos.PartitionKey.Name != "id" {
		t.Errorf("table %+v: want a stream and the partition key id", todos)
	}
	if todos := m.Resource("todos"); len(todos.GlobalIndexes) != 1 || todos.GlobalIndexes[0].Name != "byOwner" || todos.GlobalIndexes[0].PartitionKey.Name != "owner" {
		t.Errorf("table's global indexes %+v: want byOwner on owner", todos.GlobalIndexes)
	}
	if jobs := m.Resource("jobs"); jobs.MaxReceiveCount != 3 || jobs.VisibilityTimeoutSeconds != 60 {
		t.Errorf("queue %+v: want a dead-letter queue after 3 receives and 60 s", jobs)
	}
	if h := m.Resource("history"); !h.FIFO || !h.ContentBasedDeduplication || h.MessageRetentionSeconds != 86400 || !h.HasDeadLetter() {
		t.Errorf("queue %+v: want FIFO, deduplicated by content, kept a day, with a dead-letter queue", h)
	}
	if len(m.Grants) != 0 {
		t.Errorf("app-wide grants %v: every access is per handler", m.Grants)
	}
	grants := map[string][]string{}
	for _, r := range m.Routes {
		for _, g := range r.Grants {
			grants[r.Handler] = append(grants[r.Handler], g.Resource+":"+string(g.Access))
		}
	}
	sources := map[string]string{}
	for _, f := range m.Functions {
		for _, g := range f.Grants {
			grants[f.Name] = append(grants[f.Name], g.Resource+":"+string(g.Access))
		}
		sources[f.Name] = f.SourceResource
	}
	for handler, want := range map[string][]string{
		"add":         {"todos:read_write", "apiKey:read", "jobs:send"},
		"get":         {"todos:read"},
		"byOwner":     {"todos:read"},
		"done":        {"todos:read_write", "events:publish", "history:send"},
		"attachments": {"files:read"},
		"attach":      {"files:write"},
	} {
		if !slices.Equal(grants[handler], want) {
			t.Errorf("%s's accesses %v, want %v", handler, grants[handler], want)
		}
	}
	if want := map[string]string{"done": "jobs", "history": "history", "audit": "todos", "notify": "events", "attachments": "files"}; !mapsEqual(sources, want) {
		t.Errorf("handlers' sources %v, want %v", sources, want)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Against moto, with the environment the stack would give: POST checks
// the secret API key and writes the item, GET reads it back, a queue
// message marks it done and publishes on the topic (or fails), and an unknown id
// fails that message alone.
func TestAgainstMoto(t *testing.T) {
	moto := mototest.Start(t)
	for k, v := range moto.Environ(t.TempDir()) {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	cfg := moto.Config()
	_, err := dynamodb.NewFromConfig(cfg).CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("todo-dev-todos"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	topic, err := sns.NewFromConfig(cfg).CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("todo-dev-events")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("todo-dev-files")}); err != nil {
		t.Fatal(err)
	}
	hist, err := sqs.NewFromConfig(cfg).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("todo-dev-history.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	var secret struct{ ARN, Name string }
	if err := awscall.Call(ctx, "secretsmanager", "CreateSecret", map[string]string{"Name": "apiKey-dev", "SecretString": "k3y"}, &secret); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		manifest.ResourceEnv("todos", manifest.AttrName):  "todo-dev-todos",
		manifest.ResourceEnv("files", manifest.AttrName):  "todo-dev-files",
		manifest.ResourceEnv("events", manifest.AttrARN):  *topic.TopicArn,
		manifest.ResourceEnv("history", manifest.AttrURL): *hist.QueueUrl,
		manifest.ResourceEnv("apiKey", manifest.AttrName): secret.Name,
		manifest.ResourceEnv("apiKey", manifest.AttrARN):  secret.ARN,
	} {
		t.Setenv(k, v)
	}

	c := frameworktest.New(newApp())
	if resp := c.Lambda("POST", "/todos", []byte(`{"title":"milk"}`), map[string]string{"Content-Type": "application/json", "X-Api-Key": "wrong"}); resp.StatusCode != 401 {
		t.Errorf("POST with a wrong key: %d %s, want 401", resp.StatusCode, resp.Body)
	}
	resp := c.Lambda("POST", "/todos", []byte(`{"title":"milk"}`), map[string]string{"Content-Type": "application/json", "X-Api-Key": "k3y"})
	var added Todo
	if resp.StatusCode != 201 || resp.JSON(&added) != nil || added.ID == "" {
		t.Fatalf("POST: %d %s", resp.StatusCode, resp.Body)
	}
	read := func() Todo {
		t.Helper()
		resp := c.Lambda("GET", "/todos/"+added.ID, nil, nil)
		var got Todo
		if resp.StatusCode != 200 || json.Unmarshal(resp.Body, &got) != nil {
			t.Fatalf("GET: %d %s", resp.StatusCode, resp.Body)
		}
		return got
	}
	if got := read(); got != (Todo{ID: added.ID, Title: "milk"}) {
		t.Errorf("GET read %+v back, want %+v", got, added)
	}
	if resp := c.Lambda("GET", "/todos/nope", nil, nil); resp.StatusCode != 404 {
		t.Errorf("GET of an unknown id: %d %s", resp.StatusCode, resp.Body)
	}

	failed, err := c.SQS("done", added.ID, "unknown-id")
	if err != nil || !slices.Equal(failed, []string{"message-2"}) {
		t.Errorf("queue batch: failed %v, %v; want message-2 only", failed, err)
	}
	if got := read(); !got.Done {
		t.Errorf("after the queue's message: %+v, want done", got)
	}
	// The item's history got the change, in the item's message group.
	out, err := sqs.NewFromConfig(cfg).ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: hist.QueueUrl, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameMessageGroupId}})
	if err != nil || len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "done" || out.Messages[0].Attributes["MessageGroupId"] != added.ID {
		t.Errorf("history queue: %+v, %v; want one message \"done\" in group %s", out, err, added.ID)
	}

	// The attachment's upload URL takes the bytes, with no credentials.
	resp = c.Lambda("POST", "/todos/"+added.ID+"/attachment", nil, nil)
	var up Upload
	if resp.StatusCode != 200 || resp.JSON(&up) != nil || up.URL == "" {
		t.Fatalf("POST attachment: %d %s", resp.StatusCode, resp.Body)
	}
	req, _ := http.NewRequest("PUT", up.URL, strings.NewReader("receipt"))
	put, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	put.Body.Close()
	obj, err := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }).GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("todo-dev-files"), Key: aws.String("attachments/" + added.ID)})
	if put.StatusCode != 200 || err != nil {
		t.Fatalf("PUT to the upload URL: %d; the object: %v", put.StatusCode, err)
	}
	b, _ := io.ReadAll(obj.Body)
	if obj.Body.Close(); string(b) != "receipt" {
		t.Errorf("the attachment holds %q, want receipt", b)
	}
}

// Against moto, with the resources frameworktest.UseEmulatorAt creates as
// `framework local` does: the table has the global index byOwner, and
// GET /owners/{owner}/todos queries it for the items POSTed with that
// owner (an item without an owner is not in the index).
func TestByOwnerIndexAgainstMoto(t *testing.T) {
	moto := mototest.Start(t)
	app := newApp()
	e := frameworktest.UseEmulatorAt(t, app, moto.URL)
	// The SDK's configuration is loaded once per process: load it again
	// for this emulator.
	awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })
	e.SetSecret(t, "apiKey", "k3y")
	c := frameworktest.New(app)
	headers := map[string]string{"Content-Type": "application/json", "X-Api-Key": "k3y"}
	var ids []string
	for _, body := range []string{`{"title":"milk","owner":"ann"}`, `{"title":"bread","owner":"bob"}`, `{"title":"eggs"}`} {
		resp := c.Lambda("POST", "/todos", []byte(body), headers)
		var added Todo
		if resp.StatusCode != 201 || resp.JSON(&added) != nil {
			t.Fatalf("POST %s: %d %s", body, resp.StatusCode, resp.Body)
		}
		ids = append(ids, added.ID)
	}
	resp := c.Lambda("GET", "/owners/ann/todos", nil, nil)
	var got []Todo
	if resp.StatusCode != 200 || resp.JSON(&got) != nil {
		t.Fatalf("GET /owners/ann/todos: %d %s", resp.StatusCode, resp.Body)
	}
	if want := []Todo{{ID: ids[0], Title: "milk", Owner: "ann"}}; !slices.Equal(got, want) {
		t.Errorf("ann's items %+v, want %+v", got, want)
	}
	if resp := c.Lambda("GET", "/owners/nobody/todos", nil, nil); resp.StatusCode != 200 || strings.TrimSpace(string(resp.Body)) != "[]" {
		t.Errorf("an owner without items: %d %s, want []", resp.StatusCode, resp.Body)
	}
}
