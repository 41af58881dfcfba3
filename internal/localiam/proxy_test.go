package localiam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/framework-dev/framework/internal/awscall"
)

var realCreds = awscall.Credentials{AccessKeyID: "REALKEY", SecretAccessKey: "realsecret", SessionToken: "realtoken"}

// upstream is a stand-in for the emulator: it checks that each request
// is signed with the real credentials, by signing it again, and answers
// what the handler says.
type upstream struct {
	*httptest.Server
	mu    sync.Mutex
	calls []string // "METHOD PATH TARGET"
	bad   []string
	cut   []string // requests whose body did not arrive whole
}

func startUpstream(t testing.TB, answer func(w http.ResponseWriter, r *http.Request)) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			// A body cut off before its end: the request never completes.
			u.mu.Lock()
			u.cut = append(u.cut, r.Method+" "+r.URL.Path)
			u.mu.Unlock()
			return
		}
		a, _ := awscall.ParseAuthorization(r.Header.Get("Authorization"))
		region, service := a.Region, a.Service
		when, _ := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
		again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
		for k, vs := range r.Header {
			if k != "Authorization" && k != "Content-Length" {
				again.Header[k] = vs
			}
		}
		hash := r.Header.Get("X-Amz-Content-Sha256")
		if hash == "" {
			hash = hexSHA(body)
		}
		awscall.SignHash(again, hash, realCreds, region, service, when)
		u.mu.Lock()
		u.calls = append(u.calls, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Amz-Target"))
		if again.Header.Get("Authorization") != r.Header.Get("Authorization") {
			u.bad = append(u.bad, r.Header.Get("Authorization"))
		}
		u.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (u *upstream) seen() ([]string, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.calls...), append([]string(nil), u.bad...)
}

type recorder struct {
	mu        sync.Mutex
	denied    []Denied
	unauth    []Unauthenticated
	unmodeled []string // "function service operation: why"
	noPolicy  []string // "function: why"
}

func (r *recorder) deniedLines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, d := range r.denied {
		out = append(out, d.Line())
	}
	return out
}

func (r *recorder) unauthenticated() []Unauthenticated {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Unauthenticated(nil), r.unauth...)
}

func (r *recorder) refusals() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.unmodeled...), append([]string(nil), r.noPolicy...)
}

func startProxy(t testing.TB, up string, pol Policies) (*Proxy, *recorder) {
	rec := &recorder{}
	p, err := Start(Options{Target: Target{Upstream: up, Region: "us-east-1", Policies: pol, Env: Env{Account: "123456789012"},
		Credentials: func(context.Context) (awscall.Credentials, error) { return realCreds, nil },
		Hint: func(fn string, ch Check) string {
			return "declare it: Allow(" + ch.Action + ")"
		}},
		Denied:          func(d Denied) { rec.mu.Lock(); rec.denied = append(rec.denied, d); rec.mu.Unlock() },
		Unauthenticated: func(u Unauthenticated) { rec.mu.Lock(); rec.unauth = append(rec.unauth, u); rec.mu.Unlock() },
		Unmodeled: func(fn string, u *Unmodeled) {
			rec.mu.Lock()
			rec.unmodeled = append(rec.unmodeled, fn+" "+u.Service+" "+u.Operation+": "+u.Why)
			rec.mu.Unlock()
		},
		NoPolicy: func(fn, why string) {
			rec.mu.Lock()
			rec.noPolicy = append(rec.noPolicy, fn+": "+why)
			rec.mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, rec
}

// sdkConfig is the AWS SDK configuration a function process gets from
// Environ.
func sdkConfig(p *Proxy, fn string) aws.Config {
	env := map[string]string{}
	for _, kv := range p.Environ(fn) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(env["AWS_ENDPOINT_URL"]),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: env["AWS_ACCESS_KEY_ID"], SecretAccessKey: env["AWS_SECRET_ACCESS_KEY"]}, nil
		}), RetryMaxAttempts: 1}
}

func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

