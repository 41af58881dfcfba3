package framework

import (
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/manifest"
)

// Guards (internal/apphook): the innermost middleware of one handler and
// the accesses it needs, which package framework/resource adds with an
// option (resource.Idempotent, resource.IdempotentRecords), through
// apphook.Guards.

func (internals) RouteGuard(mw any, gs []manifest.Grant) any {
	m := mw.(Middleware)
	return RouteOption{func(r *route) {
		r.guards = append(r.guards, m)
		r.guardGrants = append(r.guardGrants, gs...)
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
			f.guards = append(f.guards, mw(partial).(Middleware))
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
