package localiam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"

	"github.com/framework-dev/framework/internal/awscall"
)

var authPolicy = StaticPolicies{
	"api": {
		{Actions: []string{"dynamodb:GetItem", "dynamodb:PutItem"}, Resources: []string{"arn:aws:dynamodb:us-east-1:123456789012:table/todos"}},
		{Actions: []string{"s3:GetObject", "s3:PutObject"}, Resources: []string{"arn:aws:s3:::files/*"}},
		{Actions: []string{"sqs:SendMessage"}, Resources: []string{"arn:aws:sqs:us-east-1:123456789012:jobs"}},
		{Actions: []string{"sns:Publish"}, Resources: []string{"arn:aws:sns:us-east-1:123456789012:events"}},
	},
	"worker": {{Actions: []string{"dynamodb:GetItem"}, Resources: []string{"arn:aws:dynamodb:us-east-1:123456789012:table/todos"}}},
}

// answerAll answers each service's call as the emulator would, enough for
// the SDK to read.
func answerAll(w http.ResponseWriter, r *http.Request) {
	switch t := r.Header.Get("X-Amz-Target"); {
	case strings.HasPrefix(t, "DynamoDB"), strings.HasPrefix(t, "AmazonSQS"):
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, `{}`)
	case r.Header.Get("Content-Type") == "application/x-www-form-urlencoded":
		w.Header().Set("Content-Type", "text/xml")
		_, _ = io.WriteString(w, `<PublishResponse><PublishResult><MessageId>m</MessageId></PublishResult></PublishResponse>`)
	default:
		_, _ = io.WriteString(w, "ok")
	}
}

// sdkAs is the SDK configuration of a process signing with key and
// secret, at the proxy.
func sdkAs(p *Proxy, key, secret string) aws.Config {
	return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(p.URL), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		})}
}

// sdkCalls makes one call of each checked service with cfg, all of which
// the api function may make, and returns their errors by service.
func sdkCalls(ctx context.Context, cfg aws.Config) map[string]error {
	key := map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	out := map[string]error{}
	_, out["dynamodb"] = dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("todos"), Key: key})
	_, out["s3 put"] = s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("files"), Key: aws.String("a b.csv"), Body: strings.NewReader("hello")})
	_, out["s3 get"] = s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("files"), Key: aws.String("a.csv")})
	_, out["sqs"] = sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.DisableMessageChecksumValidation = true }).SendMessage(ctx,
		&sqs.SendMessageInput{QueueUrl: aws.String("http://127.0.0.1:1/123456789012/jobs"), MessageBody: aws.String("x")})
	_, out["sns"] = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:events"), Message: aws.String("x")})
	return out
}

