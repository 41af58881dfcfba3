package localiam

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"hash/crc32"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

const motoQueue = "arn:aws:sqs:us-east-1:123456789012:"

// startMotoQueues starts moto with the queues jobs and jobs-dlq (jobs'
// dead-letter queue) and a proxy before it, where function fn may get
// jobs' URL, send to it, create the queue made, list the queues and
// jobs-dlq's source queues, but not delete jobs. It returns moto's SQS
// client (around the proxy) and the proxy.
func startMotoQueues(t *testing.T) (*sqs.Client, *Proxy) {
	t.Helper()
	m := mototest.Start(t)
	ctx := context.Background()
	direct := sqs.NewFromConfig(m.Config())
	if _, err := direct.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")}); err != nil {
		t.Fatal(err)
	}
	redrive := `{"deadLetterTargetArn":"` + motoQueue + `jobs-dlq","maxReceiveCount":"3"}`
	if _, err := direct.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"RedrivePolicy": redrive}}); err != nil {
		t.Fatal(err)
	}
	pol := StaticPolicies{"fn": {
		{Actions: []string{"sqs:GetQueueUrl", "sqs:SendMessage"}, Resources: []string{motoQueue + "jobs"}},
		{Actions: []string{"sqs:CreateQueue"}, Resources: []string{motoQueue + "made"}},
		{Actions: []string{"sqs:ListQueues"}, Resources: []string{"*"}},
		{Actions: []string{"sqs:ListDeadLetterSourceQueues"}, Resources: []string{motoQueue + "jobs-dlq"}},
	}}
	p, err := Start(Options{Target: Target{Upstream: m.URL, Region: mototest.Region, Policies: pol, Env: Env{Account: mototest.AccountID},
		Credentials: func(context.Context) (awscall.Credentials, error) {
			return awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return direct, p
}

// queueDepth is the number of messages moto's queue name holds ("" when
// there is no such queue).
func queueDepth(t *testing.T, direct *sqs.Client, name string) string {
	t.Helper()
	ctx := context.Background()
	u, err := direct.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	if err != nil {
		return ""
	}
	out, err := direct.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages"}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["ApproximateNumberOfMessages"]
}

// The queue URLs SQS's JSON protocol answers through the proxy (what the
// SDK for Go v2 speaks) name the proxy, with moto's /ACCOUNT/NAME path:
// GetQueueUrl, CreateQueue, ListQueues and ListDeadLetterSourceQueues
// give the function no address of the emulator, and the URL they give
// serves the SDK's SendMessage through the proxy.
func TestMotoQueueURLsNameTheProxy(t *testing.T) {
	direct, p := startMotoQueues(t)
	ctx := context.Background()
	fsqs := sqs.NewFromConfig(sdkConfig(p, "fn"))
	want := func(name string) string { return p.URL + "/" + mototest.AccountID + "/" + name }

	got, err := fsqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.QueueUrl) != want("jobs") {
		t.Errorf("GetQueueUrl of jobs: %s, want %s", aws.ToString(got.QueueUrl), want("jobs"))
	}
	made, err := fsqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("made")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(made.QueueUrl) != want("made") {
		t.Errorf("CreateQueue of made: %s, want %s", aws.ToString(made.QueueUrl), want("made"))
	}
	list, err := fsqs.ListQueues(ctx, &sqs.ListQueuesInput{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(list.QueueUrls)
	if w := []string{want("jobs"), want("jobs-dlq"), want("made")}; !slices.Equal(list.QueueUrls, w) {
		t.Errorf("ListQueues: %q, want %q", list.QueueUrls, w)
	}
	src, err := fsqs.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(want("jobs-dlq"))})
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{want("jobs")}; !slices.Equal(src.QueueUrls, w) {
		t.Errorf("ListDeadLetterSourceQueues of jobs-dlq: %q, want %q", src.QueueUrls, w)
	}

	if _, err := fsqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: got.QueueUrl, MessageBody: aws.String("x")}); err != nil {
		t.Errorf("SendMessage to %s: %v", aws.ToString(got.QueueUrl), err)
	}
	if n := queueDepth(t, direct, "jobs"); n != "1" {
		t.Errorf("jobs holds %q messages, want 1", n)
	}
}

