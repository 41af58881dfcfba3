package localiam

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var testEnv = Env{Region: "us-east-1", Account: "123456789012",
	SecretARNs: map[string]string{"app-dev-token": "arn:aws:secretsmanager:us-east-1:123456789012:secret:app-dev-token-AbC123"}}

// jsonReq is a JSON protocol request with X-Amz-Target target.
func jsonReq(target, body string) *http.Request {
	r := httptest.NewRequest("POST", "http://127.0.0.1:9/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", target)
	return r
}

func formReq(path, body string) *http.Request {
	r := httptest.NewRequest("POST", "http://127.0.0.1:9"+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func checks(c Call) string {
	var out []string
	for _, ch := range c.Checks {
		out = append(out, ch.Action+" "+ch.Resource)
	}
	return strings.Join(out, "; ")
}

// Each service's requests, as the AWS SDK for Go v2 sends them, give the
// action and resource IAM evaluates.
func TestClassify(t *testing.T) {
	s3req := func(method, target string, hdr ...string) *http.Request {
		r := httptest.NewRequest(method, target, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return r
	}
	cases := []struct {
		name, service string
		req           *http.Request
		body          string
		want          string // "" for not classified
	}{
		{"dynamodb PutItem", "dynamodb", jsonReq("DynamoDB_20120810.PutItem", `{"TableName":"todos","Item":{}}`), "",
			"dynamodb:PutItem arn:aws:dynamodb:us-east-1:123456789012:table/todos"},
		{"dynamodb Query on an index", "dynamodb", jsonReq("DynamoDB_20120810.Query", `{"TableName":"todos","IndexName":"byUser"}`), "",
			"dynamodb:Query arn:aws:dynamodb:us-east-1:123456789012:table/todos/index/byUser"},
		{"dynamodb table by ARN", "dynamodb", jsonReq("DynamoDB_20120810.GetItem", `{"TableName":"arn:aws:dynamodb:eu-west-1:111111111111:table/x"}`), "",
			"dynamodb:GetItem arn:aws:dynamodb:eu-west-1:111111111111:table/x"},
		{"dynamodb BatchWriteItem", "dynamodb", jsonReq("DynamoDB_20120810.BatchWriteItem", `{"RequestItems":{"a":[]}}`), "",
			"dynamodb:BatchWriteItem arn:aws:dynamodb:us-east-1:123456789012:table/a"},
		{"dynamodb TransactWriteItems", "dynamodb", jsonReq("DynamoDB_20120810.TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"a"}},{"ConditionCheck":{"TableName":"b"}}]}`), "",
			"dynamodb:PutItem arn:aws:dynamodb:us-east-1:123456789012:table/a; dynamodb:ConditionCheckItem arn:aws:dynamodb:us-east-1:123456789012:table/b"},
		{"dynamodb ListTables", "dynamodb", jsonReq("DynamoDB_20120810.ListTables", `{}`), "", "dynamodb:ListTables *"},
		{"dynamodb PartiQL", "dynamodb", jsonReq("DynamoDB_20120810.ExecuteStatement", `{"Statement":"SELECT"}`), "", ""},
		{"sqs JSON SendMessage", "sqs", jsonReq("AmazonSQS.SendMessage", `{"QueueUrl":"http://127.0.0.1:5000/123456789012/jobs","MessageBody":"x"}`), "",
			"sqs:SendMessage arn:aws:sqs:us-east-1:123456789012:jobs"},
		{"sqs JSON SendMessageBatch", "sqs", jsonReq("AmazonSQS.SendMessageBatch", `{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo"}`), "",
			"sqs:SendMessage arn:aws:sqs:us-east-1:123456789012:jobs.fifo"},
		{"sqs JSON GetQueueUrl", "sqs", jsonReq("AmazonSQS.GetQueueUrl", `{"QueueName":"jobs"}`), "",
			"sqs:GetQueueUrl arn:aws:sqs:us-east-1:123456789012:jobs"},
		{"sqs query DeleteMessage", "sqs", formReq("/", "Action=DeleteMessage&QueueUrl=http%3A%2F%2Flocalhost%3A4566%2F000000000000%2Fjobs&ReceiptHandle=r"), "",
			"sqs:DeleteMessage arn:aws:sqs:us-east-1:000000000000:jobs"},
		{"sqs query on the queue's path", "sqs", formReq("/123456789012/jobs", "Action=ReceiveMessage"), "",
			"sqs:ReceiveMessage arn:aws:sqs:us-east-1:123456789012:jobs"},
		{"sns Publish", "sns", formReq("/", "Action=Publish&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3Aevents&Message=hi&Version=2010-03-31"), "",
			"sns:Publish arn:aws:sns:us-east-1:123456789012:events"},
		{"sns PublishBatch", "sns", formReq("/", "Action=PublishBatch&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3Aevents"), "",
			"sns:Publish arn:aws:sns:us-east-1:123456789012:events"},
		{"sns CreateTopic", "sns", formReq("/", "Action=CreateTopic&Name=t"), "", "sns:CreateTopic arn:aws:sns:us-east-1:123456789012:t"},
		{"s3 GetObject", "s3", s3req("GET", "http://127.0.0.1:9/files/a/b.csv?x-id=GetObject"), "", "s3:GetObject arn:aws:s3:::files/a/b.csv"},
		{"s3 HeadObject", "s3", s3req("HEAD", "http://127.0.0.1:9/files/a.csv"), "", "s3:GetObject arn:aws:s3:::files/a.csv"},
		{"s3 PutObject", "s3", s3req("PUT", "http://127.0.0.1:9/files/a%20b.csv?x-id=PutObject"), "", "s3:PutObject arn:aws:s3:::files/a b.csv"},
		{"s3 virtual host", "s3", s3req("PUT", "http://files.s3.us-east-1.amazonaws.com/k"), "", "s3:PutObject arn:aws:s3:::files/k"},
		{"s3 CopyObject", "s3", s3req("PUT", "http://127.0.0.1:9/dst/k", "X-Amz-Copy-Source", "src/a%2Fb?versionId=1"), "",
			"s3:PutObject arn:aws:s3:::dst/k; s3:GetObjectVersion arn:aws:s3:::src/a/b"},
		{"s3 DeleteObject", "s3", s3req("DELETE", "http://127.0.0.1:9/files/k?x-id=DeleteObject"), "", "s3:DeleteObject arn:aws:s3:::files/k"},
		{"s3 ListObjectsV2", "s3", s3req("GET", "http://127.0.0.1:9/files?list-type=2&prefix=a"), "", "s3:ListBucket arn:aws:s3:::files"},
		{"s3 ListBuckets", "s3", s3req("GET", "http://127.0.0.1:9/"), "", "s3:ListAllMyBuckets *"},
		{"s3 DeleteObjects", "s3", s3req("POST", "http://127.0.0.1:9/files?delete"), `<Delete><Object><Key>a</Key></Object><Object><Key>b</Key></Object></Delete>`,
			"s3:DeleteObject arn:aws:s3:::files/a; s3:DeleteObject arn:aws:s3:::files/b"},
		{"s3 multipart", "s3", s3req("POST", "http://127.0.0.1:9/files/k?uploads"), "", "s3:PutObject arn:aws:s3:::files/k"},
		{"s3 bucket policy", "s3", s3req("GET", "http://127.0.0.1:9/files?policy"), "", "s3:GetBucketPolicy arn:aws:s3:::files"},
		{"secret by ARN", "secretsmanager", jsonReq("secretsmanager.GetSecretValue", `{"SecretId":"arn:aws:secretsmanager:us-east-1:123456789012:secret:x-AbC123"}`), "",
			"secretsmanager:GetSecretValue arn:aws:secretsmanager:us-east-1:123456789012:secret:x-AbC123"},
		{"declared secret by name", "secretsmanager", jsonReq("secretsmanager.GetSecretValue", `{"SecretId":"app-dev-token"}`), "",
			"secretsmanager:GetSecretValue arn:aws:secretsmanager:us-east-1:123456789012:secret:app-dev-token-AbC123"},
		{"ssm GetParameter", "ssm", jsonReq("AmazonSSM.GetParameter", `{"Name":"/app/flag","WithDecryption":true}`), "",
			"ssm:GetParameter arn:aws:ssm:us-east-1:123456789012:parameter/app/flag"},
		{"ssm GetParameter without slash", "ssm", jsonReq("AmazonSSM.GetParameter", `{"Name":"flag"}`), "",
			"ssm:GetParameter arn:aws:ssm:us-east-1:123456789012:parameter/flag"},
		{"ssm GetParameters", "ssm", jsonReq("AmazonSSM.GetParameters", `{"Names":["a","/b"]}`), "",
			"ssm:GetParameters arn:aws:ssm:us-east-1:123456789012:parameter/a; ssm:GetParameters arn:aws:ssm:us-east-1:123456789012:parameter/b"},
		{"an unknown service", "kinesis", jsonReq("Kinesis_20131202.PutRecord", `{}`), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.body == "" {
				body, _ = io.ReadAll(tc.req.Body)
			}
			c, err := Classify(tc.req, body, tc.service, testEnv)
			got := checks(c)
			if err != nil {
				got = ""
			}
			if got != tc.want {
				t.Errorf("checks %q, want %q", got, tc.want)
			}
		})
	}
}

// IAM's matching: * and ? wildcards; actions without regard to case,
// resources with.
func TestAllowed(t *testing.T) {
	stmts := []Statement{
		{Actions: []string{"dynamodb:GetItem", "dynamodb:Query"}, Resources: []string{"arn:aws:dynamodb:us-east-1:1:table/todos", "arn:aws:dynamodb:us-east-1:1:table/todos/index/*"}},
		{Actions: []string{"s3:GetObject*", "s3:List*"}, Resources: []string{"arn:aws:s3:::files", "arn:aws:s3:::files/*"}},
		{Actions: []string{"sqs:SendMessage"}, Resources: []string{"arn:aws:sqs:*:1:job?"}},
		{Actions: []string{"logs:*"}, Resources: []string{"*"}},
	}
	for _, tc := range []struct {
		action, resource string
		want             bool
	}{
		{"dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:1:table/todos", true},
		{"DynamoDB:getitem", "arn:aws:dynamodb:us-east-1:1:table/todos", true},
		{"dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:1:table/Todos", false},
		{"dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:1:table/todos", false},
		{"dynamodb:Query", "arn:aws:dynamodb:us-east-1:1:table/todos/index/byUser", true},
		{"dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:1:table/todos2", false},
		{"s3:GetObjectVersion", "arn:aws:s3:::files/a/b", true},
		{"s3:ListBucket", "arn:aws:s3:::files", true},
		{"s3:PutObject", "arn:aws:s3:::files/a", false},
		{"s3:GetObject", "arn:aws:s3:::files2/a", false},
		{"sqs:SendMessage", "arn:aws:sqs:eu-west-1:1:jobs", true},
		{"sqs:SendMessage", "arn:aws:sqs:eu-west-1:1:jobs2", false},
		{"logs:PutLogEvents", "arn:aws:logs:us-east-1:1:log-group:x", true},
	} {
		if _, got := Allowed(stmts, tc.action, tc.resource); got != tc.want {
			t.Errorf("Allowed(%s on %s) = %v, want %v", tc.action, tc.resource, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		p, v string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"*a*b*", "xxaxxbxx", true}, {"*a*b", "ba", false},
		{"", "", true}, {"", "a", false}, {"abc", "abc", true}, {"a**", "a", true},
	} {
		if got := Match(tc.p, tc.v); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.p, tc.v, got, tc.want)
		}
	}
}

func ExampleMatch() {
	fmt.Println(Match("arn:aws:s3:::files/*", "arn:aws:s3:::files/a/b.csv"))
	fmt.Println(Match("arn:aws:s3:::files/*", "arn:aws:s3:::files"))
	// Output:
	// true
	// false
}
