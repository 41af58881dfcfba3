package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/testutil"
)

// resourcesManifest is an app declaring one resource of every kind, with
// accesses app-wide, per route and per handler, and handlers fed by the
// declared queue, topic, bucket and table stream.
func resourcesManifest() *manifest.Manifest {
	get := route("/todos", "GET")
	get.Grants = []manifest.Grant{{Resource: "todos", Access: manifest.AccessRead}}
	post := route("/todos", "POST")
	post.Grants = []manifest.Grant{{Resource: "todos", Access: manifest.AccessReadWrite}, {Resource: "jobs", Access: manifest.AccessSend}}
	return &manifest.Manifest{
		Version: manifest.Version, App: "todo",
		Routes: []manifest.Route{get, post},
		Resources: []manifest.Resource{
			{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"},
				SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}, TTLAttribute: "expires", Stream: "NEW_AND_OLD_IMAGES"},
			{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 3},
			{Name: "events", Kind: manifest.ResourceTopic},
			{Name: "uploads", Kind: manifest.ResourceBucket, EmptyOnDestroy: true},
			{Name: "apiKey", Kind: manifest.ResourceSecret},
			{Name: "settings", Kind: manifest.ResourceParameter},
		},
		Grants: []manifest.Grant{{Resource: "apiKey", Access: manifest.AccessRead}, {Resource: "settings", Access: manifest.AccessRead}},
		Functions: []manifest.Function{
			{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs", ReportBatchItemFailures: true,
				Grants: []manifest.Grant{{Resource: "uploads", Access: manifest.AccessWrite}, {Resource: "events", Access: manifest.AccessPublish}}},
			{Name: "notify", Kind: manifest.KindSNS, SourceResource: "events"},
			{Name: "audit", Kind: manifest.KindDynamoDB, SourceResource: "todos", StartingPosition: manifest.StartLatest},
			{Name: "thumbs", Kind: manifest.KindS3, SourceResource: "uploads", Events: []string{"s3:ObjectCreated:*"},
				Grants: []manifest.Grant{{Resource: "uploads", Access: manifest.AccessRead}}},
			{Name: "nightly", Kind: manifest.KindSchedule, Schedule: "rate(1 day)",
				Grants: []manifest.Grant{{Resource: "todos", Access: manifest.AccessRead}}},
		},
	}
}

// resourceServices are the IAM service prefixes of the declared kinds.
var resourceServices = []string{"dynamodb:", "sqs:", "sns:", "s3:", "secretsmanager:", "ssm:"}

