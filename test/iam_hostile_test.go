package test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// answer is what a service (or the local IAM check in its name) answered
// one request: the probe's Answer, or the test's own request's.
type answer struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   string            `json:"body"`
	Error  string            `json:"error"`
}

// code is the error code of a, as the AWS SDKs read it: SQS's
// query-compatible header, the JSON protocols' X-Amzn-ErrorType or
// __type (its part after #), or the XML protocols' <Code>; "" when a
// carries none.
func (a answer) code() string {
	h := func(k string) string {
		for hk, v := range a.Header {
			if strings.EqualFold(hk, k) {
				return v
			}
		}
		return ""
	}
	if v := h("X-Amzn-Query-Error"); v != "" {
		c, _, _ := strings.Cut(v, ";")
		return c
	}
	if v := h("X-Amzn-ErrorType"); v != "" {
		c, _, _ := strings.Cut(v, ":")
		return c
	}
	var j map[string]any
	if json.Unmarshal([]byte(a.Body), &j) == nil {
		for _, k := range []string{"__type", "code", "Code"} {
			if s, ok := j[k].(string); ok && s != "" {
				return s[strings.LastIndex(s, "#")+1:]
			}
		}
	}
	if m := regexp.MustCompile(`<Code>([^<]*)</Code>`).FindStringSubmatch(a.Body); m != nil {
		return m[1]
	}
	return ""
}

func (a answer) String() string {
	b := a.Body
	if len(b) > 600 {
		b = b[:600] + "…"
	}
	if a.Error != "" {
		return "no answer: " + a.Error
	}
	return fmt.Sprintf("%d %s %s", a.Status, a.code(), b)
}

// wantRefused fails the test unless a is an error answer (4xx) whose
// code is one of codes.
func wantRefused(t *testing.T, what string, a answer, codes ...string) {
	t.Helper()
	if a.Status < 400 || a.Status > 499 || !slices.Contains(codes, a.code()) {
		t.Errorf("%s: got %s; want it refused with %s", what, a, strings.Join(codes, " or "))
	}
}

