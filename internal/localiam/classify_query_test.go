package localiam

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
)

// The requests a hostile probe used to make the check read one resource
// and the emulator act on another, or to slip an unmodelled call through,
// are refused with a reason; the calls the SDK makes still read as the
// action and resource IAM evaluates, and what is checked is what is
// forwarded (Call.Path).
func TestClassifyRefusesAmbiguousRequests(t *testing.T) {
	req := func(method, target, contentType string, hdr ...string) func() *httptestReq {
		return func() *httptestReq {
			return &httptestReq{method, target, contentType, hdr}
		}
	}
	const topic = "arn:aws:sns:us-east-1:123456789012:events"
	const queue = "http://127.0.0.1:5000/123456789012/jobs"
	form, xmlBody := "application/x-www-form-urlencoded", "application/xml"
	js := "application/x-amz-json-1.0"
	cases := []struct {
		name, service string
		req           func() *httptestReq
		body          string
		want          string // the checks; "" when refused
		why           string // for a refusal, a part of why
		path          string // the forwarded path, when rewritten
	}{
		// S3: unknown and several query parameters.
		{"s3 GET with an unknown parameter", "s3", req("GET", "/files/secret?foo=1", ""), "", "", `"foo" is not one the check models`, ""},
		{"s3 PUT with an unknown parameter", "s3", req("PUT", "/files/planted?foo=1", ""), "", "", `"foo"`, ""},
		{"s3 two subresources", "s3", req("GET", "/files/k?acl&tagging", ""), "", "", "acl and tagging", ""},
		{"s3 a parameter twice", "s3", req("GET", "/files/k?versionId=1&versionId=2", ""), "", "", "given 2 times", ""},
		{"s3 empty uploadId", "s3", req("GET", "/files/k?uploadId=", ""), "", "", "no value", ""},
		{"s3 a header named like a parameter", "s3", req("DELETE", "/files/k", "", "versionId", "1"), "", "", "named like a query parameter", ""},
		// S3 bucket and object subresources.
		{"s3 PutBucketAcl", "s3", req("PUT", "/files?acl", ""), "", "s3:PutBucketAcl arn:aws:s3:::files", "", ""},
		{"s3 PutBucketPolicy", "s3", req("PUT", "/files?policy", ""), "{}", "s3:PutBucketPolicy arn:aws:s3:::files", "", ""},
		{"s3 DeleteBucketCors", "s3", req("DELETE", "/files?cors", ""), "", "s3:PutBucketCORS arn:aws:s3:::files", "", ""},
		{"s3 PutBucketLifecycleConfiguration", "s3", req("PUT", "/files?lifecycle", ""), "", "s3:PutLifecycleConfiguration arn:aws:s3:::files", "", ""},
		{"s3 GetBucketEncryption", "s3", req("GET", "/files?encryption", ""), "", "s3:GetEncryptionConfiguration arn:aws:s3:::files", "", ""},
		{"s3 PutPublicAccessBlock", "s3", req("PUT", "/files?publicAccessBlock", ""), "", "s3:PutBucketPublicAccessBlock arn:aws:s3:::files", "", ""},
		{"s3 GetObjectLockConfiguration", "s3", req("GET", "/files?object-lock", ""), "", "s3:GetBucketObjectLockConfiguration arn:aws:s3:::files", "", ""},
		{"s3 HEAD of a subresource", "s3", req("HEAD", "/files/k?acl", ""), "", "", "HEAD with ?acl", ""},
		{"s3 HeadBucket", "s3", req("HEAD", "/files", ""), "", "s3:ListBucket arn:aws:s3:::files", "", ""},
		{"s3 POST to a bucket (a browser form)", "s3", req("POST", "/files", ""), "", "", "not an operation the check models", ""},
		{"s3 a bucket subresource on an object", "s3", req("GET", "/files/k?versioning", ""), "", "", "bucket subresource", ""},
		{"s3 GetObjectAcl of a version", "s3", req("GET", "/files/k?acl&versionId=3", ""), "", "s3:GetObjectVersionAcl arn:aws:s3:::files/k", "", ""},
		{"s3 PutObjectRetention", "s3", req("PUT", "/files/k?retention", ""), "", "s3:PutObjectRetention arn:aws:s3:::files/k", "", ""},
		{"s3 GetObjectLegalHold", "s3", req("GET", "/files/k?legal-hold", ""), "", "s3:GetObjectLegalHold arn:aws:s3:::files/k", "", ""},
		{"s3 SelectObjectContent", "s3", req("POST", "/files/k?select&select-type=2", ""), "", "s3:GetObject arn:aws:s3:::files/k", "", ""},
		{"s3 UploadPart", "s3", req("PUT", "/files/k?partNumber=1&uploadId=u", ""), "", "s3:PutObject arn:aws:s3:::files/k", "", ""},
		{"s3 PutObject with a canned ACL", "s3", req("PUT", "/files/k", "", "X-Amz-Acl", "public-read"), "",
			"s3:PutObject arn:aws:s3:::files/k; s3:PutObjectAcl arn:aws:s3:::files/k", "", ""},
		// S3 Host and path.
		{"s3 Host names one bucket, the path another", "s3", req("GET", "http://allowed.s3.localhost/forbidden/key", ""), "",
			"s3:GetObject arn:aws:s3:::allowed/forbidden/key", "", "/allowed/forbidden/key"},
		{"s3 virtual host at AWS", "s3", req("PUT", "http://my.files.s3.us-east-1.amazonaws.com/a%20b", ""), "",
			"s3:PutObject arn:aws:s3:::my.files/a b", "", "/my.files/a%20b"},
		{"s3 a Host that is neither", "s3", req("GET", "http://evil.example/forbidden/key", ""), "", "", "neither the proxy's address nor an S3 endpoint", ""},
		{"s3 access point host", "s3", req("GET", "http://ap-123456789012.s3-accesspoint.us-east-1.amazonaws.com/k", ""), "", "", "access point", ""},
		{"s3 dot segment", "s3", req("GET", "/allowed/a/../../forbidden/key", ""), "", "", `".." segment`, ""},
		{"s3 encoded slash", "s3", req("GET", "/allowed%2F..%2Fforbidden/key", ""), "", "", "encoded slash", ""},
		{"s3 empty bucket segment", "s3", req("GET", "//forbidden", ""), "", "", "empty bucket name", ""},
		{"s3 parameters in the path", "s3", req("GET", "/files/a.bin;.txt", ""), "", "", "';'", ""},
		// S3 DeleteObjects bodies.
		{"s3 DeleteObjects in Latin-1", "s3", req("POST", "/files?delete", xmlBody),
			`<?xml version="1.0" encoding="ISO-8859-1"?><Delete><Object><Key>secret</Key></Object></Delete>`, "", "", ""},
		{"s3 DeleteObjects with a DOCTYPE", "s3", req("POST", "/files?delete", xmlBody),
			`<!DOCTYPE d [<!ENTITY k "secret">]><Delete><Object><Key>&k;</Key></Object></Delete>`, "", "", ""},
		{"s3 DeleteObjects with a prefixed Object", "s3", req("POST", "/files?delete", xmlBody),
			`<Delete xmlns:x="urn:x"><x:Object><Key>a</Key></x:Object></Delete>`, "", "", ""},
		{"s3 DeleteObjects with two Keys", "s3", req("POST", "/files?delete", xmlBody),
			`<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>`, "", "", "exactly one Key"},
		{"s3 DeleteObjects with a lower-case key", "s3", req("POST", "/files?delete", xmlBody),
			`<Delete><Object><key>a</key></Object></Delete>`, "", "", `"key"`},
		{"s3 DeleteObjects as the SDK sends it", "s3", req("POST", "/files?delete", xmlBody),
			`<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>a b</Key></Object><Object><Key>c</Key><VersionId>v</VersionId></Object><Quiet>true</Quiet></Delete>`,
			"s3:DeleteObject arn:aws:s3:::files/a b; s3:DeleteObjectVersion arn:aws:s3:::files/c", "", ""},
		// S3 copies.
		{"s3 CopyObject from an encoded key", "s3", req("PUT", "/dst/k", "", "X-Amz-Copy-Source", "/src/a%20b"), "",
			"s3:PutObject arn:aws:s3:::dst/k; s3:GetObject arn:aws:s3:::src/a b", "", ""},
		{"s3 CopyObject source with a fragment", "s3", req("PUT", "/dst/k", "", "X-Amz-Copy-Source", "src/secret#x"), "", "", "'#'", ""},
		{"s3 CopyObject source read as a host", "s3", req("PUT", "/dst/k", "", "X-Amz-Copy-Source", "//allowed/forbidden/k"), "", "", "starts with //", ""},
		{"s3 CopyObject source with another parameter", "s3", req("PUT", "/dst/k", "", "X-Amz-Copy-Source", "src/k?versionId=1&x=2"), "", "", "one versionId", ""},
		{"s3 UploadPartCopy", "s3", req("PUT", "/dst/k?partNumber=1&uploadId=u", "", "X-Amz-Copy-Source", "src/k"), "",
			"s3:PutObject arn:aws:s3:::dst/k; s3:GetObject arn:aws:s3:::src/k", "", ""},
		{"s3 copy source on a tagging call", "s3", req("PUT", "/dst/k?tagging", "", "X-Amz-Copy-Source", "src/k"), "", "", "only CopyObject", ""},
		// SQS queue URLs.
		{"sqs queue URL with a query", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"QueueUrl":"http://127.0.0.1:5000/123456789012/jobs?x=/123456789012/jobs-dlq","MessageBody":"x"}`, "", "'?'", ""},
		{"sqs queue URL with a fragment", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"QueueUrl":"http://127.0.0.1:5000/123456789012/jobs#/123456789012/jobs-dlq"}`, "", "'#'", ""},
		{"sqs queue URL with user info", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"QueueUrl":"http://a@127.0.0.1:5000/123456789012/jobs"}`, "", "'@'", ""},
		{"sqs queue URL with escapes", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"QueueUrl":"http://127.0.0.1:5000/123456789012/jobs%2Fx"}`, "", "'%'", ""},
		{"sqs queue URL with a longer path", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"QueueUrl":"http://127.0.0.1:5000/123456789012/jobs/../jobs-dlq"}`, "", "/ACCOUNT/QUEUE", ""},
		{"sqs a lone queueurl in another case", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.SendMessage"),
			`{"queueurl":"` + queue + `"}`, "", "names no queue", ""},
		{"sqs JSON with an Action in the URL", "sqs", req("POST", "/?Action=DeleteQueue", js, "X-Amz-Target", "AmazonSQS.GetQueueUrl"),
			`{"QueueName":"jobs"}`, "", "has a query", ""},
		{"sqs JSON body that reads as a form", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.GetQueueUrl"),
			`{"QueueName":"jobs","x":"&Action=DeleteQueue&"}`, "", "form with an Action", ""},
		{"sqs JSON on a queue's path", "sqs", req("POST", "/123456789012/forbidden", js, "X-Amz-Target", "AmazonSQS.GetQueueUrl"),
			`{"QueueName":"jobs"}`, "", "not /", ""},
		{"sqs query path and QueueUrl disagree", "sqs", req("POST", "/123456789012/jobs-dlq", form),
			"Action=SendMessage&QueueUrl=" + strings.ReplaceAll(queue, ":", "%3A"), "", "names the queue", ""},
		{"sqs query path and QueueUrl agree", "sqs", req("POST", "/123456789012/jobs", form),
			"Action=SendMessage&QueueUrl=" + strings.ReplaceAll(queue, ":", "%3A"), "sqs:SendMessage arn:aws:sqs:us-east-1:123456789012:jobs", "", ""},
		{"sqs query QueueName on SendMessage", "sqs", req("POST", "/1/2/forbidden", form), "Action=SendMessage&QueueName=jobs", "", "", ""},
		{"sqs query parameter twice", "sqs", req("POST", "/", form), "Action=SendMessage&QueueUrl=a&QueueUrl=b", "", "given 2 times", ""},
		{"sqs query parameter in URL and body", "sqs", req("POST", "/?QueueUrl=x", form), "Action=SendMessage", "", "both its URL and its body", ""},
		{"sqs query body not a form", "sqs", req("POST", "/", "text/plain"), "Action=ListQueues", "", "not a form", ""},
		{"sqs query parameters differing in case", "sqs", req("POST", "/", form), "Action=ListQueues&action=DeleteQueue", "", "differ only in case", ""},
		{"sqs StartMessageMoveTask", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.StartMessageMoveTask"),
			`{"SourceArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","DestinationArn":"arn:aws:sqs:us-east-1:123456789012:jobs"}`,
			"sqs:StartMessageMoveTask arn:aws:sqs:us-east-1:123456789012:jobs-dlq; sqs:ReceiveMessage arn:aws:sqs:us-east-1:123456789012:jobs-dlq; " +
				"sqs:DeleteMessage arn:aws:sqs:us-east-1:123456789012:jobs-dlq; sqs:GetQueueAttributes arn:aws:sqs:us-east-1:123456789012:jobs-dlq; " +
				"sqs:SendMessage arn:aws:sqs:us-east-1:123456789012:jobs", "", ""},
		{"sqs StartMessageMoveTask back to unknown queues", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.StartMessageMoveTask"),
			`{"SourceArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq"}`, "", "DestinationArn", ""},
		{"sqs an unknown operation", "sqs", req("POST", "/", js, "X-Amz-Target", "AmazonSQS.Frobnicate"), `{}`, "", "not an SQS operation", ""},
		// SNS.
		{"sns TopicArn and TargetArn", "sns", req("POST", "/", form),
			"Action=Publish&TopicArn=" + topic + "&TargetArn=arn:aws:sns:us-east-1:123456789012:other&Message=x", "", "exactly one of", ""},
		{"sns TopicArn and PhoneNumber", "sns", req("POST", "/", form), "Action=Publish&TopicArn=" + topic + "&PhoneNumber=%2B15555550100", "", "exactly one of", ""},
		{"sns TopicArn twice", "sns", req("POST", "/", form), "Action=Publish&TopicArn=" + topic + "&TopicArn=arn:aws:sns:us-east-1:123456789012:other", "", "given 2 times", ""},
		{"sns TopicArn in URL and body", "sns", req("POST", "/?TopicArn=arn:aws:sns:us-east-1:123456789012:other", form), "Action=Publish&TopicArn=" + topic, "", "both", ""},
		{"sns Publish by TargetArn", "sns", req("POST", "/", form), "Action=Publish&TargetArn=" + topic, "sns:Publish " + topic, "", ""},
		{"sns PublishBatch with a TargetArn", "sns", req("POST", "/", form), "Action=PublishBatch&TopicArn=" + topic + "&TargetArn=x", "", "TopicArn only", ""},
		{"sns Subscribe a queue", "sns", req("POST", "/", form), "Action=Subscribe&TopicArn=" + topic + "&Protocol=sqs&Endpoint=arn:aws:sqs:us-east-1:123456789012:secret", "", "own policy decides", ""},
		{"sns Subscribe a URL", "sns", req("POST", "/", form), "Action=Subscribe&TopicArn=" + topic + "&Protocol=https&Endpoint=https://example.com/", "sns:Subscribe " + topic, "", ""},
		{"sns Unsubscribe", "sns", req("POST", "/", form), "Action=Unsubscribe&SubscriptionArn=" + topic + ":1", "", "not an SNS operation", ""},
		{"sns a topic that is no ARN", "sns", req("POST", "/", form), "Action=DeleteTopic&TopicArn=events", "", "not a topic's ARN", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.req()
			target := h.target
			if !strings.HasPrefix(target, "http") {
				target = "http://127.0.0.1:9" + target
			}
			r := httptest.NewRequest(h.method, target, strings.NewReader(tc.body))
			if h.contentType != "" {
				r.Header.Set("Content-Type", h.contentType)
			}
			for i := 0; i+1 < len(h.hdr); i += 2 {
				r.Header[h.hdr[i]] = []string{h.hdr[i+1]}
			}
			c, err := Classify(r, []byte(tc.body), tc.service, testEnv)
			if tc.want == "" {
				var u *Unmodeled
				if !errors.As(err, &u) {
					t.Fatalf("checks %q, want the call refused as unmodelled", checks(c))
				}
				if !strings.Contains(u.Why, tc.why) {
					t.Errorf("why %q, want it to say %q", u.Why, tc.why)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v; want %q", err, tc.want)
			}
			if got := checks(c); got != tc.want {
				t.Errorf("checks %q, want %q", got, tc.want)
			}
			if c.Path != tc.path {
				t.Errorf("forwarded path %q, want %q", c.Path, tc.path)
			}
		})
	}
}

type httptestReq struct {
	method, target, contentType string
	hdr                         []string
}
