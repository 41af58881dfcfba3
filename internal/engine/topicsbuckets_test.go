package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestStackTopicsAndBuckets: a FIFO topic with content-based
// deduplication, an SNS handler whose subscription filters on the body,
// and a bucket with CORS rules, lifecycle rules and versioning become
// those CloudFormation properties, and cfn-lint finds no error.
func TestStackTopicsAndBuckets(t *testing.T) {
	m := &manifest.Manifest{
		Version: manifest.Version, App: "shop",
		Routes: []manifest.Route{route("/orders", "GET")},
		Resources: []manifest.Resource{
			{Name: "orders", Kind: manifest.ResourceTopic, FIFO: true, ContentBasedDeduplication: true},
			{Name: "events", Kind: manifest.ResourceTopic},
			{Name: "uploads", Kind: manifest.ResourceBucket, Versioned: true,
				CORS:      []manifest.CORSRule{{AllowedOrigins: []string{"https://shop.example.com"}, AllowedMethods: []string{"PUT", "GET"}, AllowedHeaders: []string{"*"}, ExposedHeaders: []string{"ETag"}, MaxAgeSeconds: 3000}},
				Lifecycle: []manifest.LifecycleRule{{Prefix: "tmp/", ExpireAfterDays: 7}, {AbortIncompleteUploadsAfterDays: 1, NoncurrentExpireAfterDays: 30}}},
		},
		Functions: []manifest.Function{
			{Name: "paid", Kind: manifest.KindSNS, SourceResource: "events", FilterPolicy: []byte(`{"order":{"status":["paid"]}}`), FilterPolicyScope: manifest.FilterOnBody},
		},
	}
	if err := manifest.Validate(m); err != nil {
		t.Fatal(err)
	}
	res, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfnLint(t, res.TemplatePath)
	tpl := readTemplate(t, res.TemplatePath)
	j := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	var fifo, sub, bucket map[string]any
	for _, r := range tpl.Resources {
		switch {
		case r.Type == "AWS::SNS::Topic" && r.Properties["FifoTopic"] == true:
			fifo = r.Properties
		case r.Type == "AWS::SNS::Subscription":
			sub = r.Properties
		case r.Type == "AWS::S3::Bucket":
			bucket = r.Properties
		}
	}
	if fifo == nil || fifo["ContentBasedDeduplication"] != true || !strings.Contains(j(fifo["TopicName"]), ".fifo") {
		t.Errorf("FIFO topic %s, want FifoTopic, ContentBasedDeduplication and a .fifo name", j(fifo))
	}
	if sub == nil || j(sub["FilterPolicy"]) != `{"order":{"status":["paid"]}}` || sub["FilterPolicyScope"] != "MessageBody" {
		t.Errorf("subscription %s, want the body filter policy", j(sub))
	}
	for prop, want := range map[string]string{
		"VersioningConfiguration": `{"Status":"Enabled"}`,
		"CorsConfiguration":       `{"CorsRules":[{"AllowedHeaders":["*"],"AllowedMethods":["PUT","GET"],"AllowedOrigins":["https://shop.example.com"],"ExposedHeaders":["ETag"],"MaxAge":3000}]}`,
		"LifecycleConfiguration": `{"Rules":[{"ExpirationInDays":7,"Id":"Rule1","Prefix":"tmp/","Status":"Enabled"},` +
			`{"AbortIncompleteMultipartUpload":{"DaysAfterInitiation":1},"Id":"Rule2","NoncurrentVersionExpiration":{"NoncurrentDays":30},"Status":"Enabled"}]}`,
	} {
		if got := j(bucket[prop]); got != want {
			t.Errorf("bucket %s\n got %s\nwant %s", prop, got, want)
		}
	}
}

// checkTodoTopicsBuckets checks examples/todo's template: the notify
// handler's subscription filters, and the bucket has CORS and lifecycle
// rules.
func checkTodoTopicsBuckets(t *testing.T, tpl *template) {
	t.Helper()
	subs, buckets := 0, 0
	for id, r := range tpl.Resources {
		switch r.Type {
		case "AWS::SNS::Subscription":
			subs++
			if r.Properties["FilterPolicy"] == nil || r.Properties["FilterPolicyScope"] != "MessageAttributes" {
				t.Errorf("subscription %s has no filter policy on the attributes: %v", id, r.Properties)
			}
		case "AWS::S3::Bucket":
			buckets++
			if r.Properties["CorsConfiguration"] == nil || r.Properties["LifecycleConfiguration"] == nil {
				t.Errorf("bucket %s lacks CORS or lifecycle rules: %v", id, r.Properties)
			}
		}
	}
	if subs != 1 || buckets != 1 {
		t.Errorf("%d subscriptions and %d buckets, want 1 and 1", subs, buckets)
	}
}
