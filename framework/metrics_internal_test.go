package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// What CloudWatch would refuse is refused when recorded, with the reason:
// the rest of the line is written, valid EMF.
func TestMetricsRefused(t *testing.T) {
	var out bytes.Buffer
	metricsOut = &out
	defer func() { metricsOut = nil }()
	app := New("shop")
	ctx, inv := app.observe(context.Background(), nil, KindSQS, "orders", "orders")
	inv.cold = false
	m := Metrics(ctx)
	m.Add("", 1, UnitCount)
	m.Add(strings.Repeat("x", 256), 1, UnitCount)
	m.Add("Latency", 1, "ms")
	m.Add("Latency", 1, UnitMilliseconds)
	m.Add("Latency", 2, UnitSeconds)
	m.Add("Ratio", math.NaN(), UnitPercent)
	m.Add("ColdStart", 1, UnitCount)
	m.Dimension(":colon", "x")
	m.Dimension("Region", "")
	m.Dimension("Region", "caf\u00e9")
	m.Dimension("Latency", "x")
	for i := range 101 {
		m.Add("Many", float64(i), UnitCount)
	}
	for i := range 100 {
		m.Add(fmt.Sprintf("M%d", i), 1, UnitNone)
	}
	m.Property("request_id", "x")
	m.Property("Many", "x")
	m.Property("order", "o-1")
	want := []string{
		`metric "": the name is empty`,
		`metric "xxx` + strings.Repeat("x", 253) + `": the name has 256 bytes: CloudWatch allows 255`,
		`metric "Latency": unit "ms" is not a CloudWatch unit`,
		`metric "Latency": added in Milliseconds before, now in Seconds: a metric has one unit`,
		`metric "Ratio": value NaN is not a number CloudWatch takes`,
		`metric "ColdStart": the name is the framework's`,
		`dimension ":colon": the name starts with a colon`,
		`dimension "Region": the value is empty or blank`,
		`dimension "Region": the value "café" has a character CloudWatch refuses: use printable ASCII`,
		`dimension "Latency": the name is taken`,
		`metric "Many": more than 100 values in one invocation, EMF's limit for a metric`,
		`metric "M98": more than 100 metrics in one invocation, EMF's limit for one line`,
		`property "request_id": the key is empty or taken`,
	}
	inv.finish()
	want = append(want, `property "Many": a dimension or metric has that name`)
	err := m.Err()
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Err() = %v\nwant it to contain %q", err, w)
		}
	}
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("the line is not JSON: %v: %s", err, out.String())
	}
	if line["order"] != "o-1" || len(line["Many"].([]any)) != 100 || line["Latency"] != 1.0 || line["M97"] != 1.0 || line["M98"] != nil || line["Ratio"] != nil {
		t.Errorf("line %s", out.String())
	}
}

// Outside an invocation, Metrics and Logger work and write nothing of
// their own.
func TestObserveOutsideInvocation(t *testing.T) {
	m := Metrics(context.Background())
	m.Count("X")
	if m.Err() != nil || Logger(context.Background()) == nil {
		t.Errorf("outside an invocation: Err %v", m.Err())
	}
}

// Deployed, the stage is read from the function's name, which
// CloudFormation makes from the stack's (app-stage) and the logical id.
func TestStageOfFunction(t *testing.T) {
	for _, tc := range []struct{ app, fn, want string }{
		{"shop", "shop-prod-AppFunction76856677-AbCdEf123", "prod"},
		{"shop", "shop-pr-42-AppOrdersFunction1A2B3C-x9Y8", "pr-42"},
		{"shop", "shop-dev-orders", ""}, // framework local's name: FRAMEWORK_STAGE says it
		{"shop", "other-prod-AppFunction1-x", ""},
	} {
		if got := stageOfFunction(tc.app, tc.fn); got != tc.want {
			t.Errorf("stageOfFunction(%q, %q) = %q, want %q", tc.app, tc.fn, got, tc.want)
		}
	}
}

// A handler may record metrics and log from several goroutines: the
// values all reach the line (go test -race checks the rest).
func TestMetricsConcurrent(t *testing.T) {
	var out bytes.Buffer
	metricsOut = &out
	defer func() { metricsOut = nil }()
	ctx, inv := New("shop").observe(context.Background(), nil, KindSQS, "orders", "orders")
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			Metrics(ctx).Add("Items", 1, UnitCount)
			Logger(ctx).Debug("item")
		}()
	}
	for range 8 {
		<-done
	}
	inv.finish()
	var line struct{ Items []float64 }
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || len(line.Items) != 8 {
		t.Errorf("line %s (%v), want 8 values of Items", out.String(), err)
	}
}
