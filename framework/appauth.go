package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// AppAuthorizer is an authorizer the app runs itself: Func decides, in the
// app's own code, whether a request may reach the route. Deployed, it runs
// in a Lambda function of its own, named Name and built from the same
// package as the API's, which API Gateway calls as a Lambda authorizer (a
// REST API TOKEN or REQUEST authorizer, an HTTP API Lambda authorizer with
// simple responses); `framework local` calls it before the route in the
// same way. Pass the same AppAuthorizer to every route it protects.
//
// Func's answers: an AuthResult with Allow lets the request through, and
// the route's handler finds PrincipalID and Context in
// Request.GatewayContext.Authorizer; without Allow the request is refused
// with 403; an UnauthorizedError refuses it with 401 (403 behind an HTTP
// API, which has no such answer); any other error with 500.
type AppAuthorizer struct {
	// Name names the authorizer and its Lambda function: 1 to 64 letters,
	// digits, - and _, starting with a letter.
	Name string
	// Header carries the token of a token authorizer; default
	// Authorization. A request without it gets 401 and Func is not called.
	Header string
	// IdentitySources make it a request authorizer, whose Func sees the
	// request's headers, query string and path parameters: each is
	// "header.NAME" or "query.NAME", and a request lacking one gets 401
	// without Func being called. API Gateway caches a decision per
	// identity source values.
	IdentitySources []string
	// TTLSeconds is how long API Gateway caches a decision, for every route
	// the authorizer protects (default 300; 0..3600; -1 turns caching off,
	// which a Func deciding per route needs).
	TTLSeconds int
	// Func decides.
	Func func(context.Context, AuthRequest) (AuthResult, error)
}

// AuthRequest is what an AppAuthorizer decides on.
type AuthRequest struct {
	// Token is a token authorizer's token, the value of its Header.
	Token string
	// Method and Path are the request's method and path (without stage).
	Method, Path string
	// MethodARN is the execute-api ARN of the method being called (REST's
	// methodArn, an HTTP API's routeArn).
	MethodARN string
	// Headers (names lower-case), QueryParams and URIParams are the
	// request's, for a request authorizer; nil for a token authorizer,
	// which sees only its token, as API Gateway's TOKEN authorizers do.
	Headers     Headers
	QueryParams MultiDict
	URIParams   map[string]string
}

// AuthResult is an AppAuthorizer's decision.
type AuthResult struct {
	// Allow lets the request through; false refuses it with 403.
	Allow bool
	// PrincipalID identifies the caller; an allowed request needs one.
	PrincipalID string
	// Context is passed on to the handler, with PrincipalID as
	// "principalId": values are strings, numbers or booleans, which the
	// handler receives as strings ("3", "true"), as a REST API passes them.
	Context map[string]any
}

func (z AppAuthorizer) manifest() *manifest.Authorizer {
	m := &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: z.Name, Header: z.Header, TTLSeconds: z.ttl(), IdentitySources: slices.Clone(z.IdentitySources)}
	if len(z.IdentitySources) == 0 {
		m.Header = headerOrDefault(z.Header)
	}
	return m
}

// ttl is the cache TTL in seconds as API Gateway gets it: 0 is off.
func (z AppAuthorizer) ttl() int {
	switch z.TTLSeconds {
	case 0:
		return 300
	case -1:
		return 0
	}
	return z.TTLSeconds
}

// appAuthorizerOf returns the AppAuthorizer a route option was given, or nil.
func appAuthorizerOf(a Authorizer) *AppAuthorizer {
	switch z := a.(type) {
	case AppAuthorizer:
		return &z
	case *AppAuthorizer:
		return z
	}
	return nil
}

