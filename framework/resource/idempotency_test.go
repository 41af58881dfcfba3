package resource_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/mototest"
)

// keysTable declares the table idempotency records live in.
func keysTable(app *framework.App) *resource.Table {
	return resource.NewTable(app, "keys", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})
}

// orderApp is an app whose POST /orders creates an order (a side effect
// counted in created) idempotently; block, when not nil, is called inside
// the handler before it answers.
func orderApp(created *atomic.Int64, block func(), bodySize int) *framework.App {
	app := framework.New("shop")
	keys := keysTable(app)
	app.Route("/orders", func(r *framework.Request) (any, error) {
		if block != nil {
			block()
		}
		var in struct{ Item string }
		if err := json.Unmarshal(r.RawBody, &in); err != nil {
			return nil, framework.BadRequestError{Message: "send {\"Item\": ...}"}
		}
		n := created.Add(1)
		return framework.Response{StatusCode: 201, Headers: map[string]string{"Location": fmt.Sprintf("/orders/%d", n), "X-Order": fmt.Sprint(n)},
			Body: map[string]any{"id": n, "item": in.Item, "padding": strings.Repeat("x", bodySize)}}, nil
	}, framework.Methods("POST"), framework.Name("createOrder"), resource.Idempotent(keys, resource.Idempotency{}))
	return app
}

