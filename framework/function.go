package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// Function is a registered event handler or plain function: it runs in a
// Lambda function of its own, built from the same package as the REST API's.
type Function struct {
	// Name is the handler's name, as given at registration.
	Name string
	// Kind is the kind of event it answers.
	Kind HandlerKind

	spec    manifest.Function
	handler any
	call    eventFunc
	errs    []error
	chain   Handler // the handler behind the middleware of its kind; nil without middleware
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
}

var batchKinds = []HandlerKind{KindSQS, KindDynamoDB, KindKinesis}

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
	return FunctionOption{name: "StartingPosition", kinds: []HandlerKind{KindDynamoDB, KindKinesis}, apply: func(m *manifest.Function) { m.StartingPosition = p }}
}

// S3Events sets the S3 event types an S3 handler receives (default
// s3:ObjectCreated:*).
func S3Events(types ...string) FunctionOption {
	return FunctionOption{name: "S3Events", kinds: []HandlerKind{KindS3}, apply: func(m *manifest.Function) { m.Events = slices.Clone(types) }}
}

// Prefix limits an S3 handler to the object keys starting with prefix.
func Prefix(prefix string) FunctionOption {
	return FunctionOption{name: "Prefix", kinds: []HandlerKind{KindS3}, apply: func(m *manifest.Function) { m.Prefix = prefix }}
}

// Suffix limits an S3 handler to the object keys ending with suffix.
func Suffix(suffix string) FunctionOption {
	return FunctionOption{name: "Suffix", kinds: []HandlerKind{KindS3}, apply: func(m *manifest.Function) { m.Suffix = suffix }}
}

// Schedule runs handler on a schedule built by Rate or Cron. The handler is
// func(context.Context, events.EventBridgeEvent) error; the event is
// EventBridge's "Scheduled Event".
func (a *App) Schedule(name string, when ScheduleExpression, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindSchedule, handler, opts)
	f.spec.Schedule = when.expr
	if when.err != nil {
		f.errs = append(f.errs, when.err)
	} else if when.expr == "" {
		f.errs = append(f.errs, errors.New("no schedule: build one with framework.Rate or framework.Cron"))
	}
	a.addFunction(f)
}

// OnSQSMessage runs handler on the messages of an SQS queue, given by name
// (in the stack's account and region) or ARN. The handler is
// func(context.Context, events.SQSEvent) error, where an error fails the
// whole batch, or func(context.Context, events.SQSEvent)
// (events.SQSEventResponse, error), which reports the messages that failed
// (by MessageId) so that only those are retried.
func (a *App) OnSQSMessage(name, queue string, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindSQS, handler, opts)
	f.spec.Source = queue
	a.addFunction(f)
}

// OnSNSMessage runs handler on the messages of an SNS topic, given by name
// (in the stack's account and region) or ARN. The handler is
// func(context.Context, events.SNSEvent) error.
func (a *App) OnSNSMessage(name, topic string, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindSNS, handler, opts)
	f.spec.Source = topic
	a.addFunction(f)
}

// OnS3Event runs handler on the object events of an S3 bucket, given by
// name or ARN; S3Events, Prefix and Suffix narrow them. The handler is
// func(context.Context, events.S3Event) error.
func (a *App) OnS3Event(name, bucket string, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindS3, handler, opts)
	f.spec.Source = bucket
	if f.spec.Events == nil {
		f.spec.Events = []string{"s3:ObjectCreated:*"}
	}
	a.addFunction(f)
}

// OnEventBridge runs handler on the events of the default event bus that
// match pattern, an EventBridge event pattern such as
// {"source": ["shop.orders"], "detail-type": ["OrderPlaced"]}. The handler
// is func(context.Context, events.EventBridgeEvent) error.
func (a *App) OnEventBridge(name string, pattern map[string]any, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindEventBridge, handler, opts)
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
// stream, given by its ARN. The handler is func(context.Context,
// events.DynamoDBEvent) error, or returns (events.DynamoDBEventResponse,
// error) to report the records that failed (by sequence number).
func (a *App) OnDynamoDBRecord(name, streamARN string, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindDynamoDB, handler, opts)
	f.spec.Source = streamARN
	a.addFunction(f)
}

// OnKinesisRecord runs handler on the records of a Kinesis data stream,
// given by name (in the stack's account and region) or ARN. The handler is
// func(context.Context, events.KinesisEvent) error, or returns
// (events.KinesisEventResponse, error) to report the records that failed
// (by sequence number).
func (a *App) OnKinesisRecord(name, stream string, handler any, opts ...FunctionOption) {
	f := a.newFunction(name, KindKinesis, handler, opts)
	f.spec.Source = stream
	a.addFunction(f)
}

// LambdaFunction registers a plain function: any JSON in, any JSON out,
// invoked directly (aws lambda invoke, `framework invoke`, another service).
// The handler is func(context.Context, In) (Out, error) for any types In
// and Out that encoding/json reads and writes.
func (a *App) LambdaFunction(name string, handler any, opts ...FunctionOption) {
	a.addFunction(a.newFunction(name, KindFunction, handler, opts))
}

func (a *App) newFunction(name string, kind HandlerKind, handler any, opts []FunctionOption) *Function {
	f := &Function{Name: name, Kind: kind, handler: handler, spec: manifest.Function{Name: name, Kind: kind}}
	if kind == KindDynamoDB || kind == KindKinesis {
		f.spec.StartingPosition = StartLatest
	}
	for _, o := range opts {
		if o.apply == nil {
			f.errs = append(f.errs, errors.New("an option is the zero FunctionOption: build options with the framework's functions (BatchSize, Prefix, ...)"))
			continue
		}
		if o.kinds != nil && !slices.Contains(o.kinds, kind) {
			f.errs = append(f.errs, fmt.Errorf("option %s does not apply to a %s handler (it applies to %s)", o.name, kind, kindList(o.kinds)))
			continue
		}
		o.apply(&f.spec)
	}
	return f
}

