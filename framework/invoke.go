package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/names"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// PanicError is a panic in an event handler, recovered: it writes an error
// line with its stack (App.ErrorLog), Lambda reports it as the invocation's
// error (type PanicError) and the process keeps serving.
type PanicError struct {
	// Handler is the handler's name.
	Handler string
	// Value is what the handler panicked with; Stack is the stack trace.
	Value any
	Stack []byte
}

// Error names the handler and the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("handler %q panicked: %v", e.Handler, e.Value)
}

// invokeNamed delivers one event to the handler named name ("api" or
// "" for the REST API's function, whose event is an API Gateway proxy
// event) and returns its JSON result: the one dispatch point of every
// kind, which the Lambda adapter, `framework invoke --local` and
// frameworktest all go through. An error is the invocation's error: an
// SQS, DynamoDB or Kinesis handler's error fails its whole batch (Lambda
// retries it), unless the handler reports its failed items instead.
func (a *App) invokeNamed(ctx context.Context, name string, event []byte) ([]byte, error) {
	if _, err := a.compiled(); err != nil {
		return nil, err
	}
	if name == "" || name == names.APIHandlerName {
		if isV2Event(event) {
			return a.dispatchV2(ctx, event)
		}
		return a.dispatchAPI(ctx, event)
	}
	f := a.function(name)
	if f == nil {
		return nil, a.unknownHandler(name)
	}
	return a.dispatch(ctx, f, event)
}

// unknownHandler is the error for a name that is not a handler of the app.
func (a *App) unknownHandler(name string) error {
	known := []string{names.APIHandlerName}
	for _, f := range a.functions {
		known = append(known, f.Name)
	}
	slices.Sort(known)
	return fmt.Errorf("the app %s has no handler named %q; its handlers are: %s", a.Name, name, strings.Join(known, ", "))
}

// dispatchAPI answers one event of the REST API's function. An event
// without an HTTP method is not a proxy event (the {} of an invoke without
// a payload, an event meant for another handler): it fails the invocation
// with an EventError saying what to send, rather than being answered as
// an unknown route.
func (a *App) dispatchAPI(ctx context.Context, event []byte) ([]byte, error) {
	serve := a.handleEvent
	if a.apiEvents != nil {
		serve = a.apiEvents
	}
	return dispatchAPIEvent(a, ctx, event, func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		if ev.HTTPMethod == "" {
			err := &EventError{Kind: KindHTTP, Type: "REST API proxy event", Err: errors.New(`it has no "httpMethod": send one such as {"httpMethod":"GET","path":"/"} (framework invoke NAME --local without --event sends a sample event)`)}
			a.logInvocation(ctx, "uncaught error", KindHTTP, names.APIHandlerName, err, nil)
			return events.APIGatewayProxyResponse{}, err
		}
		return serve(ctx, ev)
	})
}

// dispatchAPIEvent decodes event, an API event of type E, and answers it
// with serve, as JSON.
func dispatchAPIEvent[E, R any](a *App, ctx context.Context, event []byte, serve func(context.Context, E) (R, error)) ([]byte, error) {
	var ev E
	if err := json.Unmarshal(event, &ev); err != nil {
		// The decoding error as is, as aws-lambda-go reports it for a
		// typed handler: Lambda shows its type (UnmarshalTypeError). The
		// invocation failed, so it writes its error line, as an event
		// handler's failure does.
		a.logInvocation(ctx, "uncaught error", KindHTTP, names.APIHandlerName, err, nil)
		return nil, err
	}
	res, err := serve(ctx, ev)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// dispatch runs the event handler or plain function f on event.
func (a *App) dispatch(ctx context.Context, f *function, event []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			pe := &PanicError{Handler: f.Name, Value: p, Stack: debug.Stack()}
			a.logEventPanic(ctx, f, pe)
			out, err = nil, pe
		}
	}()
	if f.chain != nil {
		out, err = f.callChain(ctx, event)
	} else {
		out, err = f.call(ctx, event)
	}
	if ee := (*EventError)(nil); errors.As(err, &ee) {
		// The EventError itself is the invocation's error, so that Lambda
		// reports its type (EventError), not a wrapper's.
		ee.Kind, ee.handler = f.Kind, f.spec.Label()
		err = ee
	}
	if err != nil {
		if err != errUnauthorized { // an authorizer's 401 is an answer, not a failure
			a.logEventError(ctx, f, err)
		}
		return nil, err
	}
	return out, nil
}

// lambdaHandler is what Run hands the Lambda runtime: the handler the
// function's FRAMEWORK_HANDLER names, served through Invoke.
type lambdaHandler struct {
	app  *App
	name string
}

// Invoke answers one Lambda invocation.
func (h lambdaHandler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	// The invocation's request id, for the slog records of event handlers
	// logged without their context (RequestIDHandler).
	beginInvocation(ctx)
	defer setCurrent("")
	return h.app.invokeNamed(ctx, h.name, payload)
}

// lambdaHandler returns the Lambda handler of the function serving the
// handler named name (FRAMEWORK_HANDLER), or an error naming the app's
// handlers when there is none.
func (a *App) lambdaHandler(name string) (lambdaHandler, error) {
	if name != "" && name != names.APIHandlerName && a.function(name) == nil {
		return lambdaHandler{}, fmt.Errorf("%s=%q: %w", names.EnvHandler, name, a.unknownHandler(name))
	}
	return lambdaHandler{app: a, name: name}, nil
}

// chainFunctionMiddleware builds, once at start-up, the middleware chain of
// every event handler and plain function whose kind has middleware
// (App.UseFor with its kind or KindAll).
func (a *App) chainFunctionMiddleware() {
	for _, f := range a.functions {
		if mws := a.middlewareFor(f.Kind); len(mws) > 0 {
			f.chain = chainHandlers(mws, f.finalHandler())
		}
	}
}

// finalHandler is the function's handler as the innermost step of its
// middleware chain: its JSON result is the Response's Body.
func (f *function) finalHandler() Next {
	return func(c *Call) (*Response, error) {
		out, err := f.call(c.Context(), c.Event)
		if err != nil {
			return nil, err
		}
		return &Response{Body: json.RawMessage(out)}, nil
	}
}

// callChain runs the function's middleware chain for one invocation and
// returns the result Lambda sends back: the Body of the Response, as JSON.
func (f *function) callChain(ctx context.Context, event []byte) ([]byte, error) {
	c := &Call{Kind: f.Kind, Handler: f.Name, Event: event, ctx: ctx}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		c.RequestID = lc.AwsRequestID
	}
	resp, err := f.chain(c)
	if err != nil {
		return nil, err
	}
	if resp == nil || resp.Body == nil {
		return []byte("null"), nil
	}
	if raw, ok := resp.Body.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(resp.Body)
}