// The tests share one moto; each declares its own table there (a stage of
// its own), as `framework local --aws-endpoint` would.
func TestIdempotencyAgainstMoto(t *testing.T) {
	moto := mototest.Start(t)
	t.Setenv("AWS_ENDPOINT_URL", "")

	// The same Idempotency-Key twice gives one side effect and the same
	// answer: status, headers and body.
	t.Run("replay", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, "Content-Type": "application/json"}
		first := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		second := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		if first.StatusCode != 201 || created.Load() != 1 {
			t.Fatalf("first POST: %d %s, %d orders created; want 201 and one order", first.StatusCode, first.Body, created.Load())
		}
		if second.StatusCode != first.StatusCode || !bytes.Equal(second.Body, first.Body) {
			t.Errorf("the retry answered %d %s, want the first answer %d %s", second.StatusCode, second.Body, first.StatusCode, first.Body)
		}
		for _, h := range []string{"Location", "X-Order", "Content-Type"} {
			if got, want := second.Header(h), first.Header(h); fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
				t.Errorf("header %s: the retry answered %q, the first answer %q", h, got, want)
			}
		}
		if created.Load() != 1 {
			t.Errorf("%d orders created by two requests with one key, want 1", created.Load())
		}
		// Without the header the route is not idempotent (KeyRequired is
		// off); another key is another request.
		c.Do("POST", "/orders", []byte(`{"Item":"book"}`), map[string]string{"Content-Type": "application/json"})
		c.Do("POST", "/orders", []byte(`{"Item":"book"}`), map[string]string{"Idempotency-Key": "another", "Content-Type": "application/json"})
		if created.Load() != 3 {
			t.Errorf("%d orders created, want 3 (one more without a key, one more with another key)", created.Load())
		}
	})

	// The same key with another body is a 422 in the framework's error
	// shape, and runs nothing.
	t.Run("different body", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": "k-1", "Content-Type": "application/json"}
		c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		resp := c.Do("POST", "/orders", []byte(`{"Item":"lamp"}`), key)
		var body struct{ Code, Message string }
		if err := resp.JSON(&body); err != nil || resp.StatusCode != 422 || body.Code != "IdempotencyKeyReused" || !strings.Contains(body.Message, "new key") {
			t.Errorf("the key with another body: %d %s, want 422 IdempotencyKeyReused saying to send a new key", resp.StatusCode, resp.Body)
		}
		if created.Load() != 1 {
			t.Errorf("%d orders created, want 1", created.Load())
		}
	})

	// Two concurrent requests with one key: one 2xx, one 409; the first
	// is held inside the handler until the second has its answer.
	t.Run("concurrent", func(t *testing.T) {
		var created atomic.Int64
		entered, release := make(chan struct{}), make(chan struct{})
		var calls atomic.Int64
		app := orderApp(&created, func() {
			if calls.Add(1) == 1 { // the first request waits; a second one inside the handler does not
				close(entered)
				<-release
			}
		}, 0)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": "k-2", "Content-Type": "application/json"}
		firstDone := make(chan *frameworktest.Response)
		go func() { firstDone <- c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key) }()
		<-entered
		second := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		close(release)
		first := <-firstDone
		var body struct{ Code string }
		_ = second.JSON(&body)
		if first.StatusCode != 201 || second.StatusCode != 409 || body.Code != "IdempotencyKeyInUse" {
			t.Errorf("concurrent requests with one key answered %d and %d %s, want 201 and 409 IdempotencyKeyInUse", first.StatusCode, second.StatusCode, second.Body)
		}
		if created.Load() != 1 {
			t.Errorf("%d orders created, want 1", created.Load())
		}
	})

	// A record left in progress by a crashed invocation holds its key
	// until the invocation's deadline (the function's timeout), then the
	// retry runs. Deployed, that deadline is the Lambda context's.
	t.Run("crashed invocation", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		emu := frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		table := emu.Name("keys")
		put := func(key string, until time.Time) {
			t.Helper()
			item := map[string]any{
				"id": map[string]string{"S": "createOrder#" + key}, "expires": map[string]string{"N": fmt.Sprint(time.Now().Add(time.Hour).Unix())},
				"idem_state": map[string]string{"S": "INPROGRESS"}, "idem_in_progress_until": map[string]string{"N": fmt.Sprint(until.UnixMilli())},
				"idem_fingerprint": map[string]string{"S": fmt.Sprintf("%x", sha256.Sum256([]byte("POST\n/orders\n{\"Item\":\"book\"}")))}, "idem_token": map[string]string{"S": "crashed"},
			}
			if err := awscall.Call(context.Background(), "dynamodb", "PutItem", map[string]any{"TableName": table, "Item": item}, nil); err != nil {
				t.Fatal(err)
			}
		}
		put("running", time.Now().Add(time.Hour))
		put("crashed", time.Now().Add(-time.Second))
		if resp := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), map[string]string{"Idempotency-Key": "running", "Content-Type": "application/json"}); resp.StatusCode != 409 {
			t.Errorf("a key in progress until its deadline: %d %s, want 409", resp.StatusCode, resp.Body)
		}
		if resp := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), map[string]string{"Idempotency-Key": "crashed", "Content-Type": "application/json"}); resp.StatusCode != 201 {
			t.Errorf("a key whose in-progress record's deadline passed: %d %s, want 201 (it runs again)", resp.StatusCode, resp.Body)
		}
		// A claim lasts until the invocation's deadline: the handler sees
		// its own record in progress until then.
		app2 := framework.New("shop")
		keys := keysTable(app2)
		var until string
		app2.Route("/orders", func(r *framework.Request) (any, error) {
			var out struct{ Item map[string]map[string]string }
			err := awscall.Call(r.Context(), "dynamodb", "GetItem", map[string]any{"TableName": keys.Name(), "Key": map[string]any{"id": map[string]string{"S": "create#d-1"}}}, &out)
			until = out.Item["idem_in_progress_until"]["N"]
			return nil, err
		}, framework.Methods("POST"), framework.Name("create"), resource.Idempotent(keys, resource.Idempotency{}))
		frameworktest.UseEmulatorAt(t, app2, moto.URL)
		deadline := time.Now().Add(7 * time.Minute)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		ev := apphook.Of(app2).GatewayEvent("POST", "/orders", []byte(`{}`), map[string]string{"Idempotency-Key": "d-1", "Content-Type": "application/json"}, "dev")
		if resp, err := apphook.Of(app2).HandleEvent(ctx, ev); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		if until != fmt.Sprint(deadline.UnixMilli()) {
			t.Errorf("the record in progress holds its key until %s, want the invocation's deadline %d", until, deadline.UnixMilli())
		}
	})

	// An answer over the size limit is sent but not stored, and a log
	// line says so: the retry runs the handler again.
	t.Run("large answer", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, resource.MaxStoredAnswer)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		var logged bytes.Buffer
		saved := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
		t.Cleanup(func() { slog.SetDefault(saved) })
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": "big", "Content-Type": "application/json"}
		first := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		second := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		if first.StatusCode != 201 || second.StatusCode != 201 || created.Load() != 2 {
			t.Errorf("two requests with a large answer: %d, %d, %d orders; want 201, 201 and 2 orders (not stored, so run again)", first.StatusCode, second.StatusCode, created.Load())
		}
		if !strings.Contains(logged.String(), "not stored") || !strings.Contains(logged.String(), fmt.Sprint(resource.MaxStoredAnswer)) {
			t.Errorf("no log line says the answer was not stored:\n%s", logged.String())
		}
	})

	// A replayed answer says so in Idempotent-Replayed: true (as Stripe's
	// API marks its replays); the first answer has no such header.
	t.Run("replay marker", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": "marked", "Content-Type": "application/json"}
		first := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		second := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), key)
		if got := first.Header(resource.ReplayedHeader); first.StatusCode != 201 || len(got) != 0 {
			t.Errorf("the first answer: %d with %s %q, want 201 without the header", first.StatusCode, resource.ReplayedHeader, got)
		}
		if got := second.Header("Idempotent-Replayed"); second.StatusCode != 201 || fmt.Sprint(got) != "[true]" {
			t.Errorf("the replayed answer: %d with Idempotent-Replayed %q, want 201 with [true]", second.StatusCode, got)
		}
	})

	// A transient refusal (408, 409, 425, 429) is not stored: the
	// client's retry with its key runs the handler again and may succeed.
	t.Run("transient refusals", func(t *testing.T) {
		for _, status := range []int{408, 409, 425, 429} {
			app := framework.New("shop")
			keys := keysTable(app)
			var calls atomic.Int64
			app.Route("/pay", func(r *framework.Request) (any, error) {
				if calls.Add(1) == 1 {
					return framework.Response{StatusCode: status, Body: "not now"}, nil
				}
				return framework.Response{StatusCode: 201, Body: "paid"}, nil
			}, framework.Methods("POST"), resource.Idempotent(keys, resource.Idempotency{}))
			frameworktest.UseEmulatorAt(t, app, moto.URL)
			c := frameworktest.New(app)
			key := map[string]string{"Idempotency-Key": fmt.Sprint("t-", status), "Content-Type": "application/json"}
			first := c.Do("POST", "/pay", []byte(`{}`), key)
			retry := c.Do("POST", "/pay", []byte(`{}`), key)
			if first.StatusCode != status || retry.StatusCode != 201 || calls.Load() != 2 {
				t.Errorf("a %d, then a retry with its key: %d then %d %s, handler run %d times; want %d then 201 (the refusal not stored, the retry run)",
					status, first.StatusCode, retry.StatusCode, retry.Body, calls.Load(), status)
			}
		}
		// A final refusal (a 404, say) is stored and replayed, as before.
		app := framework.New("shop")
		keys := keysTable(app)
		var calls atomic.Int64
		app.Route("/pay", func(r *framework.Request) (any, error) {
			calls.Add(1)
			return nil, framework.NotFoundError{Message: "no such cart"}
		}, framework.Methods("POST"), resource.Idempotent(keys, resource.Idempotency{}))
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		key := map[string]string{"Idempotency-Key": "final", "Content-Type": "application/json"}
		c.Do("POST", "/pay", []byte(`{}`), key)
		if retry := c.Do("POST", "/pay", []byte(`{}`), key); retry.StatusCode != 404 || calls.Load() != 1 {
			t.Errorf("a 404 and its retry: %d, handler run %d times; want the 404 replayed, run once", retry.StatusCode, calls.Load())
		}
	})

	// The query string is part of the request: the key with another
	// query string is a 422; the same parameters in another order are
	// the same request (replayed); one name's values in another order
	// are not.
	t.Run("query string", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		do := func(key, target string) *frameworktest.Response {
			return c.Do("POST", target, []byte(`{"Item":"book"}`), map[string]string{"Idempotency-Key": key, "Content-Type": "application/json"})
		}
		if first, other := do("q-1", "/orders"), do("q-1", "/orders?x=1"); first.StatusCode != 201 || other.StatusCode != 422 {
			t.Errorf("POST /orders then POST /orders?x=1 with one key: %d then %d %s, want 201 then 422 (another request)", first.StatusCode, other.StatusCode, other.Body)
		}
		if first, other := do("q-2", "/orders?x=1"), do("q-2", "/orders?x=2"); first.StatusCode != 201 || other.StatusCode != 422 {
			t.Errorf("?x=1 then ?x=2 with one key: %d then %d, want 201 then 422", first.StatusCode, other.StatusCode)
		}
		first, same := do("q-3", "/orders?a=1&b=two%20words"), do("q-3", "/orders?b=two+words&a=1")
		if first.StatusCode != 201 || same.StatusCode != 201 || !bytes.Equal(first.Body, same.Body) || fmt.Sprint(same.Header(resource.ReplayedHeader)) != "[true]" {
			t.Errorf("?a=1&b=two%%20words then ?b=two+words&a=1 with one key: %d then %d (replayed %q), want the first answer replayed", first.StatusCode, same.StatusCode, same.Header(resource.ReplayedHeader))
		}
		if first, other := do("q-4", "/orders?a=1&a=2"), do("q-4", "/orders?a=2&a=1"); first.StatusCode != 201 || other.StatusCode != 422 {
			t.Errorf("?a=1&a=2 then ?a=2&a=1 with one key: %d then %d, want 201 then 422 (the order of one name's values counts)", first.StatusCode, other.StatusCode)
		}
		if created.Load() != 4 {
			t.Errorf("%d orders created, want 4", created.Load())
		}
	})

	// A record in progress holds its key until its invocation's deadline
	// even when Expiry has passed: a duplicate is a 409 and does not run
	// the handler a second time while the first runs.
	t.Run("in progress past expiry", func(t *testing.T) {
		var created atomic.Int64
		app := orderApp(&created, nil, 0)
		emu := frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		item := map[string]any{
			"id": map[string]string{"S": "createOrder#slow"}, "expires": map[string]string{"N": fmt.Sprint(time.Now().Add(-time.Minute).Unix())},
			"idem_state": map[string]string{"S": "INPROGRESS"}, "idem_in_progress_until": map[string]string{"N": fmt.Sprint(time.Now().Add(time.Hour).UnixMilli())},
			"idem_fingerprint": map[string]string{"S": fmt.Sprintf("%x", sha256.Sum256([]byte("POST\n/orders\n{\"Item\":\"book\"}")))}, "idem_token": map[string]string{"S": "slow"},
		}
		if err := awscall.Call(context.Background(), "dynamodb", "PutItem", map[string]any{"TableName": emu.Name("keys"), "Item": item}, nil); err != nil {
			t.Fatal(err)
		}
		resp := c.Do("POST", "/orders", []byte(`{"Item":"book"}`), map[string]string{"Idempotency-Key": "slow", "Content-Type": "application/json"})
		if resp.StatusCode != 409 || created.Load() != 0 {
			t.Errorf("a key in progress whose Expiry passed but whose deadline has not: %d %s, %d orders; want 409 and none", resp.StatusCode, resp.Body, created.Load())
		}
	})

	// KeyRequired: a request without the header is a 400.
	t.Run("key required", func(t *testing.T) {
		app := framework.New("shop")
		keys := keysTable(app)
		app.Route("/pay", func(r *framework.Request) (any, error) { return "paid", nil }, framework.Methods("POST"),
			resource.Idempotent(keys, resource.Idempotency{KeyRequired: true}))
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		resp := frameworktest.New(app).Do("POST", "/pay", []byte(`{}`), nil)
		var body struct{ Code, Message string }
		if err := resp.JSON(&body); err != nil || resp.StatusCode != 400 || body.Code != "IdempotencyKeyMissing" || !strings.Contains(body.Message, "Idempotency-Key") {
			t.Errorf("no key on a route that requires one: %d %s, want 400 IdempotencyKeyMissing", resp.StatusCode, resp.Body)
		}
	})

	// An SQS message delivered twice is processed once; in a batch, the
	// handler gets only the messages not processed yet.
	t.Run("sqs", func(t *testing.T) {
		app := framework.New("shop")
		keys := keysTable(app)
		var mu sync.Mutex
		var processed []string
		app.OnSQSPartialBatch("worker", "jobs", func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			var out events.SQSEventResponse
			mu.Lock()
			defer mu.Unlock()
			for _, m := range ev.Records {
				if m.Body == "fail" {
					out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
					continue
				}
				processed = append(processed, m.MessageId)
			}
			return out, nil
		}, resource.IdempotentRecords(keys, resource.Idempotency{}))
		var plain atomic.Int64
		app.OnSQSMessage("byorder", "orders", func(ctx context.Context, ev events.SQSEvent) error {
			plain.Add(int64(len(ev.Records)))
			return nil
		}, resource.IdempotentRecords(keys, resource.Idempotency{KeyPath: "order.id"}))
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		msg := func(id, body string) events.SQSMessage {
			return events.SQSMessage{MessageId: id, Body: body, EventSource: "aws:sqs"}
		}
		invoke := func(name string, msgs ...events.SQSMessage) string {
			t.Helper()
			out, err := c.Invoke(name, events.SQSEvent{Records: msgs})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return string(out)
		}
		invoke("worker", msg("m1", "a"))
		invoke("worker", msg("m1", "a")) // delivered again
		if fmt.Sprint(processed) != "[m1]" {
			t.Errorf("message m1 delivered twice was processed as %v, want once", processed)
		}
		processed = nil
		out := invoke("worker", msg("m1", "a"), msg("m2", "b"), msg("m3", "fail"))
		if fmt.Sprint(processed) != "[m2]" || !strings.Contains(out, `"itemIdentifier":"m3"`) {
			t.Errorf("a batch of m1 (done), m2 (new), m3 (fails): processed %v, answered %s; want [m2] and m3 reported failed", processed, out)
		}
		processed = nil
		invoke("worker", msg("m3", "ok")) // a failed message is not recorded: its retry runs
		if fmt.Sprint(processed) != "[m3]" {
			t.Errorf("the retry of failed message m3 was processed as %v, want [m3]", processed)
		}
		invoke("byorder", msg("x1", `{"order":{"id":7}}`), msg("x2", `{"order":{"id":8}}`))
		invoke("byorder", msg("x3", `{"order":{"id":7}}`))                                  // another message, the same order
		invoke("byorder", msg("x4", `{"order":{"id":9}}`), msg("x5", `{"order":{"id":9}}`)) // twice in one batch
		if plain.Load() != 3 {
			t.Errorf("messages of orders 7, 8, 7, 9, 9 were processed %d times, want 3 (by the key at order.id)", plain.Load())
		}
	})

	// A handler that panics part way through a batch records none of its
	// messages: the redelivered batch runs whole, the message it had
	// processed before the panic included (no partial storage, as the go
	// doc says).
	t.Run("panic runs the batch again", func(t *testing.T) {
		app := framework.New("shop")
		keys := keysTable(app)
		var mu sync.Mutex
		var processed []string
		var calls atomic.Int64
		app.OnSQSMessage("fragile", "jobs", func(ctx context.Context, ev events.SQSEvent) error {
			first := calls.Add(1) == 1
			for _, m := range ev.Records {
				mu.Lock()
				processed = append(processed, m.MessageId)
				mu.Unlock()
				if first && m.MessageId == "p2" {
					panic("the handler crashes on p2")
				}
			}
			return nil
		}, resource.IdempotentRecords(keys, resource.Idempotency{}))
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		batch := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "p1", Body: "a", EventSource: "aws:sqs"}, {MessageId: "p2", Body: "b", EventSource: "aws:sqs"}}}
		if _, err := c.Invoke("fragile", batch); err == nil {
			t.Fatal("the invocation that panics did not fail")
		}
		if _, err := c.Invoke("fragile", batch); err != nil {
			t.Fatalf("the redelivered batch: %v", err)
		}
		if fmt.Sprint(processed) != "[p1 p2 p1 p2]" {
			t.Errorf("a batch whose handler panicked on p2, then redelivered: processed %v, want [p1 p2 p1 p2] (the whole batch again)", processed)
		}
	})

	// SNS and EventBridge: a message or event delivered twice (one id)
	// runs once.
	t.Run("sns and eventbridge", func(t *testing.T) {
		app := framework.New("shop")
		keys := keysTable(app)
		var sns, eb atomic.Int64
		app.OnSNSMessage("fanout", "topic", func(ctx context.Context, ev events.SNSEvent) error {
			sns.Add(int64(len(ev.Records)))
			return nil
		}, resource.IdempotentRecords(keys, resource.Idempotency{}))
		app.OnEventBridge("placed", map[string]any{"source": []string{"shop"}}, func(ctx context.Context, ev events.EventBridgeEvent) error {
			eb.Add(1)
			return nil
		}, resource.IdempotentRecords(keys, resource.Idempotency{KeyPath: "order"}))
		frameworktest.UseEmulatorAt(t, app, moto.URL)
		c := frameworktest.New(app)
		for i := 0; i < 2; i++ {
			if _, err := c.Invoke("fanout", events.SNSEvent{Records: []events.SNSEventRecord{{EventSource: "aws:sns", SNS: events.SNSEntity{MessageID: "s1", Message: "hi"}}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Invoke("placed", events.EventBridgeEvent{ID: fmt.Sprint("e", i), Source: "shop", Detail: json.RawMessage(`{"order":"o1"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if sns.Load() != 1 || eb.Load() != 1 {
			t.Errorf("an SNS message delivered twice ran %d times, two events of one order %d times; want once each", sns.Load(), eb.Load())
		}
	})
}

// The option declares what it needs: the handler's access to the table
// (and only that handler's), and a table that can hold the records.
func TestIdempotencyDeclarations(t *testing.T) {
	app := framework.New("shop")
	keys := keysTable(app)
	app.Route("/orders", func(r *framework.Request) (any, error) { return nil, nil }, framework.Methods("POST"), framework.Name("create"), resource.Idempotent(keys, resource.Idempotency{}))
	app.Route("/orders", func(r *framework.Request) (any, error) { return nil, nil }, framework.Name("list"))
	app.OnSQSMessage("worker", "jobs", func(context.Context, events.SQSEvent) error { return nil }, resource.IdempotentRecords(keys, resource.Idempotency{}))
	app.OnSQSMessage("other", "jobs2", func(context.Context, events.SQSEvent) error { return nil })
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]manifest.Grant{{Resource: "keys", Access: manifest.AccessIdempotency}})
	for _, r := range m.Routes {
		if got := fmt.Sprint(r.Grants); (r.Handler == "create") != (got == want) {
			t.Errorf("route %s has grants %s", r.Handler, got)
		}
	}
	for _, f := range m.Functions {
		if got := fmt.Sprint(f.Grants); (f.Name == "worker") != (got == want) {
			t.Errorf("function %s has grants %s", f.Name, got)
		}
	}
	if len(m.Grants) != 0 {
		t.Errorf("app-wide grants %v, want none", m.Grants)
	}

	for _, tc := range []struct {
		name string
		spec resource.TableSpec
		opt  resource.Idempotency
		want string
	}{
		{"no ttl", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}}, resource.Idempotency{}, `has no TTL attribute, which expires the idempotency records: declare one (TableSpec{TTLAttribute: "expires"})`},
		{"number key", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.Number}, TTLAttribute: "exp"}, resource.Idempotency{}, "must have a string partition key and no sort key"},
		{"sort key", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, SortKey: resource.Key{Name: "s", Type: resource.String}, TTLAttribute: "exp"}, resource.Idempotency{}, "no sort key"},
		{"key path on a route", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "exp"}, resource.Idempotency{KeyPath: "a.b"}, "KeyPath is for event handlers"},
		{"negative expiry", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "exp"}, resource.Idempotency{Expiry: -time.Hour}, "Expiry -1h0m0s is negative"},
	} {
		app := framework.New("shop")
		tbl := resource.NewTable(app, "keys", tc.spec)
		app.Route("/x", func(r *framework.Request) (any, error) { return nil, nil }, resource.Idempotent(tbl, tc.opt))
		_, err := apphook.Of(app).Manifest()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "idempotency_test.go") {
			t.Errorf("%s: the declaration error is %v, want one saying %q and naming the line", tc.name, err, tc.want)
		}
	}
	// An option for event handlers on an S3 handler is a declaration error.
	app = framework.New("shop")
	keys = keysTable(app)
	app.OnS3Event("thumbs", "files", func(context.Context, events.S3Event) error { return nil }, resource.IdempotentRecords(keys, resource.Idempotency{}))
	if _, err := apphook.Of(app).Manifest(); err == nil || !strings.Contains(err.Error(), "option IdempotentRecords does not apply to an s3 handler") {
		t.Errorf("IdempotentRecords on an S3 handler: %v", err)
	}
}