// TestStackResources synthesizes an app declaring one resource of every
// kind and six functions (the API's and five handlers): each resource is
// its L2 construct's CloudFormation resource with a name CloudFormation
// generates, encrypted, deleted with a development stage and kept by a
// production one; each function has a role of its own holding exactly
// what it declares (checkRolePerFunction) and gets the attributes of the
// resources it may use only; the stack publishes them as outputs; the
// handlers fed by declared resources have their triggers on them; and
// every IAM statement granting an action of the six services names a
// declared resource, never "*". The template matches its golden file and
// cfn-lint finds no error.
func TestStackResources(t *testing.T) {
	ctx := context.Background()
	// The app's SDK calls, each attributed to the function reaching it, as
	// the policy scan gives them to `framework synth`.
	var calls []policy.Call
	for _, c := range [][3]string{{"dynamodb", "GetItem", policy.RoutePrefix + "get_todos"}, {"dynamodb", "PutItem", policy.RoutePrefix + "post_todos"},
		{"s3", "PutObject", "worker"}, {"sqs", "SendMessage", policy.RoutePrefix + "post_todos"}, {"sns", "Publish", "worker"},
		{"secretsmanager", "GetSecretValue", policy.EveryFunction}, {"ssm", "GetParameter", policy.EveryFunction}, {"dynamodb", "Query", "nightly"}} {
		pkg := "github.com/aws/aws-sdk-go-v2/service/" + c[0]
		calls = append(calls, policy.Call{Pos: "main.go:1:1", Package: pkg, Operation: c[1], Actions: policy.OperationActions(pkg, c[1]), Functions: []string{c[2]}})
	}
	in := prebuilt(t, resourcesManifest(), "dev", nil, nil)
	in.PolicyFromSource, in.Calls = true, calls
	in.Policy, _ = policy.Narrow(calls, resourcesManifest())
	res, err := assemble(ctx, in, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "resources-dev.template.json"), normalize(t, raw), *update)
	cfnLint(t, res.TemplatePath)
	tpl := readTemplate(t, res.TemplatePath)
	var doc struct {
		Resources map[string]struct {
			Type           string
			DeletionPolicy string
			Properties     map[string]any
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}

	// One resource of each kind (two queues: the dead-letter one), named
	// by CloudFormation, deleted with the dev stage.
	byType := map[string][]string{}
	for id, r := range doc.Resources {
		byType[r.Type] = append(byType[r.Type], id)
	}
	for typ, n := range map[string]int{"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 2, "AWS::SNS::Topic": 1, "AWS::S3::Bucket": 1,
		"AWS::SecretsManager::Secret": 1, "AWS::SSM::Parameter": 1, "Custom::S3AutoDeleteObjects": 1} {
		if len(byType[typ]) != n {
			t.Errorf("%d %s (%v), want %d", len(byType[typ]), typ, byType[typ], n)
		}
		for _, id := range byType[typ] {
			r := doc.Resources[id]
			for _, nameProp := range []string{"TableName", "QueueName", "TopicName", "BucketName", "Name"} {
				if v, ok := r.Properties[nameProp]; ok && typ != "Custom::S3AutoDeleteObjects" {
					t.Errorf("%s %s has a fixed %s %v: CloudFormation must generate it", typ, id, nameProp, v)
				}
			}
			if strings.HasPrefix(typ, "AWS::") && r.DeletionPolicy != "Delete" {
				t.Errorf("%s %s: DeletionPolicy %q in stage dev, want Delete", typ, id, r.DeletionPolicy)
			}
		}
	}
	// Encryption on by default.
	table := tpl.one(t, "AWS::DynamoDB::Table").Properties
	if fmt.Sprint(table["SSESpecification"]) != "map[SSEEnabled:true]" {
		t.Errorf("table SSESpecification %v", table["SSESpecification"])
	}
	if fmt.Sprint(table["KeySchema"]) != "[map[AttributeName:id KeyType:HASH] map[AttributeName:at KeyType:RANGE]]" ||
		fmt.Sprint(table["StreamSpecification"]) != "map[StreamViewType:NEW_AND_OLD_IMAGES]" ||
		fmt.Sprint(table["TimeToLiveSpecification"]) != "map[AttributeName:expires Enabled:true]" {
		t.Errorf("table keys %v stream %v ttl %v", table["KeySchema"], table["StreamSpecification"], table["TimeToLiveSpecification"])
	}
	for id := range tpl.ofType("AWS::SQS::Queue") {
		if q := tpl.Resources[id].Properties; q["SqsManagedSseEnabled"] != true {
			t.Errorf("queue %s not encrypted: %v", id, q)
		}
	}
	if q := tpl.Resources[mainQueue(t, tpl)].Properties; !strings.Contains(fmt.Sprint(q["RedrivePolicy"]), "maxReceiveCount:3") ||
		q["VisibilityTimeout"] != 360.0 {
		t.Errorf("queue redrive %v visibility %v, want 3 receives and 6 × the worker's 60 s", q["RedrivePolicy"], q["VisibilityTimeout"])
	}
	if k := tpl.one(t, "AWS::SNS::Topic").Properties["KmsMasterKeyId"]; !strings.Contains(fmt.Sprint(k), "alias/aws/sns") {
		t.Errorf("topic key %v", k)
	}
	if e := fmt.Sprint(tpl.one(t, "AWS::S3::Bucket").Properties["BucketEncryption"]); !strings.Contains(e, "AES256") {
		t.Errorf("bucket encryption %s", e)
	}
	if v := tpl.one(t, "AWS::SecretsManager::Secret").Properties["SecretString"]; v != manifest.UnsetValue {
		t.Errorf("secret value %v, want the placeholder %s", v, manifest.UnsetValue)
	}

	// One role per function, each holding exactly its declarations (its
	// own and the app's), its trigger's needs and logging; each function
	// gets the attributes of the resources it may use, and no others.
	checkRolePerFunction(t, tpl, resourcesManifest(), map[string]map[string][]manifest.Access{
		"api":     {"todos": {"read", "read_write"}, "jobs": {"send"}, "apiKey": {"read"}, "settings": {"read"}},
		"worker":  {"jobs": {"consume"}, "uploads": {"write"}, "events": {"publish"}, "apiKey": {"read"}, "settings": {"read"}},
		"notify":  {"events": nil, "apiKey": {"read"}, "settings": {"read"}},
		"audit":   {"todos": {"stream"}, "apiKey": {"read"}, "settings": {"read"}},
		"thumbs":  {"uploads": {"read"}, "apiKey": {"read"}, "settings": {"read"}},
		"nightly": {"todos": {"read"}, "apiKey": {"read"}, "settings": {"read"}},
	})
	// The outputs.
	for _, r := range resourcesManifest().Resources {
		for _, attr := range manifest.ResourceKinds[r.Kind].Attrs {
			if _, ok := tpl.Outputs[manifest.ResourceOutput(r.Name, attr)]; !ok {
				t.Errorf("no output %s", manifest.ResourceOutput(r.Name, attr))
			}
		}
	}

	// Triggers on the declared resources.
	for _, r := range tpl.ofType("AWS::Lambda::EventSourceMapping") {
		src := fmt.Sprint(r.Properties["EventSourceArn"])
		if !strings.Contains(src, "ResJobs") && !strings.Contains(src, "ResTodos") {
			t.Errorf("event source mapping on %s, want the declared queue or table stream", src)
		}
	}
	if n := len(tpl.ofType("AWS::Lambda::EventSourceMapping")); n != 2 {
		t.Errorf("%d event source mappings, want 2", n)
	}
	if sub := fmt.Sprint(tpl.one(t, "AWS::SNS::Subscription").Properties["TopicArn"]); !strings.Contains(sub, "ResEvents") {
		t.Errorf("subscription on %s", sub)
	}
	if n := fmt.Sprint(tpl.one(t, "Custom::S3BucketNotifications").Properties["BucketName"]); !strings.Contains(n, "ResUploads") {
		t.Errorf("bucket notification on %s", n)
	}

	// IAM: every statement of the six services names a declared resource.
	checkScopedStatements(t, tpl)

	// A bucket the stack may not empty is kept: CloudFormation could not
	// delete it with objects in it.
	m := resourcesManifest()
	m.Resources[3].EmptyOnDestroy = false
	res, err = assemble(ctx, prebuilt(t, m, "dev", nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	var kept struct {
		Resources map[string]struct{ Type, DeletionPolicy string }
	}
	if err := json.Unmarshal(raw, &kept); err != nil {
		t.Fatal(err)
	}
	buckets := 0
	for id, r := range kept.Resources {
		switch r.Type {
		case "Custom::S3AutoDeleteObjects":
			t.Errorf("%s empties a bucket declared without EmptyOnDestroy", id)
		case "AWS::S3::Bucket":
			buckets++
			if r.DeletionPolicy != "Retain" {
				t.Errorf("bucket %s without EmptyOnDestroy: DeletionPolicy %q in stage dev, want Retain", id, r.DeletionPolicy)
			}
		}
	}
	if buckets != 1 {
		t.Errorf("%d buckets", buckets)
	}
}

// mainQueue returns the logical id of the declared queue (not its DLQ).
func mainQueue(t *testing.T, tpl *template) string {
	t.Helper()
	for id := range tpl.ofType("AWS::SQS::Queue") {
		if !strings.Contains(id, "DLQ") {
			return id
		}
	}
	t.Fatal("no queue")
	return ""
}

// checkScopedStatements fails for an IAM statement granting an action of
// the declared kinds' services on "*" or on anything but a declared
// resource (a Ref or Fn::GetAtt of a Res* resource, or an ARN built from one).
func checkScopedStatements(t *testing.T, tpl *template) {
	t.Helper()
	seen := map[string]bool{}
	for id, r := range tpl.Resources {
		var docs []any
		switch r.Type {
		case "AWS::IAM::Policy":
			docs = append(docs, r.Properties["PolicyDocument"])
		case "AWS::IAM::Role":
			pols, _ := r.Properties["Policies"].([]any)
			for _, p := range pols {
				docs = append(docs, p.(map[string]any)["PolicyDocument"])
			}
		}
		for _, d := range docs {
			for _, s := range d.(map[string]any)["Statement"].([]any) {
				sm := s.(map[string]any)
				actions := fmt.Sprint(sm["Action"])
				if !slices.ContainsFunc(resourceServices, func(p string) bool { return strings.Contains(actions, p) }) {
					continue
				}
				for _, p := range resourceServices {
					if strings.Contains(actions, p) {
						seen[p] = true
					}
				}
				res := sm["Resource"]
				list, ok := res.([]any)
				if !ok {
					list = []any{res}
				}
				for _, one := range list {
					b, _ := json.Marshal(one)
					if string(b) == `"*"` || (!strings.Contains(string(b), `"App`) || !strings.Contains(string(b), "Res")) && !strings.Contains(string(b), "AWS::NoValue") {
						t.Errorf("%s: statement %s grants on %s, want a declared resource", id, actions, b)
					}
				}
			}
		}
	}
	for _, p := range resourceServices {
		if !seen[p] {
			t.Errorf("no statement grants %s actions", p)
		}
	}
}

// TestStackResourcesProduction: a production stage keeps every declared
// resource when the stack is deleted or the resource replaced, never
// empties a bucket, and turns on a table's point-in-time recovery.
func TestStackResourcesProduction(t *testing.T) {
	res, err := assemble(context.Background(), prebuilt(t, resourcesManifest(), "prod", nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Resources map[string]struct {
			Type                                string
			DeletionPolicy, UpdateReplacePolicy string
			Properties                          map[string]any
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for id, r := range doc.Resources {
		switch r.Type {
		case "AWS::DynamoDB::Table", "AWS::SQS::Queue", "AWS::SNS::Topic", "AWS::S3::Bucket", "AWS::SecretsManager::Secret", "AWS::SSM::Parameter":
			kinds++
			if r.DeletionPolicy != "Retain" || r.UpdateReplacePolicy != "Retain" {
				t.Errorf("%s %s: DeletionPolicy %q UpdateReplacePolicy %q in stage prod, want Retain", r.Type, id, r.DeletionPolicy, r.UpdateReplacePolicy)
			}
		case "Custom::S3AutoDeleteObjects":
			t.Errorf("%s: a production bucket is never emptied", id)
		}
		if r.Type == "AWS::DynamoDB::Table" && fmt.Sprint(r.Properties["PointInTimeRecoverySpecification"]) != "map[PointInTimeRecoveryEnabled:true]" {
			t.Errorf("table point-in-time recovery %v", r.Properties["PointInTimeRecoverySpecification"])
		}
	}
	if kinds != 7 {
		t.Errorf("%d declared resources, want 7 (a queue's DLQ included)", kinds)
	}
	cfnLint(t, res.TemplatePath)
}

// TestStackResourceErrors: a queue whose declared visibility timeout is
// shorter than its handler's timeout is refused before CDK, naming both.
func TestStackResourceErrors(t *testing.T) {
	// A policy naming a resource the app does not declare.
	bad := &policy.Document{Version: policy.PolicyVersion, Statement: []policy.Statement{{Sid: "X", Effect: "Allow", Action: []string{"dynamodb:GetItem"}, Resource: []string{policy.ResourceRef("gone")}}}}
	if _, err := assemble(context.Background(), prebuilt(t, resourcesManifest(), "dev", nil, bad), t.TempDir(), nil); err == nil ||
		!strings.Contains(err.Error(), `declares no resource "gone"`) {
		t.Errorf("policy naming an undeclared resource: %v", err)
	}
	m := resourcesManifest()
	m.Resources[1].VisibilityTimeoutSeconds = 20
	_, err := constructs.Prepare(context.Background(), &constructs.AppProps{Manifest: m, PackageZip: writeZip(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), `queue "jobs": visibility timeout 20 s`) || !strings.Contains(err.Error(), `sqs handler "worker"`) {
		t.Errorf("error %v, want the queue and the handler named", err)
	}
	m = resourcesManifest()
	m.Resources[1].FIFO = true
	m.Functions[0].BatchSize, m.Functions[0].MaxBatchingWindowSeconds = 50, 1
	_, err = constructs.Prepare(context.Background(), &constructs.AppProps{Manifest: m, PackageZip: writeZip(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), `sqs handler "worker": batch size 50 is too large for the FIFO queue "jobs"`) {
		t.Errorf("FIFO batch error %v", err)
	}
}

func writeZip(t *testing.T) string {
	t.Helper()
	zip := filepath.Join(t.TempDir(), "function.zip")
	if err := os.WriteFile(zip, []byte("stand-in package"), 0o644); err != nil {
		t.Fatal(err)
	}
	return zip
}
