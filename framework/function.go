package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/wording"
)

// function is a registered event handler or plain function: it runs in a
// Lambda function of its own, built from the same package as the REST API's.
type function struct {
	Name string      // the handler's name, as given at registration
	Kind HandlerKind // the kind of event it answers

	spec  manifest.Function
	call  eventFunc
	errs  []error
	chain Next // the handler behind the middleware of its kind; nil without middleware
}

// eventFunc runs a handler on a raw JSON event and returns its raw JSON result.
type eventFunc func(ctx context.Context, event []byte) ([]byte, error)

// FunctionOption configures an event handler or plain function at
// registration. Each option applies to some kinds only; one given to
// another kind is a declaration error.
type FunctionOption struct {
	name  string
	kinds []HandlerKind // nil: every kind
	apply func(*manifest.Function)
	fn    func(*function) // set by a guard's option (guard.go), nil otherwise
	auth  *AppAuthorizer  // ConnectAuthorizer's (websocket.go)
}

// kindsWhere lists the kinds whose description satisfies ok.
func kindsWhere(ok func(manifest.KindSpec) bool) []HandlerKind {
	var out []HandlerKind
	for _, k := range manifest.Kinds {
		if ok(k) {
			out = append(out, k.Kind)
		}
	}
	return out
}

var (
	batchKinds  = kindsWhere(func(k manifest.KindSpec) bool { return k.MaxBatch > 0 })
	streamKinds = kindsWhere(func(k manifest.KindSpec) bool { return k.Stream })
)

// Description describes the function; it becomes the Lambda function's description.
func Description(text string) FunctionOption {
	return FunctionOption{name: "Description", apply: func(m *manifest.Function) { m.Description = text }}
}

// BatchSize sets the largest number of messages or records per invocation
// of an SQS, DynamoDB stream or Kinesis handler (the service's default
// when not set: 10 for SQS, 100 for streams).
func BatchSize(n int) FunctionOption {
	return FunctionOption{name: "BatchSize", kinds: batchKinds, apply: func(m *manifest.Function) { m.BatchSize = n }}
}

// MaxBatchingWindow sets how long an SQS queue or a stream gathers records
// before invoking the handler (whole seconds, up to 5 minutes).
func MaxBatchingWindow(d time.Duration) FunctionOption {
	return FunctionOption{name: "MaxBatchingWindow", kinds: batchKinds, apply: func(m *manifest.Function) {
		m.MaxBatchingWindowSeconds = int(d / time.Second)
		if d%time.Second != 0 {
			m.MaxBatchingWindowSeconds = -1 // reported as out of range
		}
	}}
}

// StartingPosition sets where a DynamoDB or Kinesis handler starts reading
// its stream: StartLatest (the default) or StartTrimHorizon.
func StartingPosition(p string) FunctionOption {
	return FunctionOption{name: "StartingPosition", kinds: streamKinds, apply: func(m *manifest.Function) { m.StartingPosition = p }}
}

// S3Filter narrows the object events an S3 handler receives: to the keys
// starting with prefix and ending with suffix ("" matches any), and to the
// event types events (by default s3:ObjectCreated:*, every object created).
// For example S3Filter("incoming/", ".csv") or
// S3Filter("", "", "s3:ObjectRemoved:*").
func S3Filter(prefix, suffix string, events ...string) FunctionOption {
	return FunctionOption{name: "S3Filter", kinds: []HandlerKind{KindS3}, apply: func(m *manifest.Function) {
		m.Prefix, m.Suffix = prefix, suffix
		if len(events) > 0 {
			m.Events = slices.Clone(events)
		}
	}}
}

// OnSchedule runs handler on a schedule built by Rate or Cron; the event is
// EventBridge's "Scheduled Event".
func (a *App) OnSchedule(name string, when ScheduleExpression, handler func(context.Context, events.EventBridgeEvent) error, opts ...FunctionOption) {
	f := a.newFunction(name, KindSchedule, handler == nil, noResult(handler), opts)
	f.spec.Schedule = when.expr
	if when.err != nil {
		f.errs = append(f.errs, when.err)
	} else if when.expr == "" {
		f.errs = append(f.errs, errors.New("no schedule: build one with framework.Rate or framework.Cron"))
	}
	a.addFunction(f)
}

// OnSQSMessage runs handler on the messages of an SQS queue, given by name
// (in the stack's account and region), ARN, or a declared queue's Ref()
// (package framework/resource). An error fails the whole
// batch, which Lambda retries; OnSQSPartialBatch reports the messages that
// failed instead.
func (a *App) OnSQSMessage(name, queue string, handler func(context.Context, events.SQSEvent) error, opts ...FunctionOption) {
	a.addSource(a.newFunction(name, KindSQS, handler == nil, noResult(handler), opts), queue)
}

