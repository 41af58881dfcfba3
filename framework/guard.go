package framework

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

// Guards (internal/apphook): the innermost middleware of one handler and
// the accesses it needs, which package framework/resource adds with an
// option (resource.Idempotent, resource.IdempotentRecords), through
// apphook.Guards.

func (internals) RouteGuard(mw any, gs []manifest.Grant, describe func(*manifest.Route)) any {
	m := mw.(Middleware)
	return RouteOption{func(r *route) {
		r.guards = append(r.guards, m)
		r.guardGrants = append(r.guardGrants, gs...)
		if describe != nil {
			r.describe = append(r.describe, describe)
		}
	}}
}

func (internals) FunctionGuard(name string, kinds []manifest.Kind, mw func(partial func() bool) any, gs []manifest.Grant) any {
	return FunctionOption{name: name, kinds: kinds,
		apply: func(f *manifest.Function) {
			for _, g := range gs {
				f.Grants = addGrant(f.Grants, g)
			}
		},
		fn: func(f *function) {
			partial := func() bool { return f.spec.ReportBatchItemFailures }
			f.call = guardCall(f, mw(partial).(Middleware), f.call)
		},
	}
}

func (internals) AnswerOf(resp any, err error) (apphook.Answer, bool) {
	var res *result
	if err != nil {
		ve, code, ok := asViewError(err)
		if !ok {
			return apphook.Answer{}, false
		}
		res = jsonResult(ve.StatusCode(), errorBody{Code: code, Message: ve.Error()})
	} else {
		var terr error
		if res, terr = toResult(resp.(*Response)); terr != nil {
			return apphook.Answer{}, false
		}
	}
	return apphook.Answer{Status: res.status, Headers: res.headers, Body: res.body}, true
}

// guardCall is call behind the guard m: the innermost step of the
// function's middleware chain, as finalHandler and callChain see it.
func guardCall(f *function, m Middleware, call eventFunc) eventFunc {
	inner := func(c *Call) (*Response, error) {
		out, err := call(c.Context(), c.Event)
		if err != nil {
			return nil, err
		}
		return &Response{Body: json.RawMessage(out)}, nil
	}
	return func(ctx context.Context, event []byte) ([]byte, error) {
		c := &Call{Kind: f.Kind, Handler: f.Name, Event: event, ctx: ctx}
		if lc, ok := lambdacontext.FromContext(ctx); ok {
			c.RequestID = lc.AwsRequestID
		}
		resp, err := m(c, inner)
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
}