var appPolicy = StaticPolicies{"api": {
	{Actions: []string{"dynamodb:GetItem", "dynamodb:PutItem"}, Resources: []string{"arn:aws:dynamodb:us-east-1:123456789012:table/todos"}},
	{Actions: []string{"s3:GetObject"}, Resources: []string{"arn:aws:s3:::files/*"}},
}}

// A call the function's statements allow reaches the emulator signed with
// the real credentials; one they do not is answered by the proxy in the
// service's own AccessDenied shape, as the SDK reads it, and reported with
// the function, the action, the resource and the hint.
func TestProxyChecksCalls(t *testing.T) {
	up := startUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB"):
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			_, _ = io.WriteString(w, `{}`)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	})
	p, rec := startProxy(t, up.URL, appPolicy)
	ctx := context.Background()
	cfg := sdkConfig(p, "api")
	ddb := dynamodb.NewFromConfig(cfg)
	key := map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}

	if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("todos"), Item: key}); err != nil {
		t.Fatalf("allowed PutItem: %v", err)
	}
	_, err := ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("todos"), Key: key})
	if errorCode(err) != "AccessDeniedException" || !strings.Contains(err.Error(), "dynamodb:DeleteItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/todos") ||
		!strings.Contains(err.Error(), "Allow(dynamodb:DeleteItem)") {
		t.Errorf("DeleteItem: %v, want DynamoDB's AccessDeniedException naming the action, the table and the hint", err)
	}
	_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(up.URL + "/123456789012/jobs"), MessageBody: aws.String("x")})
	if code := errorCode(err); code != "AccessDenied" {
		t.Errorf("SQS SendMessage: code %q (%v), want AccessDenied", code, err)
	}
	_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:events"), Message: aws.String("x")})
	if code := errorCode(err); code != "AuthorizationError" {
		t.Errorf("SNS Publish: code %q (%v), want AuthorizationError", code, err)
	}
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	_, err = s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("files"), Key: aws.String("a.csv"), Body: strings.NewReader("x")})
	if code := errorCode(err); code != "AccessDenied" {
		t.Errorf("S3 PutObject: code %q (%v), want AccessDenied", code, err)
	}
	if _, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("files"), Key: aws.String("a.csv")}); err != nil {
		t.Errorf("allowed GetObject: %v", err)
	}
	// The runtime's own calls (Secret.Value) go through awscall.
	call := awscall.Config{Region: "us-east-1", Endpoint: p.URL, Credentials: awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}}
	err = call.Call(ctx, "secretsmanager", "GetSecretValue", map[string]string{"SecretId": "arn:aws:secretsmanager:us-east-1:123456789012:secret:token-AbC123"}, nil)
	if !awscall.IsCode(err, "AccessDeniedException") {
		t.Errorf("GetSecretValue: %v, want AccessDeniedException", err)
	}

	calls, bad := up.seen()
	if len(calls) != 2 || !strings.Contains(calls[0], "DynamoDB_20120810.PutItem") || !strings.HasPrefix(calls[1], "GET /files/a.csv") {
		t.Errorf("upstream got %q, want the allowed PutItem and GetObject only", calls)
	}
	if len(bad) > 0 {
		t.Errorf("upstream got requests not signed with the real credentials: %q", bad)
	}
	lines := rec.deniedLines()
	want := []string{
		"IAM: function api may not dynamodb:DeleteItem on arn:aws:dynamodb:us-east-1:123456789012:table/todos",
		"sqs:SendMessage on arn:aws:sqs:us-east-1:123456789012:jobs", "sns:Publish on arn:aws:sns:us-east-1:123456789012:events",
		"s3:PutObject on arn:aws:s3:::files/a.csv", "secretsmanager:GetSecretValue on arn:aws:secretsmanager:us-east-1:123456789012:secret:token-AbC123",
	}
	if len(lines) != len(want) {
		t.Fatalf("denied lines %q, want %d", lines, len(want))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || !strings.Contains(lines[i], "declare it: Allow(") {
			t.Errorf("line %q, want it to name %q and the hint", lines[i], w)
		}
	}
}