func kindList(kinds []HandlerKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func (a *App) addFunction(f *Function) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("%s: registered after the app started serving; register every handler before Run", f.spec.Label()))
		return
	}
	a.functions = append(a.functions, f)
}

// validateFunctions checks what the manifest does not show (options, the
// handler's signature) and binds each handler; manifest.Manifest.Validate checks the rest.
func (a *App) validateFunctions() []error {
	var errs []error
	for _, f := range a.functions {
		for _, e := range f.errs {
			errs = append(errs, fmt.Errorf("%s: %w", f.spec.Label(), e))
		}
		call, partial, err := bindHandler(f.Kind, f.handler)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.spec.Label(), err))
		}
		f.call, f.spec.ReportBatchItemFailures = call, partial
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
	slices.SortStableFunc(out, func(x, y manifest.Function) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// function returns the registered function named name, or nil.
func (a *App) function(name string) *Function {
	for _, f := range a.functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// signatures lists, per kind, the handler signatures it takes, for error messages.
var signatures = map[HandlerKind][]string{
	KindSchedule:    {"func(context.Context, events.EventBridgeEvent) error"},
	KindEventBridge: {"func(context.Context, events.EventBridgeEvent) error"},
	KindSQS:         {"func(context.Context, events.SQSEvent) error", "func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)"},
	KindSNS:         {"func(context.Context, events.SNSEvent) error"},
	KindS3:          {"func(context.Context, events.S3Event) error"},
	KindDynamoDB:    {"func(context.Context, events.DynamoDBEvent) error", "func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)"},
	KindKinesis:     {"func(context.Context, events.KinesisEvent) error", "func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error)"},
	KindFunction:    {"func(context.Context, In) (Out, error) for JSON types In and Out"},
}

// bindHandler checks a handler's signature against its kind and returns
// its caller; partial is true when it reports batch item failures.
func bindHandler(kind HandlerKind, h any) (call eventFunc, partial bool, err error) {
	if h == nil || (reflect.ValueOf(h).Kind() == reflect.Func && reflect.ValueOf(h).IsNil()) {
		return nil, false, fmt.Errorf("the handler is nil: pass a %s", strings.Join(signatures[kind], " or "))
	}
	switch kind {
	case KindSchedule, KindEventBridge:
		if f, ok := h.(func(context.Context, events.EventBridgeEvent) error); ok {
			return noResult(f), false, nil
		}
	case KindSQS:
		switch f := h.(type) {
		case func(context.Context, events.SQSEvent) error:
			return noResult(f), false, nil
		case func(context.Context, events.SQSEvent) (events.SQSEventResponse, error):
			return withResult(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				r, err := f(ctx, ev)
				if r.BatchItemFailures == nil {
					r.BatchItemFailures = []events.SQSBatchItemFailure{}
				}
				return r, err
			}), true, nil
		}
	case KindSNS:
		if f, ok := h.(func(context.Context, events.SNSEvent) error); ok {
			return noResult(f), false, nil
		}
	case KindS3:
		if f, ok := h.(func(context.Context, events.S3Event) error); ok {
			return noResult(f), false, nil
		}
	case KindDynamoDB:
		switch f := h.(type) {
		case func(context.Context, events.DynamoDBEvent) error:
			return noResult(f), false, nil
		case func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error):
			return withResult(func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				r, err := f(ctx, ev)
				if r.BatchItemFailures == nil {
					r.BatchItemFailures = []events.DynamoDBBatchItemFailure{}
				}
				return r, err
			}), true, nil
		}
	case KindKinesis:
		switch f := h.(type) {
		case func(context.Context, events.KinesisEvent) error:
			return noResult(f), false, nil
		case func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error):
			return withResult(func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
				r, err := f(ctx, ev)
				if r.BatchItemFailures == nil {
					r.BatchItemFailures = []events.KinesisBatchItemFailure{}
				}
				return r, err
			}), true, nil
		}
	case KindFunction:
		if call := plainFunction(h); call != nil {
			return call, false, nil
		}
	}
	return nil, false, fmt.Errorf("the handler's type %T is not a %s handler: use %s", h, kind, strings.Join(signatures[kind], " or "))
}

var contextType = reflect.TypeOf((*context.Context)(nil)).Elem()

// plainFunction binds func(context.Context, In) (Out, error), or returns nil.
func plainFunction(h any) eventFunc {
	v := reflect.ValueOf(h)
	t := v.Type()
	if t.Kind() != reflect.Func || t.IsVariadic() || t.NumIn() != 2 || t.NumOut() != 2 || t.In(0) != contextType || t.Out(1) != errorType {
		return nil
	}
	in := t.In(1)
	return func(ctx context.Context, event []byte) ([]byte, error) {
		arg := reflect.New(in)
		if err := json.Unmarshal(event, arg.Interface()); err != nil {
			return nil, &EventError{Kind: KindFunction, Type: in.String(), Err: err}
		}
		out := v.Call([]reflect.Value{reflect.ValueOf(ctx), arg.Elem()})
		if err, _ := out[1].Interface().(error); err != nil {
			return nil, err
		}
		return json.Marshal(out[0].Interface())
	}
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
}

// Error says which type the event did not fit.
func (e *EventError) Error() string {
	return fmt.Sprintf("the event is not a %s: %v", e.Type, e.Err)
}

// Unwrap returns the decoding error.
func (e *EventError) Unwrap() error { return e.Err }