// Each function signs with credentials of its own, and the proxy verifies
// the signature with the function's secret: the SDK's calls with them go
// through; the same calls signed with a wrong secret, with another
// function's key id and this one's secret, or with a key that is no
// function's, get each service's own error, are reported, and none
// reaches the emulator.
func TestProxyVerifiesSignatures(t *testing.T) {
	up := startUpstream(t, answerAll)
	p, rec := startProxy(t, up.URL, authPolicy)
	ctx := context.Background()
	apiKey, apiSecret := envOf(p, "api", "AWS_ACCESS_KEY_ID"), envOf(p, "api", "AWS_SECRET_ACCESS_KEY")
	workerKey, workerSecret := envOf(p, "worker", "AWS_ACCESS_KEY_ID"), envOf(p, "worker", "AWS_SECRET_ACCESS_KEY")
	if apiKey == workerKey || apiSecret == workerSecret || len(apiSecret) < 40 {
		t.Fatalf("functions share credentials, or a weak secret: %s %s", apiKey, workerKey)
	}
	if envOf(p, "api", "AWS_SECRET_ACCESS_KEY") != apiSecret || envOf(p, "api", "AWS_ACCESS_KEY_ID") != apiKey {
		t.Error("Environ gave the api function other credentials the second time: warm processes would not be reused")
	}
	for svc, err := range sdkCalls(ctx, sdkConfig(p, "api")) {
		if err != nil {
			t.Errorf("%s with the function's own credentials: %v", svc, err)
		}
	}
	// A refusal reads as DynamoDB's own, its CRC32 right: the SDK logs
	// no checksum warning.
	var logged bytes.Buffer
	cfg := sdkConfig(p, "api")
	cfg.Logger = logging.NewStandardLogger(&logged)
	_, err := dynamodb.NewFromConfig(cfg).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("todos"),
		Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "1"}}})
	if errorCode(err) != "AccessDeniedException" || logged.Len() > 0 {
		t.Errorf("DeleteItem: %v, logged %q: want AccessDeniedException and no warning", err, logged.String())
	}
	allowed, bad := up.seen()
	if len(allowed) != 5 || len(bad) > 0 {
		t.Fatalf("upstream got %q (badly signed %q), want the 5 allowed calls", allowed, bad)
	}

	for _, tc := range []struct {
		name, key, secret, function string
		codes                       map[string]string
	}{
		{"a wrong secret", apiKey, "wrongsecret", "api", map[string]string{"dynamodb": "InvalidSignatureException", "s3 put": "SignatureDoesNotMatch",
			"s3 get": "SignatureDoesNotMatch", "sqs": "SignatureDoesNotMatch", "sns": "SignatureDoesNotMatch"}},
		{"another function's key id with this one's secret", workerKey, apiSecret, "worker", map[string]string{"dynamodb": "InvalidSignatureException",
			"s3 put": "SignatureDoesNotMatch", "s3 get": "SignatureDoesNotMatch", "sqs": "SignatureDoesNotMatch", "sns": "SignatureDoesNotMatch"}},
		{"a key that is no function's", "AKIAOTHER", apiSecret, "", map[string]string{"dynamodb": "UnrecognizedClientException",
			"s3 put": "InvalidAccessKeyId", "s3 get": "InvalidAccessKeyId", "sqs": "InvalidClientTokenId", "sns": "InvalidClientTokenId"}},
	} {
		before := len(rec.unauthenticated())
		for svc, err := range sdkCalls(ctx, sdkAs(p, tc.key, tc.secret)) {
			if code := errorCode(err); code != tc.codes[svc] {
				t.Errorf("%s, %s: code %q (%v), want %s", tc.name, svc, code, err, tc.codes[svc])
			}
		}
		got := rec.unauthenticated()[before:]
		if len(got) != 5 {
			t.Errorf("%s: %d reports, want 5", tc.name, len(got))
		}
		for _, u := range got {
			if u.Function != tc.function || u.KeyID != tc.key || strings.Contains(u.Line(), apiSecret) || strings.Contains(u.Line(), workerSecret) {
				t.Errorf("%s: report %+v (%s), want function %q and key %s, no secret", tc.name, u, u.Line(), tc.function, tc.key)
			}
		}
	}
	if calls, _ := up.seen(); len(calls) != len(allowed) {
		t.Errorf("upstream got %q after the refused calls, want none of them", calls[len(allowed):])
	}
}