// addAppAuthorizers adds, once per name, the function of every
// AppAuthorizer the routes use: it runs in a Lambda function of its own.
// Called by compile, with a.mu held.
func (a *App) addAppAuthorizers() []error {
	var errs []error
	seen := map[string]*AppAuthorizer{}
	for _, r := range a.routes {
		z := appAuthorizerOf(r.authorizer)
		if z == nil {
			continue
		}
		if prev, ok := seen[z.Name]; ok {
			if funcID(prev.Func) != funcID(z.Func) {
				errs = append(errs, fmt.Errorf("route %s: app authorizer %q: another route's authorizer of that name has a different Func: declare the AppAuthorizer once and pass it to every route it protects", r.Path, z.Name))
			}
			continue
		}
		seen[z.Name] = z
		if z.Func == nil {
			errs = append(errs, fmt.Errorf("route %s: app authorizer %q: Func is nil: set it to the function that decides", r.Path, z.Name))
			continue
		}
		f := &function{Name: z.Name, Kind: KindAuthorizer, call: z.handle, spec: manifest.Function{Name: z.Name, Kind: KindAuthorizer}}
		a.functions = append(a.functions, f)
	}
	return errs
}

func funcID(f any) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}

// errUnauthorized is an authorizer's answer for 401: API Gateway answers
// 401 when a Lambda authorizer fails with exactly this message.
var errUnauthorized = errors.New("Unauthorized")

// authEventProbe tells the authorizer events apart.
type authEventProbe struct {
	Version string `json:"version"`
	Type    string `json:"type"`
}

// handle is the authorizer's Lambda side: it answers a REST TOKEN or
// REQUEST authorizer event with an IAM policy, and an HTTP API (payload
// 2.0) authorizer event with a simple response.
func (z *AppAuthorizer) handle(ctx context.Context, event []byte) ([]byte, error) {
	var probe authEventProbe
	if err := json.Unmarshal(event, &probe); err != nil {
		return nil, &EventError{Type: "API Gateway authorizer event", Err: err}
	}
	token := len(z.IdentitySources) == 0
	switch {
	case probe.Version == "2.0":
		var ev events.APIGatewayV2CustomAuthorizerV2Request
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		in := AuthRequest{Method: ev.RequestContext.HTTP.Method, Path: ev.RequestContext.HTTP.Path, MethodARN: ev.RouteArn}
		if in.Path == "" {
			in.Path = ev.RawPath
		}
		if token {
			in.Token = headerValue(ev.Headers, headerOrDefault(z.Header))
		} else {
			in.Headers = singleHeaders(ev.Headers)
			in.QueryParams = eventQuery(ev.QueryStringParameters, true)
			in.URIParams = unescapeParams(ev.PathParameters)
		}
		res, err := z.Func(ctx, in)
		if errors.As(err, new(UnauthorizedError)) {
			// An HTTP API has no 401 of the authorizer's own: a refusal.
			return json.Marshal(events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: false})
		}
		if err != nil {
			return nil, err
		}
		if err := checkAuthContext(res.Context); err != nil {
			return nil, fmt.Errorf("app authorizer %q: %w", z.Name, err)
		}
		if !res.Allow {
			return json.Marshal(events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: false})
		}
		if res.PrincipalID == "" {
			return nil, fmt.Errorf("app authorizer %q allowed a request without a principal id: set AuthResult.PrincipalID", z.Name)
		}
		// What a REST API passes the handler: the values as strings, and
		// the principal id, so that a handler reads the same on both.
		passed := map[string]any{"principalId": res.PrincipalID}
		for k, v := range res.Context {
			passed[k] = fmt.Sprint(v)
		}
		return json.Marshal(events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true, Context: passed})
	case probe.Type == "TOKEN":
		var ev events.APIGatewayCustomAuthorizerRequest
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		in := AuthRequest{Token: ev.AuthorizationToken, MethodARN: ev.MethodArn}
		in.Method, in.Path = methodARNRoute(ev.MethodArn)
		return z.policy(ctx, in)
	case probe.Type == "REQUEST":
		var ev events.APIGatewayCustomAuthorizerRequestTypeRequest
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		// The path comes as the client sent it, percent-encoded.
		in := AuthRequest{Method: ev.HTTPMethod, Path: unescapeSegment(ev.Path), MethodARN: ev.MethodArn}
		if token {
			in.Token = headerValue(ev.Headers, headerOrDefault(z.Header))
		} else {
			req, _ := eventRequest(ctx, events.APIGatewayProxyRequest{
				Headers: ev.Headers, MultiValueHeaders: ev.MultiValueHeaders,
				QueryStringParameters: ev.QueryStringParameters, MultiValueQueryStringParameters: ev.MultiValueQueryStringParameters,
			})
			in.Headers, in.QueryParams, in.URIParams = req.Headers, req.QueryParams, unescapeParams(ev.PathParameters)
		}
		return z.policy(ctx, in)
	}
	return nil, &EventError{Type: "API Gateway authorizer event", Err: fmt.Errorf("type %q, version %q: expected a REST API TOKEN or REQUEST event or an HTTP API 2.0 event", probe.Type, probe.Version)}
}

