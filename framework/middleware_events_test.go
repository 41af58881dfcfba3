package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// TestMiddlewareForEventKinds: UseFor selects event kinds as it selects
// HTTP routes; event middleware sees the invocation, runs in registration
// order with the KindAll ones, can change the result, and its errors and
// panics are the invocation's, through the one dispatch point (App.Invoke)
// that the Lambda adapter and frameworktest use.
func TestMiddlewareForEventKinds(t *testing.T) {
	var seen []string
	note := func(label string) framework.Middleware {
		return func(c *framework.Call, next framework.Next) (*framework.Response, error) {
			if c.Request != nil {
				seen = append(seen, label+":http "+c.Request.Method+" "+c.Request.Path)
			} else {
				seen = append(seen, label+":"+string(c.Kind)+" "+c.Handler+" "+c.RequestID)
			}
			return next(c)
		}
	}
	app := framework.New("mw")
	app.Route("/", func(*framework.Request) (any, error) { return "root", nil })
	app.UseFor(framework.KindAll, note("all"))
	app.UseFor(framework.KindSQS, note("sqs"))
	app.UseFor(framework.KindFunction, func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		resp, err := next(c)
		if err != nil {
			return nil, err
		}
		var v map[string]int
		if err := json.Unmarshal(resp.Body.(json.RawMessage), &v); err != nil {
			return nil, err
		}
		v["seen_by_middleware"] = 1
		return &framework.Response{Body: v}, nil
	})
	app.UseFor(framework.KindSchedule, func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		if strings.Contains(string(c.Event), "skip") {
			return nil, errors.New("refused by middleware")
		}
		if strings.Contains(string(c.Event), "panic") {
			panic("middleware broke")
		}
		return next(c)
	})
	app.OnSQSMessage("orders", "orders", func(context.Context, events.SQSEvent) error { return nil })
	framework.LambdaFunction(app, "add", func(_ context.Context, in struct{ A, B int }) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	})
	ticks := 0
	app.OnSchedule("tick", framework.Rate(time.Minute), func(context.Context, events.EventBridgeEvent) error { ticks++; return nil })
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1"})

	if _, err := apphook.Of(app).Invoke(ctx, "orders", []byte(`{"Records":[]}`)); err != nil {
		t.Fatal(err)
	}
	out, err := apphook.Of(app).Invoke(ctx, "add", []byte(`{"A":2,"B":3}`))
	if err != nil || string(out) != `{"seen_by_middleware":1,"sum":5}` {
		t.Errorf("add through middleware = %s, %v; want the middleware's changed result", out, err)
	}
	if _, err := apphook.Of(app).Invoke(ctx, "tick", []byte(`{"detail":"skip"}`)); err == nil || err.Error() != "refused by middleware" || ticks != 0 {
		t.Errorf("early answer = %v (handler ran %d times); want the middleware's error and no run", err, ticks)
	}
	var pe *framework.PanicError
	if _, err := apphook.Of(app).Invoke(ctx, "tick", []byte(`{"detail":"panic"}`)); !errors.As(err, &pe) || !strings.Contains(err.Error(), "middleware broke") {
		t.Errorf("panic in middleware = %v; want a PanicError", err)
	}
	frameworktest.New(app).Get("/", nil)
	want := []string{
		"all:sqs orders req-1", "sqs:sqs orders req-1",
		"all:function add req-1",
		"all:schedule tick req-1", "all:schedule tick req-1",
		"all:http GET /",
	}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("middleware saw\n  %s\nwant\n  %s", strings.Join(seen, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestRequestLoggerForEvents: the request logger registered for every kind
// logs an invocation line for an event handler.
func TestRequestLoggerForEvents(t *testing.T) {
	var buf bytes.Buffer
	app := framework.New("log")
	app.UseFor(framework.KindAll, framework.RequestLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	app.OnSNSMessage("alerts", "alerts", func(context.Context, events.SNSEvent) error { return errors.New("mail server down") })
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-9"})
	if _, err := apphook.Of(app).Invoke(ctx, "alerts", []byte(`{"Records":[]}`)); err == nil {
		t.Fatal("the handler's error was lost")
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if line["msg"] != "invocation" || line["kind"] != "sns" || line["handler"] != "alerts" || line["ok"] != false || line["request_id"] != "req-9" || line["level"] != "ERROR" {
		t.Errorf("log line %v", line)
	}
}

// TestUseForUnknownKind: a kind that does not exist is a start-up error
// listing the kinds.
func TestUseForUnknownKind(t *testing.T) {
	app := framework.New("bad")
	app.Route("/", func(*framework.Request) (any, error) { return nil, nil })
	app.UseFor("cron", framework.RequestID(""))
	err := app.Validate()
	if err == nil || !strings.Contains(err.Error(), `kind "cron" is unknown: use one of "all", "http", "schedule", "sqs"`) {
		t.Errorf("Validate = %v", err)
	}
}
