package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/mototest"
)

// The manifest declares the tables, the FIFO queue and the topic, each
// handler's accesses (the idempotency records' table for place and
// fulfil), and the bigOrders subscription's filter on the total.
func TestManifest(t *testing.T) {
	app := newApp()
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range m.Resources {
		kinds = append(kinds, r.Name+":"+string(r.Kind))
	}
	if got, want := strings.Join(kinds, " "), "fulfilment:queue keys:table orders:table shipped:topic"; got != want {
		t.Errorf("resources %s, want %s", got, want)
	}
	if q := m.Resource("fulfilment"); !q.FIFO || !q.ContentBasedDeduplication || !q.HasDeadLetter() {
		t.Errorf("queue %+v: want FIFO, deduplicated by content, with a dead-letter queue", q)
	}
	if k := m.Resource("keys"); k.TTLAttribute != "expires" {
		t.Errorf("keys table %+v: want the TTL attribute expires", k)
	}
	grants := map[string][]string{}
	for _, r := range m.Routes {
		for _, g := range r.Grants {
			grants[r.Handler] = append(grants[r.Handler], g.Resource+":"+string(g.Access))
		}
	}
	for _, f := range m.Functions {
		for _, g := range f.Grants {
			grants[f.Name] = append(grants[f.Name], g.Resource+":"+string(g.Access))
		}
		if f.Name == "bigOrders" {
			var policy map[string]any
			if err := json.Unmarshal(f.FilterPolicy, &policy); err != nil {
				t.Errorf("bigOrders' filter policy %s: %v", f.FilterPolicy, err)
			} else if got := fmt.Sprint(policy["total"]); got != "[map[numeric:[>= 100]]]" {
				t.Errorf("bigOrders' filter on total: %s, want orders of 100 or more", got)
			}
		}
	}
	for handler, want := range map[string][]string{
		"place":  {"orders:read_write", "fulfilment:send"},
		"order":  {"orders:read"},
		"fulfil": {"orders:read_write", "shipped:publish"},
	} {
		for _, g := range want {
			if !slices.Contains(grants[handler], g) {
				t.Errorf("%s's accesses %v lack %s", handler, grants[handler], g)
			}
		}
	}
	for _, handler := range []string{"place", "fulfil"} {
		if !slices.ContainsFunc(grants[handler], func(g string) bool { return strings.HasPrefix(g, "keys:") }) {
			t.Errorf("%s's accesses %v: want the idempotency records' table keys", handler, grants[handler])
		}
	}
	if g := grants["bigOrders"]; len(g) != 0 {
		t.Errorf("bigOrders' accesses %v, want none", g)
	}
}