// do sends req and returns its status and body.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Requests made by hand that no SDK would send: a forged signature
// (Signature=00), none at all, a date more than 15 minutes off, a body
// other than the one signed (with its hash in X-Amz-Content-Sha256 or
// not), a chunk-signed body: each is refused in DynamoDB's or S3's shape
// and not sent on.
func TestProxyRefusesForgedRequests(t *testing.T) {
	up := startUpstream(t, answerAll)
	p, rec := startProxy(t, up.URL, authPolicy)
	creds := awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}
	body := `{"TableName":"todos","Key":{"id":{"S":"1"}}}`
	getItem := func(send string) *http.Request {
		req, _ := http.NewRequest("POST", p.URL+"/", strings.NewReader(send))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
		return req
	}
	now := time.Now()
	ok := getItem(body)
	awscall.Sign(ok, []byte(body), creds, "us-east-1", "dynamodb", now)
	if status, b := do(t, ok); status != 200 {
		t.Fatalf("the request signed right: %d %s", status, b)
	}

	forged := getItem(body)
	awscall.Sign(forged, []byte(body), creds, "us-east-1", "dynamodb", now)
	auth := forged.Header.Get("Authorization")
	forged.Header.Set("Authorization", auth[:strings.Index(auth, "Signature=")]+"Signature=00")
	unsigned := getItem(body)
	old := getItem(body)
	awscall.Sign(old, []byte(body), creds, "us-east-1", "dynamodb", now.Add(-16*time.Minute))
	future := getItem(body)
	awscall.Sign(future, []byte(body), creds, "us-east-1", "dynamodb", now.Add(16*time.Minute))
	other := `{"TableName":"todos","Key":{"id":{"S":"2"}}}`
	tampered := getItem(other)
	awscall.Sign(tampered, []byte(body), creds, "us-east-1", "dynamodb", now)
	tamperedHash := getItem(other)
	tamperedHash.Header.Set("X-Amz-Content-Sha256", sha256Hex([]byte(body)))
	awscall.SignHash(tamperedHash, sha256Hex([]byte(body)), creds, "us-east-1", "dynamodb", now)
	chunked, _ := http.NewRequest("PUT", p.URL+"/files/a.csv", strings.NewReader("x"))
	chunked.Header.Set("X-Amz-Content-Sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
	awscall.SignHash(chunked, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", creds, "us-east-1", "s3", now)

	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		want   []string
	}{
		{"Signature=00", forged, 400, []string{"InvalidSignatureException", "does not match"}},
		{"unsigned", unsigned, 400, []string{"MissingAuthenticationTokenException"}},
		{"signed 16 minutes ago", old, 400, []string{"InvalidSignatureException", "more than 15 minutes"}},
		{"signed 16 minutes ahead", future, 400, []string{"InvalidSignatureException", "more than 15 minutes"}},
		{"another body than the one signed", tampered, 400, []string{"InvalidSignatureException", "does not match"}},
		{"another body than its signed X-Amz-Content-Sha256", tamperedHash, 400, []string{"InvalidSignatureException", "X-Amz-Content-Sha256"}},
		{"a chunk-signed body", chunked, 501, []string{"<Code>NotImplemented</Code>", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "UNSIGNED-PAYLOAD"}},
	} {
		status, b := do(t, tc.req)
		if status != tc.status {
			t.Errorf("%s: status %d %s, want %d", tc.name, status, b, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(b, w) {
				t.Errorf("%s: %s, want %q in it", tc.name, b, w)
			}
		}
	}
	if n := len(rec.unauthenticated()); n != 7 {
		t.Errorf("%d unauthenticated reports, want 7: %+v", n, rec.unauthenticated())
	}
	if calls, _ := up.seen(); len(calls) != 1 {
		t.Errorf("upstream got %q, want the one request signed right", calls)
	}
}

// A presigned URL is checked with the secret of the function whose key
// it names: altered, signed with another secret or a key that is no
// function's, or expired, it gets S3's error and is not sent on.
func TestProxyPresignedSignatures(t *testing.T) {
	up := startUpstream(t, answerAll)
	p, _ := startProxy(t, up.URL, authPolicy)
	creds := awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}
	u, _ := url.Parse(p.URL + "/files/a.csv")
	now := time.Now()
	good := awscall.Presign("GET", u, creds, "us-east-1", "s3", now, time.Hour)
	get := func(s string) (int, string) {
		req, _ := http.NewRequest("GET", s, nil)
		return do(t, req)
	}
	if status, b := get(good); status != 200 {
		t.Fatalf("the presigned URL: %d %s", status, b)
	}
	for _, tc := range []struct {
		name, url, code string
	}{
		{"altered", strings.Replace(good, "/files/a.csv", "/files/secret.csv", 1), "SignatureDoesNotMatch"},
		{"another secret", awscall.Presign("GET", u, awscall.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: "wrong"}, "us-east-1", "s3", now, time.Hour), "SignatureDoesNotMatch"},
		{"no function's key", awscall.Presign("GET", u, awscall.Credentials{AccessKeyID: "AKIAOTHER", SecretAccessKey: "x"}, "us-east-1", "s3", now, time.Hour), "InvalidAccessKeyId"},
		{"expired", awscall.Presign("GET", u, creds, "us-east-1", "s3", now.Add(-2*time.Hour), time.Hour), "AccessDenied"},
	} {
		if status, b := get(tc.url); status != 403 || !strings.Contains(b, "<Code>"+tc.code+"</Code>") {
			t.Errorf("%s presigned URL: %d %s, want 403 %s", tc.name, status, b, tc.code)
		}
	}
	if calls, _ := up.seen(); len(calls) != 1 {
		t.Errorf("upstream got %q, want the good URL's GET alone", calls)
	}
}