// queryCall signs form (an SQS query protocol call) as function fn and
// posts it to u, returning the answer's status and body.
func queryCall(t *testing.T, p *Proxy, fn, u, form string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	creds := awscall.Credentials{AccessKeyID: envOf(p, fn, "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, fn, "AWS_SECRET_ACCESS_KEY")}
	awscall.Sign(req, []byte(form), creds, mototest.Region, "sqs", time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(b)) {
		t.Errorf("%s: Content-Length %s, body of %d bytes", form, cl, len(b))
	}
	return resp.StatusCode, string(b)
}

// queueURLsOf are the QueueUrl elements of a query protocol answer.
func queueURLsOf(t *testing.T, body string) []string {
	t.Helper()
	var urls []string
	d := xml.NewDecoder(strings.NewReader(body))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "QueueUrl" {
			var u string
			if err := d.DecodeElement(&u, &se); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			urls = append(urls, u)
		}
	}
	slices.Sort(urls)
	return urls
}

// The query protocol's answers (the SDKs before SQS's JSON protocol) name
// the proxy too; and a call sent to the URL they give, as those SDKs send
// a queue's calls, reaches the check: SendMessage, which fn may make,
// reaches moto, and DeleteQueue, which it may not, is refused and the
// queue stays.
func TestMotoQueueURLsNameTheProxyQueryProtocol(t *testing.T) {
	direct, p := startMotoQueues(t)
	want := func(name string) string { return p.URL + "/" + mototest.AccountID + "/" + name }
	const v = "&Version=2012-11-05"

	for _, tc := range []struct {
		form string
		want []string
	}{
		{"Action=GetQueueUrl&QueueName=jobs", []string{want("jobs")}},
		{"Action=CreateQueue&QueueName=made", []string{want("made")}},
		{"Action=ListQueues", []string{want("jobs"), want("jobs-dlq"), want("made")}},
		{"Action=ListDeadLetterSourceQueues&QueueUrl=" + url.QueryEscape(want("jobs-dlq")), []string{want("jobs")}},
	} {
		status, body := queryCall(t, p, "fn", p.URL+"/", tc.form+v)
		if status != http.StatusOK {
			t.Errorf("%s: %d %s", tc.form, status, body)
			continue
		}
		if got := queueURLsOf(t, body); !slices.Equal(got, tc.want) {
			t.Errorf("%s: QueueUrl %q, want %q", tc.form, got, tc.want)
		}
	}

	_, body := queryCall(t, p, "fn", p.URL+"/", "Action=GetQueueUrl&QueueName=jobs"+v)
	urls := queueURLsOf(t, body)
	if len(urls) != 1 {
		t.Fatalf("GetQueueUrl of jobs: %s", body)
	}
	if status, body := queryCall(t, p, "fn", urls[0], "Action=SendMessage&MessageBody=x"+v); status != http.StatusOK {
		t.Errorf("SendMessage to %s: %d %s", urls[0], status, body)
	}
	status, body := queryCall(t, p, "fn", urls[0], "Action=DeleteQueue"+v)
	if status != http.StatusForbidden || !strings.Contains(body, "<Code>AccessDenied</Code>") {
		t.Errorf("DeleteQueue at %s: %d %s, want AccessDenied", urls[0], status, body)
	}
	if n := queueDepth(t, direct, "jobs"); n != "1" {
		t.Errorf("jobs holds %q messages, want 1 (and the queue)", n)
	}
}

// toStandIn sends every request, whatever its URL, to the stand-in at
// addr (over plain HTTP, its Host kept): the calls of a deployed stage,
// which the proxy sends to AWS.
type toStandIn struct{ addr string }

func (s toStandIn) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = r.URL.Host
	r.URL.Scheme, r.URL.Host = "http", s.addr
	return http.DefaultTransport.RoundTrip(r)
}

// Only queue URLs on the emulator the call went to are rewritten, their
// Content-Length and CRC32 made again; others (AWS's) stay. The answers
// of a deployed stage, sent to AWS, are passed on as they come.
func TestQueueURLAnswersOfOtherHostsStay(t *testing.T) {
	const aws1 = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
	var up *upstream
	up = startUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string][]string{"QueueUrls": {aws1, up.URL + "/123456789012/jobs-dlq"}})
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10))
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	})
	pol := StaticPolicies{"fn": {{Actions: []string{"sqs:ListQueues"}, Resources: []string{"*"}}}}
	list := func(p *Proxy) []string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		creds := awscall.Credentials{AccessKeyID: envOf(p, "fn", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "fn", "AWS_SECRET_ACCESS_KEY")}
		awscall.Sign(req, []byte("{}"), creds, "us-east-1", "sqs", time.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(b)) {
			t.Errorf("Content-Length %s, body of %d bytes", cl, len(b))
		}
		if crc := resp.Header.Get("X-Amz-Crc32"); crc != strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10) {
			t.Errorf("X-Amz-Crc32 %s is not the body's", crc)
		}
		var out struct{ QueueUrls []string }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
		}
		return out.QueueUrls
	}

	emulated, _ := startProxy(t, up.URL, pol)
	if got, w := list(emulated), []string{aws1, emulated.URL + "/123456789012/jobs-dlq"}; !slices.Equal(got, w) {
		t.Errorf("through an emulator: %q, want %q", got, w)
	}

	deployed, err := Start(Options{Target: Target{Region: "us-east-1", Policies: pol, Env: Env{Account: "123456789012"},
		Credentials: func(context.Context) (awscall.Credentials, error) { return realCreds, nil }},
		Client: &http.Client{Transport: toStandIn{addr: strings.TrimPrefix(up.URL, "http://")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deployed.Close)
	if got, w := list(deployed), []string{aws1, up.URL + "/123456789012/jobs-dlq"}; !slices.Equal(got, w) {
		t.Errorf("through a deployed stage: %q, want them as AWS gave them, %q", got, w)
	}
	if calls, bad := up.seen(); len(calls) != 2 || len(bad) > 0 {
		t.Errorf("the stand-in got %q (badly signed %q), want the 2 ListQueues", calls, bad)
	}
}