// Against moto, with the resources frameworktest.UseEmulatorAt creates as
// `framework local` does: a POST retried with its Idempotency-Key gets the
// same order back, and the shop has one order and one queued message in
// the customer's group; fulfil ships it once, even when the message comes
// again; the metrics count the order once.
func TestOrderOnceAgainstMoto(t *testing.T) {
	moto := mototest.Start(t)
	app := newApp()
	e := frameworktest.UseEmulatorAt(t, app, moto.URL)
	// The SDK's configuration is loaded once per process: load it again
	// for this emulator.
	awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })
	cfg, err := awsConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := frameworktest.New(app)
	headers := map[string]string{"Content-Type": "application/json", "Idempotency-Key": "order-ann-1"}
	body := []byte(`{"customer":"ann","item":"teapot","quantity":1}`)

	var first, again Order
	lines := metricsLines(t, func() {
		resp := c.Lambda("POST", "/orders", body, headers)
		if resp.StatusCode != 201 || resp.JSON(&first) != nil || first.ID == "" {
			t.Fatalf("POST: %d %s", resp.StatusCode, resp.Body)
		}
		resp = c.Lambda("POST", "/orders", body, headers)
		if resp.StatusCode != 201 || resp.JSON(&again) != nil {
			t.Fatalf("POST again with its key: %d %s", resp.StatusCode, resp.Body)
		}
	})
	if want := (Order{ID: first.ID, Customer: "ann", Item: "teapot", Quantity: 1, Total: 120, Status: "placed"}); first != want || again != want {
		t.Errorf("POST answered %+v, then %+v with the same key; want %+v both times", first, again, want)
	}
	if n := countMetric(lines, "OrdersPlaced"); n != 1 {
		t.Errorf("OrdersPlaced recorded %d times for one order, want 1; metrics lines:\n%s", n, strings.Join(lines, "\n"))
	}
	scan, err := dynamodb.NewFromConfig(cfg).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(e.Name("orders"))})
	if err != nil || scan.Count != 1 {
		t.Fatalf("orders table after two POSTs with one key: %v items, %v; want 1", scan.Count, err)
	}
	if resp := c.Lambda("POST", "/orders", body, map[string]string{"Content-Type": "application/json"}); resp.StatusCode != 400 {
		t.Errorf("POST without an Idempotency-Key: %d %s, want 400", resp.StatusCode, resp.Body)
	}
	if resp := c.Lambda("POST", "/orders", []byte(`{"customer":"ann","item":"tea","quantity":2}`), headers); resp.StatusCode != 422 {
		t.Errorf("the key again with another order: %d %s, want 422", resp.StatusCode, resp.Body)
	}

	// One message, in ann's group, holding the order.
	q := sqs.NewFromConfig(cfg)
	out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(os.Getenv(manifest.ResourceEnv("fulfilment", manifest.AttrURL))), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameMessageGroupId}})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("fulfilment queue: %+v, %v; want one message", out, err)
	}
	msg := out.Messages[0]
	var queued Order
	if msg.Attributes["MessageGroupId"] != "ann" || json.Unmarshal([]byte(aws.ToString(msg.Body)), &queued) != nil || queued != first {
		t.Errorf("queued %s in group %q, want order %+v in group ann", aws.ToString(msg.Body), msg.Attributes["MessageGroupId"], first)
	}

	// fulfil ships it; the same order delivered again is left out.
	lines = metricsLines(t, func() {
		for i := 0; i < 2; i++ {
			if failed, err := c.SQS("fulfil", aws.ToString(msg.Body)); err != nil || len(failed) != 0 {
				t.Errorf("fulfil, delivery %d: failed %v, %v", i+1, failed, err)
			}
		}
	})
	if n := countMetric(lines, "OrdersShipped"); n != 1 {
		t.Errorf("OrdersShipped recorded %d times for one order delivered twice, want 1; metrics lines:\n%s", n, strings.Join(lines, "\n"))
	}
	resp := c.Lambda("GET", "/orders/"+first.ID, nil, nil)
	var got Order
	if resp.StatusCode != 200 || resp.JSON(&got) != nil || got.Status != "shipped" {
		t.Errorf("GET after fulfil: %d %s, want the order shipped", resp.StatusCode, resp.Body)
	}
	if resp := c.Lambda("GET", "/orders/nope", nil, nil); resp.StatusCode != 404 {
		t.Errorf("GET of an unknown order: %d %s, want 404", resp.StatusCode, resp.Body)
	}
}

// The bigOrders handler records the value of the big orders it gets.
func TestBigOrdersMetric(t *testing.T) {
	c := frameworktest.New(newApp())
	lines := metricsLines(t, func() {
		if err := c.SNS("bigOrders", "", `{"id":"o1","customer":"bob","item":"teapot","quantity":2,"total":240,"status":"shipped"}`); err != nil {
			t.Fatal(err)
		}
	})
	if n := countMetric(lines, "BigOrderValue"); n != 1 || !strings.Contains(strings.Join(lines, "\n"), `"BigOrderValue":240`) {
		t.Errorf("metrics lines:\n%s\nwant BigOrderValue 240", strings.Join(lines, "\n"))
	}
	if err := c.SNS("bigOrders", "", "not json"); err == nil {
		t.Error("a message that is not an order: no error, want the invocation failed (SNS retries it)")
	}
}

// metricsLines runs f and returns the Embedded Metric Format lines the
// app wrote on stdout meanwhile (as Lambda's log stream gets them).
func metricsLines(t *testing.T, f func()) []string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []string)
	go func() {
		var lines []string
		s := bufio.NewScanner(r)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			if strings.Contains(s.Text(), `"_aws"`) {
				lines = append(lines, s.Text())
			}
		}
		_, _ = io.Copy(io.Discard, r)
		done <- lines
	}()
	defer func() { os.Stdout = stdout }() // when f fails the test
	f()
	os.Stdout = stdout
	w.Close()
	return <-done
}

// countMetric is how many of lines record a value of the metric name.
func countMetric(lines []string, name string) int {
	n := 0
	for _, l := range lines {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) == nil && v[name] != nil {
			n++
		}
	}
	return n
}