// Calls of services the check does not model (IAM, STS, Lambda) are
// refused in their own AccessDenied shape, never sent on with the real
// credentials; so is an operation it does not model (S3 with an unknown
// query parameter), each reported as unmodeled.
func TestProxyRefusesUnmodeledCalls(t *testing.T) {
	up := startUpstream(t, answerAll)
	p, rec := startProxy(t, up.URL, authPolicy)
	ctx := context.Background()
	cfg := sdkConfig(p, "api")
	creds := awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}

	_, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if code := errorCode(err); code != "AccessDenied" || !strings.Contains(err.Error(), "--no-iam-check") {
		t.Errorf("sts GetCallerIdentity: %q %v, want STS's AccessDenied", code, err)
	}
	_, err = lambda.NewFromConfig(cfg).Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("other")})
	if code := errorCode(err); code != "AccessDeniedException" {
		t.Errorf("lambda Invoke: %q %v, want Lambda's AccessDeniedException", code, err)
	}
	form := "Action=CreateUser&UserName=mallory&Version=2010-05-08"
	req, _ := http.NewRequest("POST", p.URL+"/", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	awscall.Sign(req, []byte(form), creds, "us-east-1", "iam", time.Now())
	if status, b := do(t, req); status != 403 || !strings.Contains(b, "<ErrorResponse>") || !strings.Contains(b, "<Code>AccessDenied</Code>") {
		t.Errorf("iam CreateUser: %d %s, want IAM's AccessDenied", status, b)
	}
	req, _ = http.NewRequest("GET", p.URL+"/files/a.csv?foo=1", nil)
	awscall.Sign(req, nil, creds, "us-east-1", "s3", time.Now())
	if status, b := do(t, req); status != 403 || !strings.Contains(b, "<Code>AccessDenied</Code>") {
		t.Errorf("S3 GET ?foo=1 of an object the function may read: %d %s, want S3's AccessDenied", status, b)
	}
	unmodeled, _ := rec.refusals()
	want := []string{"api sts GetCallerIdentity: ", "api lambda ", "api iam CreateUser: ", "api s3 "}
	if len(unmodeled) != len(want) {
		t.Fatalf("unmodeled reports %q, want %d", unmodeled, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(unmodeled[i], w) {
			t.Errorf("unmodeled report %q, want it to start %q", unmodeled[i], w)
		}
	}
	if calls, _ := up.seen(); len(calls) != 0 {
		t.Errorf("upstream got %q, want nothing", calls)
	}
}

// pattern is a body of n bytes made as it is read.
type pattern struct{ n, off int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if rest := p.n - p.off; int64(len(b)) > rest {
		b = b[:rest]
	}
	for i := range b {
		b[i] = byte((p.off + int64(i)) % 251)
	}
	p.off += int64(len(b))
	return len(b), nil
}

func (p *pattern) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		p.off = off
	case io.SeekCurrent:
		p.off += off
	case io.SeekEnd:
		p.off = p.n + off
	}
	return p.off, nil
}

// An S3 upload streams through the proxy: a 64 MiB PutObject costs it a
// small part of that in memory, and reaches the emulator whole. A body
// other than the one its X-Amz-Content-Sha256 signs never reaches it
// whole: the upload fails there and the caller gets S3's
// XAmzContentSHA256Mismatch.
func TestProxyStreamsUploads(t *testing.T) {
	type got struct {
		n    int64
		hash string
		err  error
	}
	results := make(chan got, 4)
	up := startUpstream(t, nil)
	up.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		results <- got{n, hex.EncodeToString(h.Sum(nil)), err}
	})
	p, _ := startProxy(t, up.URL, authPolicy)
	ctx := context.Background()
	const size = 64 << 20
	s3c := s3.NewFromConfig(sdkConfig(p, "api"), func(o *s3.Options) { o.UsePathStyle = true })

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("files"), Key: aws.String("big.bin"), Body: &pattern{n: size}, ContentLength: aws.Int64(size)})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Errorf("a %d MiB PutObject allocated %d MiB in the test's process (SDK, proxy and stand-in): the proxy buffers the body", size>>20, alloc>>20)
	}
	if r := <-results; r.err != nil || r.n < size {
		t.Errorf("upstream got %d bytes (%v), want the whole %d", r.n, r.err, size)
	}

	creds := awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}
	const small = 1 << 20
	want, _ := io.ReadAll(&pattern{n: small})
	sum := sha256Hex(want)
	sent := bytes.Clone(want)
	sent[small-1] ^= 0xff
	req, _ := http.NewRequest("PUT", p.URL+"/files/tampered.bin", bytes.NewReader(sent))
	req.Header.Set("X-Amz-Content-Sha256", sum)
	awscall.SignHash(req, sum, creds, "us-east-1", "s3", time.Now())
	if status, b := do(t, req); status != 400 || !strings.Contains(b, "<Code>XAmzContentSHA256Mismatch</Code>") {
		t.Errorf("a tampered upload: %d %s, want S3's XAmzContentSHA256Mismatch", status, b)
	}
	if r := <-results; r.err == nil || r.n >= small {
		t.Errorf("upstream got the tampered upload whole (%d bytes, %v), want it cut off", r.n, r.err)
	}
}