func envOf(p *Proxy, fn, name string) string {
	for _, kv := range p.Environ(fn) {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// The check fails closed: a call it cannot classify (a service it does
// not model) is refused in the service's shape and reported as
// iam_unmodeled; so is every call of a function the policies do not know,
// and every call when there are no policies, each saying why; nothing of
// them reaches the emulator.
func TestProxyFailsClosed(t *testing.T) {
	up := startUpstream(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") })
	p, rec := startProxy(t, up.URL, appPolicy)
	ctx := context.Background()
	call := func(fn string) awscall.Config {
		return awscall.Config{Region: "us-east-1", Endpoint: p.URL, Credentials: awscall.Credentials{AccessKeyID: envOf(p, fn, "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, fn, "AWS_SECRET_ACCESS_KEY")}}
	}
	for range 2 {
		err := call("api").Call(ctx, "kinesis", "PutRecord", map[string]string{"StreamName": "s"}, nil)
		if !awscall.IsCode(err, "AccessDeniedException") || !strings.Contains(err.Error(), "--no-iam-check") {
			t.Errorf("kinesis PutRecord, which the check does not model: %v, want AccessDeniedException saying --no-iam-check", err)
		}
	}
	err := call("nobody").Call(ctx, "dynamodb", "DeleteItem", map[string]string{"TableName": "todos"}, nil)
	if !awscall.IsCode(err, "AccessDeniedException") || !strings.Contains(err.Error(), "no function named nobody") {
		t.Errorf("a function the policy does not know: %v, want AccessDeniedException saying why", err)
	}
	unmodeled, noPolicy := rec.refusals()
	if len(unmodeled) != 1 || !strings.HasPrefix(unmodeled[0], "api kinesis PutRecord: ") {
		t.Errorf("iam_unmodeled reports %q, want kinesis PutRecord's once", unmodeled)
	}
	if len(noPolicy) != 1 || !strings.HasPrefix(noPolicy[0], "nobody: the policies know no function named nobody") {
		t.Errorf("no-policy reports %q", noPolicy)
	}
	if line := UnmodeledLine("api", &Unmodeled{Service: "kinesis", Operation: "PutRecord", Why: "not modelled"}); !strings.Contains(line, "function api") ||
		!strings.Contains(line, "kinesis PutRecord") || !strings.Contains(line, "not modelled") || !strings.Contains(line, "--no-iam-check") {
		t.Errorf("UnmodeledLine: %q", line)
	}

	// No policies at all: every call is refused, saying why.
	p.SetTarget(Target{Upstream: up.URL, Region: "us-east-1", NoPolicies: "the app's code was not scanned",
		Credentials: func(context.Context) (awscall.Credentials, error) { return realCreds, nil }})
	err = call("api").Call(ctx, "dynamodb", "GetItem", map[string]string{"TableName": "todos"}, nil)
	if !awscall.IsCode(err, "AccessDeniedException") || !strings.Contains(err.Error(), "the app's code was not scanned") || !strings.Contains(err.Error(), "--no-iam-check") {
		t.Errorf("without policies: %v, want AccessDeniedException saying why and --no-iam-check", err)
	}
	if _, noPolicy := rec.refusals(); len(noPolicy) != 2 || noPolicy[1] != "api: the app's code was not scanned" {
		t.Errorf("no-policy reports %q", noPolicy)
	}
	if calls, _ := up.seen(); len(calls) != 0 {
		t.Errorf("upstream got %q, want nothing", calls)
	}
}

// The proxy's cost per call: a DynamoDB GetItem sent straight to a local
// stand-in, and through the proxy (checked, signed again, forwarded).
func BenchmarkProxy(b *testing.B) {
	up := startUpstream(b, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") })
	p, _ := startProxy(b, up.URL, appPolicy)
	ctx := context.Background()
	in := map[string]any{"TableName": "todos", "Key": map[string]any{"id": map[string]string{"S": "1"}}}
	for _, bc := range []struct {
		name     string
		endpoint string
		creds    awscall.Credentials
	}{
		{"direct", up.URL, realCreds},
		{"proxy", p.URL, awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}},
	} {
		c := awscall.Config{Region: "us-east-1", Endpoint: bc.endpoint, Credentials: bc.creds}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Call(ctx, "dynamodb", "GetItem", in, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Against a deployed stage (no emulator), an allowed call goes to its
// service's regional endpoint, the one the SDK would have used.
func TestUpstreamURL(t *testing.T) {
	for _, tc := range []struct {
		service, target, region, want string
	}{
		{"dynamodb", "DynamoDB_20120810.GetItem", "eu-west-1", "https://dynamodb.eu-west-1.amazonaws.com"},
		{"dynamodb", "DynamoDBStreams_20120810.GetRecords", "eu-west-1", "https://streams.dynamodb.eu-west-1.amazonaws.com"},
		{"s3", "", "us-east-1", "https://s3.us-east-1.amazonaws.com"},
		{"secretsmanager", "secretsmanager.GetSecretValue", "cn-north-1", "https://secretsmanager.cn-north-1.amazonaws.com.cn"},
		{"ses", "", "us-west-2", "https://email.us-west-2.amazonaws.com"},
	} {
		r := httptest.NewRequest("POST", "http://127.0.0.1:9/", nil)
		r.Header.Set("X-Amz-Target", tc.target)
		if got := upstreamURL(r, &Target{}, tc.region, tc.service); got != tc.want {
			t.Errorf("%s in %s: %s, want %s", tc.service, tc.region, got, tc.want)
		}
	}
	if got := upstreamURL(httptest.NewRequest("GET", "/", nil), &Target{Upstream: "http://127.0.0.1:5000/"}, "us-east-1", "s3"); got != "http://127.0.0.1:5000" {
		t.Errorf("with an emulator: %s", got)
	}
	// The CLI's AWS_ENDPOINT_URL_<SERVICE>, which the app's environment
	// loses to the proxy, still decides where the service's calls go.
	eps := ServiceEndpoints([]string{"AWS_ENDPOINT_URL_S3=http://127.0.0.1:9000", "AWS_ENDPOINT_URL_KINESIS=http://127.0.0.1:1"})
	if got := upstreamURL(httptest.NewRequest("GET", "/", nil), &Target{Upstream: "http://127.0.0.1:5000", Endpoints: eps}, "us-east-1", "s3"); got != "http://127.0.0.1:9000" {
		t.Errorf("with AWS_ENDPOINT_URL_S3: %s", got)
	}
}

// A presigned S3 URL the app hands out is checked as the function that
// signed it, and a GET of it reaches the emulator signed with the real
// credentials; one for what the role may not do is AccessDenied.
func TestProxyPresignedURLs(t *testing.T) {
	up := startUpstream(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "object") })
	p, rec := startProxy(t, up.URL, appPolicy)
	ctx := context.Background()
	pre := s3.NewPresignClient(s3.NewFromConfig(sdkConfig(p, "api"), func(o *s3.Options) { o.UsePathStyle = true }))
	get, err := pre.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("files"), Key: aws.String("a.csv")})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(get.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "object" {
		t.Errorf("GET of a presigned URL for an allowed object: %d %s", resp.StatusCode, b)
	}
	put, err := pre.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("files"), Key: aws.String("a.csv")})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("PUT", put.URL, strings.NewReader("x"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(b), "<Code>AccessDenied</Code>") {
		t.Errorf("PUT of a presigned URL the role may not: %d %s, want S3's AccessDenied", resp.StatusCode, b)
	}
	calls, bad := up.seen()
	if len(calls) != 1 || len(bad) > 0 {
		t.Errorf("upstream got %q (badly signed: %q), want the GET alone, signed with the real credentials", calls, bad)
	}
	if lines := rec.deniedLines(); len(lines) != 1 || !strings.Contains(lines[0], "s3:PutObject on arn:aws:s3:::files/a.csv") {
		t.Errorf("denied lines %q", lines)
	}
}
