package remote

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/framework-dev/framework/internal/mototest"
)

func TestLogsShortStreamAndLine(t *testing.T) {
	for in, want := range map[string]string{
		"2026/11/23/[$LATEST]0123456789abcdef0123456789abcdef": "01234567",
		"2026/11/23/[3]abc": "abc",
		"plain-stream-name": "eam-name",
		"short":             "short",
	} {
		if got := ShortStream(in); got != want {
			t.Errorf("ShortStream(%q) = %q, want %q", in, got, want)
		}
	}
	e := Event{Time: time.Date(2026, 11, 23, 16, 18, 0, 123e6, time.UTC), Stream: "2026/11/23/[$LATEST]deadbeefcafe", Message: "hello"}
	if got, want := e.Line(), "2026-11-23T16:18:00.123Z deadbeef hello"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}

func TestLogsParseSince(t *testing.T) {
	now := time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"10m":                  now.Add(-10 * time.Minute),
		"1h30m":                now.Add(-90 * time.Minute),
		"2026-11-23T15:00:00Z": time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseSince("yesterday", now); err == nil || !strings.Contains(err.Error(), "10m") {
		t.Errorf("ParseSince(yesterday) = %v, want an error giving the accepted forms", err)
	}
}

func TestInvokeResolveFunction(t *testing.T) {
	outputs := map[string]string{"FunctionName": "shop-dev-Function-ABC", "FunctionArn": "arn:aws:lambda:us-east-1:123456789012:function:shop-dev-Function-ABC"}
	for _, name := range []string{"", "api", "shop", "shop-dev-Function-ABC"} {
		f, err := Resolve("shop", "dev", outputs, name)
		if err != nil || f.FunctionName != "shop-dev-Function-ABC" || f.Name != "api" {
			t.Errorf("Resolve(%q) = %+v, %v; want the API function", name, f, err)
		}
	}
	if f, _ := Resolve("shop", "dev", outputs, "api"); f.LogGroup() != "/aws/lambda/shop-dev-Function-ABC" {
		t.Errorf("LogGroup() = %q", f.LogGroup())
	}
	_, err := Resolve("shop", "dev", outputs, "orders")
	if err == nil || !strings.Contains(err.Error(), `stage dev has no function "orders"; its functions are: api`) {
		t.Errorf("Resolve(orders) error = %v", err)
	}
	_, err = Resolve("shop", "dev", map[string]string{}, "api")
	if err == nil || !strings.Contains(err.Error(), "no FunctionName output; run `framework deploy --stage dev`") {
		t.Errorf("Resolve on a stack without outputs: error = %v", err)
	}
}

func TestInvokeResultJSON(t *testing.T) {
	r := &Result{StatusCode: 200, FunctionError: "Unhandled", ErrorType: "T", ErrorMessage: "m", Payload: []byte(`{"errorType":"T","errorMessage":"m"}`), LogTail: "START\n"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if p, ok := got["payload"].(map[string]any); !ok || p["errorType"] != "T" || got["function_error"] != "Unhandled" || got["log_tail"] != "START\n" || got["status_code"] != 200.0 {
		t.Errorf("JSON = %s", b)
	}
	r.Payload = []byte("not json")
	b, _ = json.Marshal(r)
	if !strings.Contains(string(b), `"payload":"not json"`) {
		t.Errorf("a payload that is not JSON is not a string: %s", b)
	}
	if got, want := r.ErrorLine(), "T: m (Unhandled)"; got != want {
		t.Errorf("ErrorLine() = %q, want %q", got, want)
	}
}

// TestLogsFetchFromMoto reads events of two streams back from moto, oldest
// first, and a missing group as ErrNoLogGroup.
func TestLogsFetchFromMoto(t *testing.T) {
	m := mototest.Start(t)
	now := time.Now().Truncate(time.Millisecond)
	group := "/aws/lambda/shop-dev-Function"
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]bbbbbbbbbbbb", now.Add(-2*time.Second), "b1", "b2")
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]aaaaaaaaaaaa", now.Add(-3*time.Second), "a1")
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]aaaaaaaaaaaa", now.Add(-time.Second), "a2\n")
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]cccccccccccc", now.Add(-time.Hour), "too old")
	r := &Reader{Client: cloudwatchlogs.NewFromConfig(m.Config()), Group: group}
	evs, err := r.Fetch(context.Background(), now.Add(-time.Minute), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, ShortStream(e.Stream)+" "+e.Message)
	}
	if want := "aaaaaaaa a1,bbbbbbbb b1,bbbbbbbb b2,aaaaaaaa a2"; strings.Join(got, ",") != want {
		t.Errorf("events = %q, want %q", strings.Join(got, ","), want)
	}
	r.Group = "/aws/lambda/never-invoked"
	if _, err := r.Fetch(context.Background(), now.Add(-time.Minute), time.Time{}); !errors.Is(err, ErrNoLogGroup) {
		t.Errorf("missing group: error = %v, want ErrNoLogGroup", err)
	}
}