// raw is a request the probe's route alpha signs with its function's
// credentials (iamprobe's Raw).
type raw struct {
	Service string            `json:"service"`
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Host    string            `json:"host,omitempty"`
	Header  map[string]string `json:"header,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// probeRun is a `framework local` of test/testdata/iamprobe against moto.
type probeRun struct {
	s    *localServer
	moto *mototest.Server
	cfg  aws.Config // moto's, for reading its state directly
}

// alpha posts ask to route alpha and decodes its answer into out.
func (p *probeRun) alpha(t *testing.T, ask map[string]any, out any) {
	t.Helper()
	b, _ := json.Marshal(ask)
	resp, err := http.Post(p.s.URL+"/alpha", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /alpha %s: %d %s", b, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("POST /alpha %s: %v: %s", b, err, body)
	}
}

// raw has route alpha send r, signed as its function, and returns what it
// was answered.
func (p *probeRun) raw(t *testing.T, r raw) answer {
	t.Helper()
	var out struct{ Answer answer }
	p.alpha(t, map[string]any{"op": "raw", "raw": r}, &out)
	if out.Answer.Error != "" {
		t.Fatalf("%s %s from the function: no answer: %s", r.Method, r.URL, out.Answer.Error)
	}
	return out.Answer
}

// jsonCall is a JSON protocol request of operation target.
func jsonCall(service, target, version, body string) raw {
	return raw{Service: service, Method: "POST", URL: "/", Body: body,
		Header: map[string]string{"X-Amz-Target": target, "Content-Type": "application/x-amz-json-" + version}}
}

// formCall is a query protocol request.
func formCall(service string, form url.Values) raw {
	return raw{Service: service, Method: "POST", URL: "/", Body: form.Encode(),
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}}
}

// hasItem reports whether moto's table holds the item id.
func (p *probeRun) hasItem(t *testing.T, table, id string) bool {
	t.Helper()
	out, err := dynamodb.NewFromConfig(p.cfg).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}}})
	if err != nil {
		t.Fatalf("GetItem %s %s at moto: %v", table, id, err)
	}
	return out.Item != nil
}

func (p *probeRun) s3c() *s3.Client {
	return s3.NewFromConfig(p.cfg, func(o *s3.Options) { o.UsePathStyle = true })
}

// object returns the object's content at moto, and whether it exists.
func (p *probeRun) object(t *testing.T, bucket, key string) (string, bool) {
	t.Helper()
	out, err := p.s3c().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		if strings.Contains(err.Error(), "NoSuchKey") {
			return "", false
		}
		t.Fatalf("GetObject %s/%s at moto: %v", bucket, key, err)
	}
	return string(readAll(t, out.Body)), true
}

// messages is how many messages moto's queue holds.
func (p *probeRun) messages(t *testing.T, queueURL string) int {
	t.Helper()
	out, err := sqs.NewFromConfig(p.cfg).GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatalf("GetQueueAttributes %s at moto: %v", queueURL, err)
	}
	n := 0
	for _, v := range out.Attributes {
		i, _ := strconv.Atoi(v)
		n += i
	}
	return n
}

// motoQuery calls a query protocol service of moto (IAM, which has no SDK
// module here) and returns the answer's body; moto reads the service
// from the Authorization header and checks no signature.
func (p *probeRun) motoQuery(t *testing.T, service string, form url.Values) string {
	t.Helper()
	req, _ := http.NewRequest("POST", p.moto.URL+"/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAMOTOTEST/20260101/"+mototest.Region+"/"+service+"/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(readAll(t, resp.Body))
}

// secrets is Secrets Manager at moto.
func (p *probeRun) secrets() awscall.Config {
	return awscall.Config{Region: mototest.Region, Endpoint: p.moto.URL, Credentials: awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}}
}

// probeResources are the physical names of one function's resources.
type probeResources struct {
	Table, Bucket, Queue, Topic, Secret string // Queue: its URL at moto; Topic, Secret: ARNs
}

// resources finds the resources framework local created at moto whose
// names end in suffix ("a" or "b": tablea, bucketa, ...).
func (p *probeRun) resources(t *testing.T, suffix string) probeResources {
	t.Helper()
	ctx := context.Background()
	one := func(kind string, all []string) string {
		t.Helper()
		var found []string
		for _, n := range all {
			if strings.Contains(strings.ToLower(n), kind+suffix) {
				found = append(found, n)
			}
		}
		if len(found) != 1 {
			t.Fatalf("moto holds %d %s%s (%v), want 1", len(found), kind, suffix, all)
		}
		return found[0]
	}
	var r probeResources
	tables, err := dynamodb.NewFromConfig(p.cfg).ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	r.Table = one("table", tables.TableNames)
	buckets, err := p.s3c().ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var bn []string
	for _, b := range buckets.Buckets {
		bn = append(bn, aws.ToString(b.Name))
	}
	r.Bucket = one("bucket", bn)
	queues, err := sqs.NewFromConfig(p.cfg).ListQueues(ctx, &sqs.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	r.Queue = one("queue", queues.QueueUrls)
	topics, err := sns.NewFromConfig(p.cfg).ListTopics(ctx, &sns.ListTopicsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var tn []string
	for _, tp := range topics.Topics {
		tn = append(tn, aws.ToString(tp.TopicArn))
	}
	r.Topic = one("topic", tn)
	var secrets struct{ SecretList []struct{ ARN string } }
	if err := p.secrets().Call(ctx, "secretsmanager", "ListSecrets", nil, &secrets); err != nil {
		t.Fatal(err)
	}
	var sn []string
	for _, s := range secrets.SecretList {
		sn = append(sn, s.ARN)
	}
	r.Secret = one("secret", sn)
	return r
}

// spy creates a queue at moto that receives what topic publishes, and
// returns its URL.
func (p *probeRun) spy(t *testing.T, name, topic string) string {
	t.Helper()
	ctx := context.Background()
	q := sqs.NewFromConfig(p.cfg)
	out, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sns.NewFromConfig(p.cfg).Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)])}); err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.QueueUrl)
}

// sendAs sends a request of service to u from the test process (which
// is no function), signed with creds unless creds is nil, its signature
// then replaced by forged when forged is not "".
func sendAs(t *testing.T, service, method, u string, header map[string]string, body string, creds *awscall.Credentials, forged string) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if creds != nil {
		if service == "s3" {
			req.Header.Set("X-Amz-Content-Sha256", fmt.Sprintf("%x", sha256sum(body)))
		}
		awscall.Sign(req, []byte(body), *creds, mototest.Region, service, time.Now())
		if forged != "" {
			a := req.Header.Get("Authorization")
			req.Header.Set("Authorization", a[:strings.Index(a, "Signature=")+len("Signature=")]+forged)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{Status: resp.StatusCode, Body: string(readAll(t, resp.Body)), Header: map[string]string{}}
	for k := range resp.Header {
		a.Header[k] = resp.Header.Get(k)
	}
	return a
}

// TestLocalIAMHostileReplay replays, against a real `framework local
// --aws-endpoint` at moto, every way around the local IAM check that
// issue 37 found, with test/testdata/iamprobe: two functions, the route
// function (route alpha) and the queue handler beta, each allowed a table,
// a bucket, a queue, a topic and a secret of its own. Route alpha makes
// the hostile calls on beta's resources from inside its function's
// process, signed with its own credentials; the test process, which is no
// function, acts as another local process would: it reads alpha's key id
// from a presigned URL the app hands out and signs with a forged
// signature, a wrong secret or an unknown key, and calls the WebSocket
// management endpoint. Each is refused with the service's own error code,
// and moto's state, read directly, is unchanged; the same functions'
// allowed calls still succeed, before the replay and after it.
func TestLocalIAMHostileReplay(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "iamprobe")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules", "--ws-port", "0")
	p := &probeRun{s: s, moto: moto, cfg: moto.Config()}
	ctx := context.Background()
	a, b := p.resources(t, "a"), p.resources(t, "b")
	motoHost := strings.TrimPrefix(moto.URL, "http://")
	account := "123456789012"

	// What the functions are allowed to read, and what is there to steal.
	const secretAValue, secretBValue, objectB = "alpha-secret-value-3f9c", "beta-secret-value-7d21", "beta's private object 5e8a"
	for arn, v := range map[string]string{a.Secret: secretAValue, b.Secret: secretBValue} {
		if err := p.secrets().Call(ctx, "secretsmanager", "PutSecretValue", map[string]string{"SecretId": arn, "SecretString": v}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.s3c().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b.Bucket), Key: aws.String("secret.txt"), Body: strings.NewReader(objectB)}); err != nil {
		t.Fatal(err)
	}
	spyA, spyB := p.spy(t, "spy-topica", a.Topic), p.spy(t, "spy-topicb", b.Topic)

	var own struct {
		Table, Bucket, Queue, Topic, Secret, Presigned string
		PresignError                                   string `json:"presign_error"`
	}
	p.alpha(t, map[string]any{"op": "own"}, &own)
	if own.PresignError != "ok" || own.Table != a.Table || own.Bucket != a.Bucket {
		t.Fatalf("route alpha's own resources: %+v; want %+v and a presigned URL", own, a)
	}
	presigned, err := url.Parse(own.Presigned)
	if err != nil {
		t.Fatal(err)
	}
	// What any local process can read: the key id of alpha's function
	// and where the check listens, from a URL the app hands out.
	alphaKey, _, _ := strings.Cut(presigned.Query().Get("X-Amz-Credential"), "/")
	proxyURL := presigned.Scheme + "://" + presigned.Host
	if alphaKey == "" {
		t.Fatalf("the presigned URL %s names no key id", own.Presigned)
	}

	allowed := func(t *testing.T, id string) {
		t.Helper()
		var out map[string]string
		p.alpha(t, map[string]any{"op": "allowed", "id": id}, &out)
		for _, call := range []string{"PutItem", "GetItem", "PutObject", "GetObject", "SendMessage", "Publish", "GetSecretValue"} {
			if out[call] != "ok" {
				t.Errorf("route alpha's allowed %s: %q, want it to succeed", call, out[call])
			}
		}
		if !p.hasItem(t, a.Table, id) {
			t.Errorf("route alpha's PutItem %s did not reach moto's %s", id, a.Table)
		}
	}
	t.Run("allowed calls of alpha", func(t *testing.T) {
		spied := p.messages(t, spyA)
		allowed(t, "own.txt")
		if n := p.messages(t, spyA); n != spied+1 {
			t.Errorf("topic A's subscriber holds %d messages after alpha's Publish, want %d", n, spied+1)
		}
		// The presigned URL of alpha's own bucket works for whoever holds it.
		got := sendAs(t, "s3", "GET", own.Presigned, nil, "", nil, "")
		if got.Status != 200 || got.Body != "object own.txt" {
			t.Errorf("GET of alpha's presigned URL: %s, want the object", got)
		}
	})

	// A forged identity: the test process is no function; it knows
	// alpha's key id but not its secret. Each call is one alpha is
	// allowed, so only the signature can refuse it.
	putItemA := func(id string) (map[string]string, string) {
		return map[string]string{"X-Amz-Target": "DynamoDB_20120810.PutItem", "Content-Type": "application/x-amz-json-1.0"},
			fmt.Sprintf(`{"TableName":%q,"Item":{"id":{"S":%q}}}`, a.Table, id)
	}
	t.Run("forged signature", func(t *testing.T) {
		h, body := putItemA("forged-signature")
		got := sendAs(t, "dynamodb", "POST", proxyURL+"/", h, body, &awscall.Credentials{AccessKeyID: alphaKey, SecretAccessKey: "unknown"}, "00")
		wantRefused(t, "DynamoDB PutItem as alpha with Signature=00", got, "InvalidSignatureException")
		if p.hasItem(t, a.Table, "forged-signature") {
			t.Errorf("the forged PutItem wrote to %s", a.Table)
		}
		got = sendAs(t, "s3", "PUT", proxyURL+"/"+a.Bucket+"/forged.txt", nil, "forged", &awscall.Credentials{AccessKeyID: alphaKey, SecretAccessKey: "unknown"}, "00")
		wantRefused(t, "S3 PutObject as alpha with Signature=00", got, "SignatureDoesNotMatch")
		if _, ok := p.object(t, a.Bucket, "forged.txt"); ok {
			t.Errorf("the forged PutObject wrote to %s", a.Bucket)
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		h, body := putItemA("wrong-secret")
		got := sendAs(t, "dynamodb", "POST", proxyURL+"/", h, body, &awscall.Credentials{AccessKeyID: alphaKey, SecretAccessKey: "not-alphas-secret-0123456789"}, "")
		wantRefused(t, "DynamoDB PutItem as alpha signed with a wrong secret", got, "InvalidSignatureException")
		if p.hasItem(t, a.Table, "wrong-secret") {
			t.Errorf("the PutItem signed with a wrong secret wrote to %s", a.Table)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		h, body := putItemA("unknown-key")
		got := sendAs(t, "dynamodb", "POST", proxyURL+"/", h, body, &awscall.Credentials{AccessKeyID: "FWLOCAL0123456789ABCDEF", SecretAccessKey: "whatever-0123456789"}, "")
		// DynamoDB answers UnrecognizedClientException; AWS's common errors
		// name the same refusal InvalidClientTokenId: either is AWS's.
		wantRefused(t, "DynamoDB PutItem signed with a key id no function has", got, "UnrecognizedClientException", "InvalidClientTokenId")
		h, body = putItemA("unsigned")
		got = sendAs(t, "dynamodb", "POST", proxyURL+"/", h, body, nil, "")
		// The common errors' MissingAuthenticationToken, which the JSON
		// protocols' __type spells with Exception.
		wantRefused(t, "DynamoDB PutItem unsigned", got, "MissingAuthenticationTokenException", "MissingAuthenticationToken")
		if p.hasItem(t, a.Table, "unknown-key") || p.hasItem(t, a.Table, "unsigned") {
			t.Errorf("a PutItem of no function wrote to %s", a.Table)
		}
	})

	// Services the check does not model are refused, not forwarded with
	// the CLI's credentials. For an IAM refusal the query protocols (IAM,
	// STS) answer AccessDenied and the JSON ones (Lambda)
	// AccessDeniedException; a check that models none of these services
	// may answer either, and both are what AWS says for "not allowed".
	t.Run("unmodeled services", func(t *testing.T) {
		got := p.raw(t, formCall("iam", url.Values{"Action": {"CreateUser"}, "Version": {"2010-05-08"}, "UserName": {"hostile"}}))
		wantRefused(t, "IAM CreateUser from alpha", got, "AccessDenied", "AccessDeniedException")
		if users := p.motoQuery(t, "iam", url.Values{"Action": {"ListUsers"}, "Version": {"2010-05-08"}}); strings.Contains(users, "hostile") {
			t.Errorf("IAM CreateUser from alpha created the user at moto: %s", users)
		}
		got = p.raw(t, formCall("sts", url.Values{"Action": {"GetCallerIdentity"}, "Version": {"2011-06-15"}}))
		wantRefused(t, "STS GetCallerIdentity from alpha", got, "AccessDenied", "AccessDeniedException")
		if strings.Contains(got.Body, "<Arn>") {
			t.Errorf("STS GetCallerIdentity from alpha answered the CLI's identity: %s", got)
		}
		got = p.raw(t, raw{Service: "lambda", Method: "GET", URL: "/2015-03-31/functions/"})
		wantRefused(t, "Lambda ListFunctions from alpha", got, "AccessDenied", "AccessDeniedException")
	})

	t.Run("PartiQL on the other table", func(t *testing.T) {
		got := p.raw(t, jsonCall("dynamodb", "DynamoDB_20120810.ExecuteStatement", "1.0",
			fmt.Sprintf(`{"Statement":"INSERT INTO \"%s\" VALUE {'id': 'partiql'}"}`, b.Table)))
		wantRefused(t, "ExecuteStatement INSERT into table B from alpha", got, "AccessDeniedException")
		got = p.raw(t, jsonCall("dynamodb", "DynamoDB_20120810.BatchExecuteStatement", "1.0",
			fmt.Sprintf(`{"Statements":[{"Statement":"INSERT INTO \"%s\" VALUE {'id': 'batch-partiql'}"}]}`, b.Table)))
		// DynamoDB refuses the whole call (AccessDeniedException) or each
		// statement it may not run (BatchStatementError's AccessDenied):
		// both are its own.
		var batch struct {
			Responses []struct{ Error *struct{ Code string } }
		}
		if got.Status != 200 || json.Unmarshal([]byte(got.Body), &batch) != nil || len(batch.Responses) != 1 ||
			batch.Responses[0].Error == nil || batch.Responses[0].Error.Code != "AccessDenied" {
			wantRefused(t, "BatchExecuteStatement INSERT into table B from alpha", got, "AccessDeniedException")
		}
		if p.hasItem(t, b.Table, "partiql") || p.hasItem(t, b.Table, "batch-partiql") {
			t.Errorf("PartiQL from alpha wrote to %s", b.Table)
		}
	})

	t.Run("BatchGetSecretValue of the other secret", func(t *testing.T) {
		got := p.raw(t, jsonCall("secretsmanager", "secretsmanager.BatchGetSecretValue", "1.1", fmt.Sprintf(`{"SecretIdList":[%q]}`, b.Secret)))
		if strings.Contains(got.Body, secretBValue) {
			t.Fatalf("BatchGetSecretValue from alpha returned secret B's value: %s", got)
		}
		// AWS refuses the whole call without secretsmanager:BatchGetSecretValue
		// (which no declaration grants), or, with it, lists each secret the
		// role may not read in Errors (AccessDeniedException): both refuse.
		var out struct{ Errors []struct{ ErrorCode string } }
		if got.Status == 200 && json.Unmarshal([]byte(got.Body), &out) == nil && len(out.Errors) == 1 && out.Errors[0].ErrorCode == "AccessDeniedException" {
			return
		}
		wantRefused(t, "BatchGetSecretValue of secret B from alpha", got, "AccessDeniedException")
	})

	t.Run("S3 sub-resources of the other bucket", func(t *testing.T) {
		got := p.raw(t, raw{Service: "s3", Method: "PUT", URL: "/" + b.Bucket + "?acl", Header: map[string]string{"X-Amz-Acl": "public-read"}})
		wantRefused(t, "PUT ?acl on bucket B from alpha", got, "AccessDenied")
		acl, err := p.s3c().GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String(b.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range acl.Grants {
			if g.Grantee != nil && strings.Contains(aws.ToString(g.Grantee.URI), "AllUsers") {
				t.Errorf("PUT ?acl from alpha made bucket B public: %+v", g)
			}
		}
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}`, b.Bucket)
		got = p.raw(t, raw{Service: "s3", Method: "PUT", URL: "/" + b.Bucket + "?policy", Body: policy, Header: map[string]string{"Content-Type": "application/json"}})
		wantRefused(t, "PUT ?policy on bucket B from alpha", got, "AccessDenied")
		if pol, err := p.s3c().GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(b.Bucket)}); err == nil {
			t.Errorf("PUT ?policy from alpha set bucket B's policy: %s", aws.ToString(pol.Policy))
		}
	})

	t.Run("S3 unknown query parameter on the other bucket", func(t *testing.T) {
		got := p.raw(t, raw{Service: "s3", Method: "GET", URL: "/" + b.Bucket + "/secret.txt?foo=1"})
		wantRefused(t, "GET bucket B's object ?foo=1 from alpha", got, "AccessDenied")
		if strings.Contains(got.Body, objectB) {
			t.Errorf("GET ?foo=1 from alpha read bucket B's object")
		}
		got = p.raw(t, raw{Service: "s3", Method: "PUT", URL: "/" + b.Bucket + "/planted.txt?foo=1", Body: "planted"})
		wantRefused(t, "PUT into bucket B ?foo=1 from alpha", got, "AccessDenied")
		if _, ok := p.object(t, b.Bucket, "planted.txt"); ok {
			t.Errorf("PUT ?foo=1 from alpha planted an object in bucket B")
		}
	})

	t.Run("JSON keys in two cases", func(t *testing.T) {
		got := p.raw(t, jsonCall("dynamodb", "DynamoDB_20120810.PutItem", "1.0",
			fmt.Sprintf(`{"TableName":%q,"tablename":%q,"Item":{"id":{"S":"case-variant"}}}`, b.Table, a.Table)))
		wantRefused(t, `PutItem {"TableName":B,"tablename":A} from alpha`, got, "AccessDeniedException")
		if p.hasItem(t, b.Table, "case-variant") {
			t.Errorf("the case-variant PutItem from alpha wrote to %s", b.Table)
		}
	})

	t.Run("NaN in a body", func(t *testing.T) {
		got := p.raw(t, jsonCall("dynamodb", "DynamoDB_20120810.PutItem", "1.0",
			fmt.Sprintf(`{"TableName":%q,"Item":{"id":{"S":"nan"}},"Probe":NaN}`, b.Table)))
		wantRefused(t, "PutItem on table B with a NaN in its body from alpha", got, "AccessDeniedException")
		if p.hasItem(t, b.Table, "nan") {
			t.Errorf("the PutItem with a NaN from alpha wrote to %s", b.Table)
		}
	})

	t.Run("S3 Host and path disagree", func(t *testing.T) {
		// S3 reads this request as bucket A, key "B/hosted.txt": the
		// check may refuse it, or send on exactly what it checked (the
		// proxy forwards it path style, /A/B/hosted.txt); never may it
		// reach bucket B.
		got := p.raw(t, raw{Service: "s3", Method: "PUT", URL: "/" + b.Bucket + "/hosted.txt", Host: a.Bucket + ".s3.localhost", Body: "hosted"})
		if got.Status == http.StatusOK {
			if body, ok := p.object(t, a.Bucket, b.Bucket+"/hosted.txt"); !ok || body != "hosted" {
				t.Errorf("PUT Host: A.s3.localhost, path /B/hosted.txt from alpha: 200, but bucket A holds no key B/hosted.txt (%q, %v)", body, ok)
			}
		} else {
			wantRefused(t, "PUT Host: A.s3.localhost, path /B/hosted.txt from alpha", got, "AccessDenied")
		}
		if _, ok := p.object(t, b.Bucket, "hosted.txt"); ok {
			t.Errorf("the PUT whose Host names bucket A wrote into bucket B")
		}
	})

	t.Run("SQS queue URL with a query", func(t *testing.T) {
		before := p.messages(t, b.Queue)
		queueB := b.Queue[strings.LastIndex(b.Queue, "/")+1:]
		got := p.raw(t, jsonCall("sqs", "AmazonSQS.SendMessage", "1.0",
			fmt.Sprintf(`{"QueueUrl":%q,"MessageBody":"hostile"}`, own.Queue+"?x=/"+account+"/"+queueB)))
		wantRefused(t, "SendMessage to queue A's URL ?x=/ACCOUNT/queueB from alpha", got, "AccessDenied")
		if n := p.messages(t, b.Queue); n != before {
			t.Errorf("queue B holds %d messages after the SendMessage from alpha, %d before", n, before)
		}
	})

	t.Run("SNS TargetArn beside TopicArn", func(t *testing.T) {
		before := p.messages(t, spyB)
		got := p.raw(t, formCall("sns", url.Values{"Action": {"Publish"}, "Version": {"2010-03-31"}, "TopicArn": {a.Topic}, "TargetArn": {b.Topic}, "Message": {"hostile"}}))
		wantRefused(t, "Publish TopicArn=A&TargetArn=B from alpha", got, "AuthorizationError")
		// moto delivers to an SQS subscriber within Publish.
		if n := p.messages(t, spyB); n != before {
			t.Errorf("topic B's subscriber holds %d messages after the Publish from alpha, %d before", n, before)
		}
	})

	t.Run("S3 DeleteObjects in ISO-8859-1", func(t *testing.T) {
		body := `<?xml version="1.0" encoding="ISO-8859-1"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>secret.txt</Key></Object><Quiet>true</Quiet></Delete>`
		sum := md5.Sum([]byte(body))
		got := p.raw(t, raw{Service: "s3", Method: "POST", URL: "/" + b.Bucket + "?delete", Body: body,
			Header: map[string]string{"Content-Type": "application/xml", "Content-MD5": base64.StdEncoding.EncodeToString(sum[:])}})
		wantRefused(t, "POST ?delete on bucket B in ISO-8859-1 from alpha", got, "AccessDenied")
		if v, ok := p.object(t, b.Bucket, "secret.txt"); !ok || v != objectB {
			t.Errorf("bucket B's secret.txt after the DeleteObjects from alpha: %q, exists %v; want it kept", v, ok)
		}
	})

	t.Run("WebSocket management", func(t *testing.T) { hostileWebSocket(t, p, alphaKey) })

	t.Run("alpha's environment", func(t *testing.T) {
		var out struct{ Env map[string]string }
		p.alpha(t, map[string]any{"op": "env"}, &out)
		checkProbeEnv(t, "alpha", out.Env, "A", "B", motoHost)
	})

	t.Run("alpha's GetQueueUrl answers", func(t *testing.T) {
		// moto names queues by the host it was called on; the answers
		// alpha gets name the check's, in both of SQS's protocols.
		queueA := a.Queue[strings.LastIndex(a.Queue, "/")+1:]
		want := proxyURL + "/" + account + "/" + queueA
		for name, call := range map[string]raw{
			"JSON":  jsonCall("sqs", "AmazonSQS.GetQueueUrl", "1.0", fmt.Sprintf(`{"QueueName":%q}`, queueA)),
			"query": formCall("sqs", url.Values{"Action": {"GetQueueUrl"}, "Version": {"2012-11-05"}, "QueueName": {queueA}}),
		} {
			got := p.raw(t, call)
			if got.Status != 200 || !strings.Contains(got.Body, want) || strings.Contains(got.Body, moto.URL+"/") {
				t.Errorf("GetQueueUrl of queue A in SQS's %s protocol from alpha: %d %s; want %s, and not moto's %s", name, got.Status, got.Body, want, motoHost)
			}
		}
	})

	t.Run("allowed calls after the replay", func(t *testing.T) { allowed(t, "after-replay") })

	// beta, the queue handler, runs last: its allowed calls change what
	// the cases above read as unchanged.
	t.Run("beta", func(t *testing.T) {
		sent, err := sqs.NewFromConfig(p.cfg).GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(strings.TrimSuffix(b.Queue[strings.LastIndex(b.Queue, "/")+1:], "queueb") + "kick")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sqs.NewFromConfig(p.cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: sent.QueueUrl, MessageBody: aws.String("beta-1")}); err != nil {
			t.Fatal(err)
		}
		if d := s.waitDelivery(t, "beta", 2*time.Minute); d["ok"] != true {
			t.Fatalf("beta's delivery: %v", d)
		}
		calls, envLine := probeLine(t, s, "beta-calls "), probeLine(t, s, "beta-env ")
		var results map[string]string
		if err := json.NewDecoder(strings.NewReader(calls)).Decode(&results); err != nil {
			t.Fatalf("beta-calls %s: %v", calls, err)
		}
		for _, call := range []string{"PutItem", "PutObject", "SendMessage", "Publish", "GetSecretValue"} {
			if results[call] != "ok" {
				t.Errorf("beta's allowed %s: %q, want it to succeed", call, results[call])
			}
		}
		if !p.hasItem(t, b.Table, "beta-1") {
			t.Errorf("beta's PutItem did not reach moto's %s", b.Table)
		}
		var benv map[string]string
		if err := json.NewDecoder(strings.NewReader(envLine)).Decode(&benv); err != nil {
			t.Fatalf("beta-env %s: %v", envLine, err)
		}
		checkProbeEnv(t, "beta", benv, "B", "A", motoHost)
	})
}

// probeLine returns the rest of the line the probe wrote, on framework
// local's output, after prefix, waiting for it (the app's output is
// copied on as it comes, apart from the delivery event).
func probeLine(t *testing.T, s *localServer, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out := s.stderr.String()
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, prefix); i >= 0 {
				return strings.TrimSpace(line[i+len(prefix):])
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line in framework local's output:\n%s", prefix, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkProbeEnv fails the test when the environment of function fn holds
// a FRAMEWORK_RES_* variable of the other function's resources, or any
// value naming the emulator (moto's host and port), or lacks its own.
func checkProbeEnv(t *testing.T, fn string, env map[string]string, mine, other, motoHost string) {
	t.Helper()
	if len(env) == 0 {
		t.Fatalf("%s's environment: empty", fn)
	}
	for _, kind := range []string{"TABLE", "BUCKET", "QUEUE", "TOPIC", "SECRET"} {
		if _, ok := env["FRAMEWORK_RES_"+kind+mine+"_NAME"]; !ok {
			t.Errorf("%s's environment lacks its own FRAMEWORK_RES_%s%s_NAME", fn, kind, mine)
		}
	}
	var names []string
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, kind := range []string{"TABLE", "BUCKET", "QUEUE", "TOPIC", "SECRET"} {
			if strings.HasPrefix(k, "FRAMEWORK_RES_"+kind+other+"_") {
				t.Errorf("%s's environment holds %s, of a resource its role may not use", fn, k)
			}
		}
		if strings.Contains(env[k], motoHost) {
			t.Errorf("%s's environment holds %s=%s: the emulator itself, past the check", fn, k, env[k])
		}
	}
}

// hostileWebSocket: route alpha, whose function has no
// execute-api:ManageConnections, and the test process, which is no
// function, call the management endpoint on an open connection; each is
// refused with 403, and the connection got nothing from them and stays
// open, while the echo handler, which may manage connections, still
// answers through it.
func hostileWebSocket(t *testing.T, p *probeRun, alphaKey string) {
	ev := p.s.seenEvent("websocket")
	if ev == nil {
		t.Fatalf("framework local announced no WebSocket API; events: %v", p.s.seen)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, ev["url"].(string), nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.CloseNow()
	echo := func(text string) (id, endpoint string) {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"action":"echo","text":"`+text+`"}`)); err != nil {
			t.Fatalf("send: %v", err)
		}
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read the echo of %s: %v (the connection was closed?)", text, err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil || m["text"] != text {
			t.Fatalf("the connection got %s, want the echo of %q alone", b, text)
		}
		return m["id"], m["endpoint"]
	}
	id, endpoint := echo("hello")
	endpoints := []string{endpoint}
	if u, _ := ev["management_url"].(string); u != "" && u != endpoint {
		endpoints = append(endpoints, u)
	}
	// API Gateway refuses a caller IAM does not allow with 403 and
	// AccessDeniedException (its management API's documented 403 is
	// ForbiddenException): either is its own.
	for _, ep := range endpoints {
		conn := strings.TrimRight(ep, "/") + "/@connections/" + url.PathEscape(id)
		for _, method := range []string{"POST", "GET", "DELETE"} {
			got := p.raw(t, raw{Service: "execute-api", Method: method, URL: conn, Body: map[string]string{"POST": "from alpha"}[method]})
			if got.Status != 403 {
				t.Errorf("%s %s from alpha, which has no ManageConnections: %s, want 403", method, conn, got)
			} else {
				wantRefused(t, method+" "+conn+" from alpha", got, "AccessDeniedException", "ForbiddenException")
			}
			for _, who := range []struct {
				name  string
				creds *awscall.Credentials
			}{{"unsigned", nil}, {"as alpha with a wrong secret", &awscall.Credentials{AccessKeyID: alphaKey, SecretAccessKey: "not-alphas-secret-0123456789"}}} {
				got := sendAs(t, "execute-api", method, conn, nil, map[string]string{"POST": "from outside"}[method], who.creds, "")
				if got.Status != 403 {
					t.Errorf("%s %s from a process that is no function (%s): %s, want 403", method, conn, who.name, got)
				}
			}
		}
	}
	// Had any of them got through, the connection would hold its message
	// before this echo, or be closed.
	echo("still here")
}

func sha256sum(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}