// OnSQSPartialBatch is OnSQSMessage for a handler that reports the
// messages that failed (by MessageId) so that only those are retried; an
// error still fails the whole batch. On a FIFO queue, the messages of a
// failed message's group that follow it in the batch count as failed too,
// whether the handler reports them or not, so that the group stays in
// order: they come again after it.
func (a *App) OnSQSPartialBatch(name, queue string, handler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error), opts ...FunctionOption) {
	h := handler
	if handler != nil {
		h = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			r, err := handler(ctx, ev)
			if err == nil {
				holdFIFOGroups(ev, &r)
			}
			return r, err
		}
	}
	call := partialBatch(h, func(r *events.SQSEventResponse) {
		if r.BatchItemFailures == nil {
			r.BatchItemFailures = []events.SQSBatchItemFailure{}
		}
	})
	a.addSource(a.newPartial(name, KindSQS, handler == nil, call, opts), queue)
}

// OnSNSMessage runs handler on the messages of an SNS topic, given by name
// (in the stack's account and region), ARN, or a declared topic's Ref().
func (a *App) OnSNSMessage(name, topic string, handler func(context.Context, events.SNSEvent) error, opts ...FunctionOption) {
	a.addSource(a.newFunction(name, KindSNS, handler == nil, noResult(handler), opts), topic)
}

// OnS3Event runs handler on the object events of an S3 bucket, given by
// name, ARN, or a declared bucket's Ref(); S3Filter narrows them (by
// default every object created).
func (a *App) OnS3Event(name, bucket string, handler func(context.Context, events.S3Event) error, opts ...FunctionOption) {
	f := a.newFunction(name, KindS3, handler == nil, noResult(handler), opts)
	if f.spec.Events == nil {
		f.spec.Events = []string{"s3:ObjectCreated:*"}
	}
	a.addSource(f, bucket)
}

// OnEventBridge runs handler on the events of the default event bus that
// match pattern, an EventBridge event pattern such as
// {"source": ["shop.orders"], "detail-type": ["OrderPlaced"]}.
func (a *App) OnEventBridge(name string, pattern map[string]any, handler func(context.Context, events.EventBridgeEvent) error, opts ...FunctionOption) {
	f := a.newFunction(name, KindEventBridge, handler == nil, noResult(handler), opts)
	if len(pattern) > 0 {
		b, err := json.Marshal(pattern)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("the event pattern is not JSON: %w", err))
		}
		f.spec.EventPattern = b
	}
	a.addFunction(f)
}

// OnDynamoDBRecord runs handler on the records of a DynamoDB table's
// stream, given by its ARN or a declared table's Stream(). An error fails the whole batch;
// OnDynamoDBPartialBatch reports the records that failed instead.
func (a *App) OnDynamoDBRecord(name, streamARN string, handler func(context.Context, events.DynamoDBEvent) error, opts ...FunctionOption) {
	a.addSource(a.newFunction(name, KindDynamoDB, handler == nil, noResult(handler), opts), streamARN)
}

// OnDynamoDBPartialBatch is OnDynamoDBRecord for a handler that reports
// the records that failed (by sequence number) so that Lambda retries
// from the first of them.
func (a *App) OnDynamoDBPartialBatch(name, streamARN string, handler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error), opts ...FunctionOption) {
	call := partialBatch(handler, func(r *events.DynamoDBEventResponse) {
		if r.BatchItemFailures == nil {
			r.BatchItemFailures = []events.DynamoDBBatchItemFailure{}
		}
	})
	a.addSource(a.newPartial(name, KindDynamoDB, handler == nil, call, opts), streamARN)
}

// OnKinesisRecord runs handler on the records of a Kinesis data stream,
// given by name (in the stack's account and region) or ARN. An error fails
// the whole batch; OnKinesisPartialBatch reports the records that failed
// instead.
func (a *App) OnKinesisRecord(name, stream string, handler func(context.Context, events.KinesisEvent) error, opts ...FunctionOption) {
	a.addSource(a.newFunction(name, KindKinesis, handler == nil, noResult(handler), opts), stream)
}

// OnKinesisPartialBatch is OnKinesisRecord for a handler that reports the
// records that failed (by sequence number) so that Lambda retries from the
// first of them.
func (a *App) OnKinesisPartialBatch(name, stream string, handler func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error), opts ...FunctionOption) {
	call := partialBatch(handler, func(r *events.KinesisEventResponse) {
		if r.BatchItemFailures == nil {
			r.BatchItemFailures = []events.KinesisBatchItemFailure{}
		}
	})
	a.addSource(a.newPartial(name, KindKinesis, handler == nil, call, opts), stream)
}