// TestLogsFollowFromMoto follows a group that does not exist yet: it says
// so once, prints the events written afterwards exactly once, and returns
// nil when cancelled.
func TestLogsFollowFromMoto(t *testing.T) {
	m := mototest.Start(t)
	group := "/aws/lambda/shop-dev-Function"
	polls := &pollCounter{LogsAPI: cloudwatchlogs.NewFromConfig(m.Config()), done: make(chan struct{}, 1000)}
	r := &Reader{Client: polls, Group: group, PollInterval: 20 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []string
	events := make(chan string, 10)
	waiting := make(chan struct{}, 10)
	done := make(chan error, 1)
	start := time.Now().Add(-time.Minute)
	go func() {
		done <- r.Follow(ctx, start, func(e Event) error {
			mu.Lock()
			got = append(got, e.Message)
			mu.Unlock()
			events <- e.Message
			return nil
		}, func() { waiting <- struct{}{} })
	}()
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not report the missing log group")
	}
	m.PutLogEvents(t, group, "s1", time.Now(), "first")
	expect := func(want string) {
		t.Helper()
		select {
		case msg := <-events:
			if msg != want {
				t.Fatalf("event %q, want %q", msg, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Follow did not print %q", want)
		}
	}
	expect("first")
	m.PutLogEvents(t, group, "s2", time.Now(), "second")
	expect("second")
	// Three more calls: the first two polls after "second" have fetched it
	// again, and printed it if they were to, before the third call began.
	for range len(polls.done) {
		<-polls.done
	}
	for range 3 {
		select {
		case <-polls.done:
		case <-time.After(10 * time.Second):
			t.Fatal("Follow stopped polling")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Follow returned %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not stop on cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "first,second" {
		t.Errorf("printed %q, want first,second once each", got)
	}
	if len(waiting) != 0 {
		t.Errorf("the missing group was reported %d more times", len(waiting))
	}
}

// TestInvokeMoto invokes a function moto created from a stack. moto runs
// no function code without Docker: its Docker-free Lambda answers with the
// queued result, so this checks the request and the result's fields.
func TestInvokeMoto(t *testing.T) {
	m := mototest.Start(t)
	m.UseLambdaWithoutDocker(t)
	outputs := m.CreateStack(t, "shop-dev", mototest.StageTemplate)
	fn, err := Resolve("shop", "dev", outputs, "api")
	if err != nil {
		t.Fatal(err)
	}
	c := lambda.NewFromConfig(m.Config())
	r, err := Invoke(context.Background(), c, fn.FunctionName, []byte(`{"path":"/"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != 200 || string(r.Payload) != `{"path":"/"}` || r.FunctionError != "" {
		t.Errorf("result = %+v payload %s; want 200 and the echoed event", r, r.Payload)
	}
}

// pollCounter passes FilterLogEvents calls through and sends on done as
// each returns (dropping the signal when done is full).
type pollCounter struct {
	LogsAPI
	done chan struct{}
}

func (p *pollCounter) FilterLogEvents(ctx context.Context, in *cloudwatchlogs.FilterLogEventsInput, opts ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error) {
	out, err := p.LogsAPI.FilterLogEvents(ctx, in, opts...)
	select {
	case p.done <- struct{}{}:
	default:
	}
	return out, err
}

type goneLambda struct{}

func (goneLambda) Invoke(context.Context, *lambda.InvokeInput, ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	return nil, &lambdatypes.ResourceNotFoundException{Message: aws.String("Function not found")}
}

// A function the stack names but Lambda does not have is a
// FunctionGoneError naming it, for the CLI to say which stage to deploy.
func TestInvokeFunctionGone(t *testing.T) {
	_, err := Invoke(context.Background(), goneLambda{}, "shop-prod-api", []byte("{}"))
	var gone *FunctionGoneError
	if !errors.As(err, &gone) || gone.Function != "shop-prod-api" || !strings.Contains(err.Error(), "it does not exist") {
		t.Errorf("err = %v, want a FunctionGoneError for shop-prod-api", err)
	}
	var nf *lambdatypes.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("err = %v, want Lambda's error kept", err)
	}
}
