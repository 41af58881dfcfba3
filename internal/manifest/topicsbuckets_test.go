package manifest_test

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// A FIFO topic cannot feed an SNS handler, filter policies are checked as
// SNS checks them, and a bucket's CORS and lifecycle rules as S3 does:
// each error names the declaration and says what to change.
func TestTopicAndBucketDeclarationsChecked(t *testing.T) {
	sns := func(name, topic, scope, policy string) manifest.Function {
		f := manifest.Function{Name: name, Kind: manifest.KindSNS, SourceResource: topic, FilterPolicyScope: scope}
		if policy != "" {
			f.FilterPolicy = []byte(policy)
		}
		return f
	}
	m := manifest.Manifest{
		Version: manifest.Version,
		Resources: []manifest.Resource{
			{Name: "orders", Kind: manifest.ResourceTopic, FIFO: true, ContentBasedDeduplication: true},
			{Name: "events", Kind: manifest.ResourceTopic, ContentBasedDeduplication: true},
			{Name: "files", Kind: manifest.ResourceBucket,
				CORS:      []manifest.CORSRule{{AllowedOrigins: []string{"https://app.example.com"}, AllowedMethods: []string{"put"}}, {AllowedMethods: []string{"GET"}}},
				Lifecycle: []manifest.LifecycleRule{{Prefix: "tmp/"}, {Prefix: "old/", NoncurrentExpireAfterDays: 3}, {Prefix: "old/", ExpireAfterDays: -1}}},
		},
		Functions: []manifest.Function{
			sns("onorder", "orders", "", ""),
			sns("nested", "events", manifest.FilterOnAttributes, `{"order": {"status": ["paid"]}}`),
			sns("badop", "events", manifest.FilterOnBody, `{"total": [{"greater": 5}]}`),
			sns("notarray", "events", manifest.FilterOnAttributes, `{"kind": "order"}`),
			sns("sixkeys", "events", manifest.FilterOnAttributes, `{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`),
			sns("both", "events", manifest.FilterOnAttributes+"+"+manifest.FilterOnBody, `{"kind": ["order"]}`),
			sns("good", "events", manifest.FilterOnBody, `{"order": {"status": ["paid"], "total": [{"numeric": [">=", 100]}]}, "$or": [{"a": ["x"]}, {"b": [{"prefix": "y"}]}]}`),
			{Name: "fifoarn", Kind: manifest.KindSNS, Source: "arn:aws:sns:us-east-1:123456789012:theirs.fifo"},
		},
	}
	err := manifest.Validate(&m)
	if err == nil {
		t.Fatal("Validate accepted bad declarations")
	}
	for _, want := range []string{
		`sns handler "onorder": its topic is FIFO, and SNS delivers a FIFO topic's messages to SQS queues only, never to a Lambda function: declare the topic without FIFO, or subscribe an SQS FIFO queue to it`,
		`sns handler "fifoarn": its topic is FIFO`,
		`topic "events": content-based deduplication needs a FIFO topic: add the FIFO option`,
		`sns handler "nested": filter policy key "order" holds an object: a policy on message attributes cannot nest; use SNSBodyFilter`,
		`sns handler "badop": filter policy key "total": unknown operator "greater": use one of prefix, suffix, anything-but, numeric, exists, equals-ignore-case, cidr`,
		`sns handler "notarray": filter policy key "kind" must hold an array of values`,
		`sns handler "sixkeys": the filter policy has 6 keys: SNS allows 5 at most`,
		`sns handler "both": two filter policies: give one, SNSFilter (on the message attributes) or SNSBodyFilter (on the body)`,
		`bucket "files": CORS rule 1: method "put": S3 allows GET, PUT, POST, DELETE, HEAD only (in upper case)`,
		`bucket "files": CORS rule 2 allows no origin`,
		`bucket "files": lifecycle rule 1 does nothing: set ExpireAfterDays, NoncurrentExpireAfterDays or AbortIncompleteUploadsAfterDays`,
		`bucket "files": lifecycle rule 2: NoncurrentExpireAfterDays applies to a versioned bucket only: add Versioning`,
		`bucket "files": lifecycle rule 3: ExpireAfterDays -1 is negative`,
		`bucket "files": lifecycle rule 3: another rule has the prefix "old/": merge the two`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the errors do not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), `"good"`) {
		t.Errorf("a valid body policy was refused:\n%v", err)
	}
}