// LambdaFunction registers on app a plain function: JSON in, decoded into
// In, and Out back as JSON, invoked directly (aws lambda invoke,
// `framework invoke`, another service). It is a function rather than a
// method of App because Go methods cannot have type parameters.
func LambdaFunction[In, Out any](app *App, name string, handler func(context.Context, In) (Out, error), opts ...FunctionOption) {
	call := func(ctx context.Context, event []byte) ([]byte, error) {
		var in In
		if err := json.Unmarshal(event, &in); err != nil {
			return nil, &EventError{Kind: KindFunction, Type: reflect.TypeFor[In]().String(), Err: err}
		}
		out, err := handler(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}
	app.addFunction(app.newFunction(name, KindFunction, handler == nil, call, opts))
}

// newFunction is a function of kind that call runs, with its options
// applied; nilHandler records a nil handler as a declaration error.
func (a *App) newFunction(name string, kind HandlerKind, nilHandler bool, call eventFunc, opts []FunctionOption) *function {
	f := &function{Name: name, Kind: kind, call: call, spec: manifest.Function{Name: name, Kind: kind}}
	if nilHandler {
		f.errs = append(f.errs, errors.New("the handler is nil: pass a function"))
	}
	if slices.Contains(streamKinds, kind) {
		f.spec.StartingPosition = StartLatest
	}
	for _, o := range opts {
		if o.apply == nil {
			f.errs = append(f.errs, errors.New("an option is the zero FunctionOption: build options with the framework's functions (BatchSize, S3Filter, ...)"))
			continue
		}
		if o.kinds != nil && !slices.Contains(o.kinds, kind) {
			f.errs = append(f.errs, fmt.Errorf("option %s does not apply to %s handler (it applies to %s)", o.name, wording.A(string(kind)), kindList(o.kinds)))
			continue
		}
		o.apply(&f.spec)
		if o.fn != nil {
			o.fn(f)
		}
	}
	return f
}

// newPartial is newFunction for a handler that reports its failed items.
func (a *App) newPartial(name string, kind HandlerKind, nilHandler bool, call eventFunc, opts []FunctionOption) *function {
	f := a.newFunction(name, kind, nilHandler, call, opts)
	f.spec.ReportBatchItemFailures = true
	return f
}

// addSource adds f, which reads from source (a queue, topic, bucket or stream).
func (a *App) addSource(f *function, source string) {
	sourceOf(&f.spec, source)
	a.addFunction(f)
}

func kindList(kinds []HandlerKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func (a *App) addFunction(f *function) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("%s: registered after the app started serving; register every handler before Run", f.spec.Label()))
		return
	}
	a.functions = append(a.functions, f)
}

// validateFunctions reports what the manifest does not show: options that
// do not apply and nil handlers; manifest.Validate checks the rest.
func (a *App) validateFunctions() []error {
	var errs []error
	for _, f := range a.functions {
		for _, e := range f.errs {
			errs = append(errs, fmt.Errorf("%s: %w", f.spec.Label(), e))
		}
	}
	return errs
}

// manifestFunctions describes the registered functions, sorted by name.
func (a *App) manifestFunctions() []manifest.Function {
	if len(a.functions) == 0 {
		return nil
	}
	out := make([]manifest.Function, len(a.functions))
	for i, f := range a.functions {
		out[i] = f.spec
		out[i].Events = slices.Clone(f.spec.Events)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name }) // see manifestOf
	return out
}

// function returns the registered function named name, or nil.
func (a *App) function(name string) *function {
	for _, f := range a.functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func noResult[E any](f func(context.Context, E) error) eventFunc {
	return func(ctx context.Context, event []byte) ([]byte, error) {
		var ev E
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		if err := f(ctx, ev); err != nil {
			return nil, err
		}
		return []byte("null"), nil
	}
}

// partialBatch calls a handler that reports its failed items; fill makes
// a response without failures list none ([]), as Lambda expects.
func partialBatch[E, R any](handler func(context.Context, E) (R, error), fill func(*R)) eventFunc {
	return withResult(func(ctx context.Context, ev E) (R, error) {
		r, err := handler(ctx, ev)
		fill(&r)
		return r, err
	})
}

func withResult[E, R any](f func(context.Context, E) (R, error)) eventFunc {
	return func(ctx context.Context, event []byte) ([]byte, error) {
		var ev E
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		r, err := f(ctx, ev)
		if err != nil {
			return nil, err
		}
		return json.Marshal(r)
	}
}

// EventError is an event a handler could not decode: it was not sent by
// the source the handler was declared for.
type EventError struct {
	// Kind is the handler's kind, Type the Go type the event was decoded into.
	Kind HandlerKind
	Type string
	Err  error

	handler string // the handler's label, once dispatched
}

// Error names the handler and says which type the event did not fit.
func (e *EventError) Error() string {
	if e.handler != "" {
		return fmt.Sprintf("%s: the event is not a %s: %v", e.handler, e.Type, e.Err)
	}
	return fmt.Sprintf("the event is not a %s: %v", e.Type, e.Err)
}

// Unwrap returns the decoding error.
func (e *EventError) Unwrap() error { return e.Err }