// policy runs Func for a REST API authorizer event and answers with the
// IAM policy API Gateway expects. With caching on, the policy covers the
// whole stage, since API Gateway applies a cached policy to every route
// the authorizer protects.
func (z *AppAuthorizer) policy(ctx context.Context, in AuthRequest) ([]byte, error) {
	res, err := z.Func(ctx, in)
	if errors.As(err, new(UnauthorizedError)) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	if err := checkAuthContext(res.Context); err != nil {
		return nil, fmt.Errorf("app authorizer %q: %w", z.Name, err)
	}
	effect, principal := "Deny", res.PrincipalID
	if res.Allow {
		effect = "Allow"
		if principal == "" {
			return nil, fmt.Errorf("app authorizer %q allowed a request without a principal id: set AuthResult.PrincipalID", z.Name)
		}
	} else if principal == "" {
		principal = "anonymous"
	}
	resource := in.MethodARN
	if z.ttl() > 0 {
		resource = stageWildcard(in.MethodARN)
	}
	return json.Marshal(events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: principal,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{
			{Action: []string{"execute-api:Invoke"}, Effect: effect, Resource: []string{resource}},
		}},
		Context: res.Context,
	})
}

// checkAuthContext checks that an authorizer's context holds only what
// API Gateway passes on: strings, numbers and booleans.
func checkAuthContext(c map[string]any) error {
	for _, k := range sortedKeysInto(nil, c) {
		switch c[k].(type) {
		case string, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		default:
			return fmt.Errorf("context key %q holds a %T: API Gateway passes on only strings, numbers and booleans", k, c[k])
		}
	}
	return nil
}

// methodARNRoute reads the method and path out of an execute-api ARN,
// arn:aws:execute-api:REGION:ACCOUNT:API/STAGE/METHOD/PATH.
func methodARNRoute(arn string) (method, path string) {
	parts := strings.SplitN(arn, "/", 4)
	if len(parts) < 3 {
		return "", ""
	}
	method = parts[2]
	path = "/"
	if len(parts) == 4 {
		path += parts[3]
	}
	return method, path
}

// stageWildcard is the ARN of every method of the stage of a method ARN.
func stageWildcard(arn string) string {
	parts := strings.SplitN(arn, "/", 3)
	if len(parts) < 3 {
		return arn
	}
	return parts[0] + "/" + parts[1] + "/*"
}

// headerValue returns the value of the header name, in any case.
func headerValue(h map[string]string, name string) string {
	if k := headerKey(h, name); k != "" {
		return h[k]
	}
	return ""
}

// singleHeaders are an HTTP API event's headers, whose repeated values
// arrive joined by commas.
func singleHeaders(h map[string]string) Headers {
	if h == nil {
		return nil
	}
	out := make(Headers, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = []string{v}
	}
	return out
}

// eventQuery is an event's single-value query map as a MultiDict, or nil
// when it is empty. With splitCommas (an HTTP API's event, which joins the
// values of a repeated key with commas) each value is split again.
func eventQuery(q map[string]string, splitCommas bool) MultiDict {
	if len(q) == 0 {
		return nil
	}
	out := make(MultiDict, len(q))
	for k, v := range q {
		if splitCommas {
			out[k] = strings.Split(v, ",")
		} else {
			out[k] = []string{v}
		}
	}
	return out
}

// unescapeParams are an event's path parameters, percent-decoded.
func unescapeParams(p map[string]string) map[string]string {
	if len(p) == 0 {
		return nil
	}
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = unescapeSegment(v)
	}
	return out
}
