package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func okSchedule(context.Context, events.EventBridgeEvent) error { return nil }
func okSQS(context.Context, events.SQSEvent) error              { return nil }

// TestFunctionDeclarationErrors: each bad declaration is a start-up error
// naming the handler and saying what to do.
func TestFunctionDeclarationErrors(t *testing.T) {
	const stream = "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024-01-01T00:00:00.000"
	for _, tc := range []struct {
		name    string
		declare func(a *framework.App)
		want    []string
	}{
		{"rate under a minute", func(a *framework.App) { a.OnSchedule("tick", framework.Rate(30*time.Second), okSchedule) },
			[]string{`schedule handler "tick": rate 30s`, "whole minutes"}},
		{"cron with five fields", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 12 * * ?"), okSchedule) },
			[]string{`schedule handler "tick": cron "0 12 * * ?" has 5 fields`}},
		{"cron without ?", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 12 * * * *"), okSchedule) },
			[]string{`schedule handler "tick"`, `exactly one of day-of-month`}},
		{"cron out of range", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 25 * * ? *"), okSchedule) },
			[]string{`field hours is 25`}},
		{"cron out of range in a list", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0,75 12 * * ? *"), okSchedule) },
			[]string{`schedule handler "tick"`, `field minutes: "75" is not a value from 0 to 59`}},
		{"cron W past the month", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 12 32W * ? *"), okSchedule) },
			[]string{`field day-of-month: "32W": W follows a day from 1 to 31`}},
		{"cron sixth weekday", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 12 ? * 3#6 *"), okSchedule) },
			[]string{`field day-of-week: "3#6": # is followed by 1 to 5`}},
		{"cron over 256 characters", func(a *framework.App) {
			a.OnSchedule("tick", framework.Cron(strings.Repeat("0,", 4995)+"0 12 * * ? *"), okSchedule)
		}, []string{`schedule handler "tick": schedule "cron(0,0,0,`, `characters long: EventBridge takes at most 256`}},
		{"cron with a tab", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0\t12 * * ? *"), okSchedule) },
			[]string{`schedule handler "tick": cron "0\t12 * * ? *": "\t" after field minutes: EventBridge separates the fields with single spaces`}},
		{"cron with two spaces", func(a *framework.App) { a.OnSchedule("tick", framework.Cron("0 12  * * ? *"), okSchedule) },
			[]string{`cron "0 12  * * ? *": an extra space after field hours`}},
		{"no schedule", func(a *framework.App) { a.OnSchedule("tick", framework.ScheduleExpression{}, okSchedule) },
			[]string{`schedule handler "tick": no schedule`}},
		{"missing queue", func(a *framework.App) { a.OnSQSMessage("orders", "", okSQS) },
			[]string{`sqs handler "orders": no queue: give the queue's name or ARN`}},
		{"wrong queue ARN", func(a *framework.App) { a.OnSQSMessage("orders", "arn:aws:sns:us-east-1:1:t", okSQS) },
			[]string{`sqs handler "orders": queue "arn:aws:sns:us-east-1:1:t" is not an ARN of sqs`}},
		{"missing topic", func(a *framework.App) {
			a.OnSNSMessage("alerts", " ", func(context.Context, events.SNSEvent) error { return nil })
		}, []string{`sns handler "alerts": no topic`}},
		{"missing bucket", func(a *framework.App) {
			a.OnS3Event("uploads", "", func(context.Context, events.S3Event) error { return nil })
		}, []string{`s3 handler "uploads": no bucket`}},
		{"bad bucket name", func(a *framework.App) {
			a.OnS3Event("uploads", "My_Bucket", func(context.Context, events.S3Event) error { return nil })
		}, []string{`bucket name "My_Bucket" is not valid`}},
		{"unknown S3 event", func(a *framework.App) {
			a.OnS3Event("uploads", "b-1", func(context.Context, events.S3Event) error { return nil }, framework.S3Filter("", "", "s3:ObjectMade"))
		}, []string{`S3 event type "s3:ObjectMade" is unknown`}},
		{"missing stream", func(a *framework.App) {
			a.OnDynamoDBRecord("audit", "", func(context.Context, events.DynamoDBEvent) error { return nil })
		}, []string{`dynamodb handler "audit": no stream: give the DynamoDB stream's ARN`}},
		{"DynamoDB stream by name", func(a *framework.App) {
			a.OnDynamoDBRecord("audit", "T", func(context.Context, events.DynamoDBEvent) error { return nil })
		}, []string{`a DynamoDB stream is referenced by its ARN`}},
		{"missing Kinesis stream", func(a *framework.App) {
			a.OnKinesisRecord("clicks", "", func(context.Context, events.KinesisEvent) error { return nil })
		}, []string{`kinesis handler "clicks": no stream`}},
		{"bad starting position", func(a *framework.App) {
			a.OnDynamoDBRecord("audit", stream, func(context.Context, events.DynamoDBEvent) error { return nil }, framework.StartingPosition("EARLIEST"))
		}, []string{`starting position "EARLIEST": use LATEST or TRIM_HORIZON`}},
		{"empty event pattern", func(a *framework.App) { a.OnEventBridge("placed", nil, okSchedule) },
			[]string{`eventbridge handler "placed": the event pattern is empty`}},
		{"batch too large", func(a *framework.App) { a.OnSQSMessage("orders", "q", okSQS, framework.BatchSize(20000)) },
			[]string{`batch size 20000 is out of range`}},
		{"batch over 10 without window", func(a *framework.App) { a.OnSQSMessage("orders", "q", okSQS, framework.BatchSize(50)) },
			[]string{`batch size 50 needs a maximum batching window`}},
		{"option of another kind", func(a *framework.App) {
			a.OnSchedule("tick", framework.Rate(time.Hour), okSchedule, framework.BatchSize(5))
		},
			[]string{`schedule handler "tick": option BatchSize does not apply to a schedule handler`}},
		{"nil handler", func(a *framework.App) { framework.LambdaFunction[int, int](a, "fn", nil) },
			[]string{`function handler "fn": the handler is nil`}},
		{"duplicate name", func(a *framework.App) {
			framework.LambdaFunction(a, "fn", func(context.Context, int) (int, error) { return 0, nil })
			a.OnSchedule("fn", framework.Rate(time.Hour), okSchedule)
		}, []string{`two functions are named "fn"`}},
		{"name of a route handler", func(a *framework.App) {
			a.Route("/x", func(*framework.Request) (any, error) { return nil, nil }, framework.Name("fn"))
			framework.LambdaFunction(a, "fn", func(context.Context, int) (int, error) { return 0, nil })
		}, []string{`a route handler is also named "fn": names are unique across routes and functions`}},
		{"reserved name", func(a *framework.App) { a.OnSchedule("api", framework.Rate(time.Hour), okSchedule) },
			[]string{`the name "api" is the REST API's function`}},
		{"bad name", func(a *framework.App) { a.OnSchedule("nightly cleanup", framework.Rate(time.Hour), okSchedule) },
			[]string{`schedule handler "nightly cleanup": the name must be 1 to 64 letters, digits, - and _`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := framework.New("ev")
			tc.declare(app)
			err := app.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestScheduleExpressions: Rate picks the largest whole unit, as EventBridge spells it.
func TestScheduleExpressions(t *testing.T) {
	for _, tc := range []struct {
		got  framework.ScheduleExpression
		want string
	}{
		{framework.Rate(time.Minute), "rate(1 minute)"},
		{framework.Rate(5 * time.Minute), "rate(5 minutes)"},
		{framework.Rate(2 * time.Hour), "rate(2 hours)"},
		{framework.Rate(24 * time.Hour), "rate(1 day)"},
		{framework.Rate(90 * time.Minute), "rate(90 minutes)"},
		{framework.Cron("0 12 * * ? *"), "cron(0 12 * * ? *)"},
		{framework.Cron("15 10 ? * MON-FRI *"), "cron(15 10 ? * MON-FRI *)"},
	} {
		if tc.got.String() != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	app := framework.New("ev")
	app.OnSchedule("weekdays", framework.Cron("15 10 ? * MON-FRI *"), okSchedule)
	// EventBridge's day forms are valid declarations.
	app.OnSchedule("month-end", framework.Cron("0 18 L * ? *"), okSchedule)
	app.OnSchedule("payday", framework.Cron("0 9 LW * ? *"), okSchedule)
	app.OnSchedule("mid-month", framework.Cron("0 9 15W * ? *"), okSchedule)
	app.OnSchedule("last-friday", framework.Cron("0 10 ? * 6L *"), okSchedule)
	app.OnSchedule("second-tuesday", framework.Cron("0 10 ? * TUE#2 *"), okSchedule)
	app.OnSchedule("quarters", framework.Cron("0/30 8-17 1,15 JAN,APR,JUL,OCT ? 2026-2030"), okSchedule)
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestInvokeKinds: every kind answers through App.Invoke, the Lambda
// adapter's dispatch point; errors fail the invocation, reported failures
// come back in Lambda's exact shape, panics become errors.
func TestInvokeKinds(t *testing.T) {
	app := framework.New("ev")
	app.Route("/", func(*framework.Request) (any, error) { return map[string]string{"ok": "yes"}, nil })
	app.OnSQSPartialBatch("partial", "q", func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var r events.SQSEventResponse
		for _, m := range ev.Records {
			if m.Body == "bad" {
				r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return r, nil
	})
	app.OnSQSMessage("whole", "q", func(context.Context, events.SQSEvent) error { return errors.New("database down") })
	app.OnSchedule("boom", framework.Rate(time.Hour), func(context.Context, events.EventBridgeEvent) error { panic("kaboom") })
	framework.LambdaFunction(app, "add", func(_ context.Context, in struct{ A, B int }) (map[string]int, error) {
		return map[string]int{"sum": in.A + in.B}, nil
	})
	var wrapped []string
	app.UseFor(framework.KindAll, func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		wrapped = append(wrapped, string(c.Kind)+":"+c.Handler)
		return next(c)
	})
	ctx := context.Background()

	out, err := apphook.Of(app).Invoke(ctx, "partial", []byte(`{"Records":[{"messageId":"m1","body":"ok"},{"messageId":"m2","body":"bad"}]}`))
	if err != nil || string(out) != `{"batchItemFailures":[{"itemIdentifier":"m2"}]}` {
		t.Errorf("partial = %s, %v", out, err)
	}
	out, err = apphook.Of(app).Invoke(ctx, "partial", []byte(`{"Records":[{"messageId":"m1","body":"ok"}]}`))
	if err != nil || string(out) != `{"batchItemFailures":[]}` {
		t.Errorf("partial, no failure = %s, %v", out, err)
	}
	if _, err := apphook.Of(app).Invoke(ctx, "whole", []byte(`{"Records":[]}`)); err == nil || err.Error() != "database down" {
		t.Errorf("whole batch error = %v", err)
	}
	var pe *framework.PanicError
	if _, err := apphook.Of(app).Invoke(ctx, "boom", []byte(`{}`)); !errors.As(err, &pe) || !strings.Contains(err.Error(), `handler "boom" panicked: kaboom`) {
		t.Errorf("panic = %v", err)
	}
	out, err = apphook.Of(app).Invoke(ctx, "add", []byte(`{"A":2,"B":3}`))
	if err != nil || string(out) != `{"sum":5}` {
		t.Errorf("add = %s, %v", out, err)
	}
	if _, err := apphook.Of(app).Invoke(ctx, "add", []byte(`"text"`)); err == nil || !strings.Contains(err.Error(), `function handler "add": the event is not a struct`) {
		t.Errorf("bad event = %v", err)
	}
	ev, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/", Resource: "/"})
	out, err = apphook.Of(app).Invoke(ctx, "", ev)
	if err != nil || !bytes.Contains(out, []byte(`"statusCode":200`)) || !bytes.Contains(out, []byte(`{\"ok\":\"yes\"}`)) {
		t.Errorf("api = %s, %v", out, err)
	}
	if _, err := apphook.Of(app).Invoke(ctx, "nope", []byte(`{}`)); err == nil || err.Error() != `the app ev has no handler named "nope"; its handlers are: add, api, boom, partial, whole` {
		t.Errorf("unknown = %v", err)
	}
	if got := strings.Join(wrapped, " "); got != "sqs:partial sqs:partial sqs:whole schedule:boom function:add function:add http:get_root" {
		t.Errorf("middleware saw %s", got)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.Functions {
		names = append(names, f.Name+"/"+string(f.Kind))
		if f.Name == "partial" && !f.ReportBatchItemFailures || f.Name == "whole" && f.ReportBatchItemFailures {
			t.Errorf("%s: ReportBatchItemFailures %v", f.Name, f.ReportBatchItemFailures)
		}
	}
	if got := strings.Join(names, " "); got != "add/function boom/schedule partial/sqs whole/sqs" {
		t.Errorf("manifest functions %s", got)
	}
}

// TestScheduleErrorOnce: a bad cron expression is one error, named for the
// schedule handler it belongs to, not two "route declaration" errors.
func TestScheduleErrorOnce(t *testing.T) {
	app := framework.New("cron")
	app.OnSchedule("nightly", framework.Cron("0 12 * * ?"), func(context.Context, events.EventBridgeEvent) error { return nil })
	err := app.Validate()
	if err == nil {
		t.Fatal("Validate() = nil for a cron of five fields")
	}
	msg := err.Error()
	if n := strings.Count(msg, "has 5 fields"); n != 1 {
		t.Errorf("the cron error appears %d times:\n%s", n, msg)
	}
	if !strings.HasPrefix(msg, "1 invalid declaration:\n") || strings.Contains(msg, "route") {
		t.Errorf("the error is not one declaration error of a schedule handler:\n%s", msg)
	}
}

// TestEventErrorType: an event a plain function cannot decode fails the
// invocation with an EventError itself, which is the type Lambda reports
// as errorType (a wrapper's type, such as fmt's wrapError, would leak).
func TestEventErrorType(t *testing.T) {
	app := framework.New("types")
	framework.LambdaFunction(app, "count", func(_ context.Context, in []string) (int, error) { return len(in), nil })
	app.ErrorLog = io.Discard
	_, err := apphook.Of(app).Invoke(context.Background(), "count", []byte(`{"not":"a list"}`))
	if err == nil {
		t.Fatal("a JSON object decoded into []string")
	}
	typ := reflect.TypeOf(err)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Name() != "EventError" {
		t.Errorf("the invocation's error is a %s (%v), want an EventError", typ.Name(), err)
	}
	if want := `function handler "count": the event is not a []string`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

// TestS3Filter: S3Filter sets an S3 handler's key prefix and suffix and its
// event types; without event types the handler keeps the default, every
// object created.
func TestS3Filter(t *testing.T) {
	app := framework.New("s3")
	okS3 := func(context.Context, events.S3Event) error { return nil }
	app.OnS3Event("all", "b-1", okS3)
	app.OnS3Event("csv", "b-2", okS3, framework.S3Filter("in/", ".csv"))
	app.OnS3Event("gone", "b-3", okS3, framework.S3Filter("", "", "s3:ObjectRemoved:*", "s3:ObjectRestore:*"))
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range m.Functions {
		got[f.Name] = strings.Join(f.Events, ",") + " " + f.Prefix + " " + f.Suffix
	}
	want := map[string]string{
		"all":  "s3:ObjectCreated:*  ",
		"csv":  "s3:ObjectCreated:* in/ .csv",
		"gone": "s3:ObjectRemoved:*,s3:ObjectRestore:*  ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("S3 handlers' events, prefix, suffix = %q, want %q", got, want)
	}
}
