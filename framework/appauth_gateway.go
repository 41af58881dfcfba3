package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// API Gateway's side of an AppAuthorizer, for `framework local` and
// frameworktest: it sends the authorizer's function the event API Gateway
// would send (through invokeNamed, the dispatch the deployed function
// runs), reads the answer as API Gateway reads it, and answers as API
// Gateway does. The route's handler then finds in
// Request.GatewayContext.Authorizer what API Gateway would pass it.
//
// REST API (TOKEN and REQUEST authorizers):
//   - a missing token header or identity source: 401 {"message":"Unauthorized"}
//     (gatewayAnswer, without calling the authorizer);
//   - the function fails with "Unauthorized" (Func returned an
//     UnauthorizedError): 401 {"message":"Unauthorized"};
//   - the policy denies the method explicitly: 403
//     {"Message":"User is not authorized to access this resource with an explicit deny"};
//   - the policy does not allow the method: 403
//     {"Message":"User is not authorized to access this resource"};
//     ("message" when the API's gateway responses carry CORS headers:
//     their template rewrites the body);
//   - any other failure, or an answer API Gateway cannot use (no principal
//     id, a context value that is not a string, number or boolean): 500
//     {"message":null};
//   - allowed: the context's values as strings, with principalId and
//     integrationLatency (milliseconds).
//
// HTTP API (payload 2.0, simple responses): 403 {"message":"Forbidden"}
// for isAuthorized false, 500 {"message":"Internal Server Error"} for a
// failure, and the context as is (the authorizer's function sends the
// values as strings, with principalId, as a REST API would pass them).
//
// Answers are cached as API Gateway caches them, for the authorizer's TTL
// per identity source values (the token, or the request authorizer's
// sources): a cached answer stands for every route the authorizer
// protects, so a Func that decides per route shows, locally too, that it
// needs caching off. Failures are not cached.

// authCall is what API Gateway knows of a request when it calls an authorizer.
type authCall struct {
	req                               *Request
	pattern                           string            // the route's resource path
	pathParams                        map[string]string // the captures, still percent-encoded
	region, account, apiID, stage, id string
}

// newAuthCall describes req, matched to the path entry e with the decoded
// captures args, as API Gateway sees it; an empty account (an event sent
// outside AWS) is localAccount.
func newAuthCall(req *Request, e *pathEntry, args []string, account, apiID, stage string) *authCall {
	if account == "" {
		account = localAccount
	}
	c := &authCall{req: req, pattern: e.pattern, region: localRegion(), account: account, apiID: apiID, stage: stage, id: req.GatewayContext.RequestID}
	if len(args) > 0 {
		c.pathParams = make(map[string]string, len(args))
		for i, name := range e.captures {
			if i < len(args) {
				c.pathParams[name] = url.PathEscape(args[i])
			}
		}
	}
	return c
}

func localRegion() string {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := os.Getenv(k); r != "" {
			return r
		}
	}
	return "us-east-1"
}

// methodARN is the execute-api ARN of the request's method.
func (c *authCall) methodARN() string {
	return fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/%s%s", c.region, c.account, c.apiID, c.stage, c.req.Method, c.req.Path)
}

// identityMissing reports whether req lacks the token header or one of
// the identity sources of an app authorizer.
func identityMissing(a *manifest.Authorizer, req *Request) bool {
	if len(a.IdentitySources) == 0 {
		return req.Headers.Get(a.Header) == ""
	}
	for _, src := range a.IdentitySources {
		place, name, err := manifest.ParseIdentitySource(src)
		switch {
		case err != nil:
			return true
		case place == manifest.IdentityHeader && req.Headers.Get(name) == "":
			return true
		case place == manifest.IdentityQuery && len(req.QueryParams[name]) == 0:
			return true
		}
	}
	return false
}

func unauthorized() *result {
	return jsonResult(401, map[string]string{"message": "Unauthorized"})
}

// gatewayError is one of API Gateway's own error answers, with its
// x-amzn-ErrorType header.
func gatewayError(status int, errorType string, body string) *result {
	res := &result{status: status, body: []byte(body), headers: []manifest.HeaderField{{Name: "Content-Type", Value: "application/json"}}}
	res.headers = append(res.headers, manifest.HeaderField{Name: "X-Amzn-Errortype", Value: errorType})
	return res
}

// authorizeREST runs a REST API's app authorizer for c: it returns API
// Gateway's refusal, or nil and what the handler finds in
// RequestContext.Authorizer.
func (a *App) authorizeREST(ctx context.Context, decl *manifest.Authorizer, c *authCall) (*result, map[string]any) {
	arn := c.methodARN()
	var ev any
	if len(decl.IdentitySources) == 0 {
		ev = events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: c.req.Headers.Get(decl.Header), MethodArn: arn}
	} else {
		r := c.req
		path := (&url.URL{Path: r.Path}).EscapedPath() // encoded, as API Gateway sends it
		e := events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Type: "REQUEST", MethodArn: arn, Resource: c.pattern, Path: path, HTTPMethod: r.Method,
			Headers: map[string]string{}, MultiValueHeaders: map[string][]string{},
			QueryStringParameters: map[string]string{}, MultiValueQueryStringParameters: map[string][]string{},
			PathParameters: c.pathParams, StageVariables: r.StageVars,
			RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
				Path: "/" + c.stage + path, AccountID: c.account, ResourceID: r.GatewayContext.ResourceID, Stage: c.stage,
				RequestID: c.id, ResourcePath: c.pattern, HTTPMethod: r.Method, APIID: c.apiID,
			},
		}
		if ip := r.GatewayContext.Identity.SourceIP; ip != nil {
			e.RequestContext.Identity.SourceIP = *ip
		}
		for k, v := range r.Headers {
			if len(v) > 0 {
				e.Headers[k], e.MultiValueHeaders[k] = v[len(v)-1], v
			}
		}
		for k, v := range r.QueryParams {
			if len(v) > 0 {
				e.QueryStringParameters[k], e.MultiValueQueryStringParameters[k] = v[len(v)-1], v
			}
		}
		ev = e
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return gatewayError(500, "AuthorizerConfigurationException", `{"message":null}`), nil
	}
	start := time.Now()
	key := cacheKey(doorREST, decl, c)
	out := a.authCache.get(key, start)
	if out == nil {
		out, err = a.invokeNamed(ctx, decl.Name, payload)
	}
	latency := time.Since(start).Milliseconds()
	if err != nil {
		if err.Error() == errUnauthorized.Error() {
			return gatewayError(401, "UnauthorizedException", `{"message":"Unauthorized"}`), nil
		}
		return gatewayError(500, "AuthorizerConfigurationException", `{"message":null}`), nil
	}
	var resp struct {
		PrincipalID    string `json:"principalId"`
		PolicyDocument struct {
			Statement []struct {
				Effect   string     `json:"Effect"`
				Action   stringList `json:"Action"`
				Resource stringList `json:"Resource"`
			} `json:"Statement"`
		} `json:"policyDocument"`
		Context map[string]any `json:"context"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil || resp.PrincipalID == "" || checkAuthContext(resp.Context) != nil {
		return gatewayError(500, "AuthorizerConfigurationException", `{"message":null}`), nil
	}
	a.authCache.put(key, out, start.Add(time.Duration(decl.TTLSeconds)*time.Second))
	allowed, denied := false, false
	for _, s := range resp.PolicyDocument.Statement {
		if !s.Action.matches("execute-api:Invoke", true) || !s.Resource.matches(arn, false) {
			continue
		}
		switch s.Effect {
		case "Allow":
			allowed = true
		case "Deny":
			denied = true
		}
	}
	if denied || !allowed {
		msg := "User is not authorized to access this resource"
		if denied {
			msg += " with an explicit deny"
		}
		// API Gateway's own body says "Message"; the gateway responses a
		// deployed API with CORS gets (their template writes "message")
		// rewrite it.
		key := "Message"
		if a.templatedGatewayResponses() {
			key = "message"
		}
		body, _ := json.Marshal(map[string]string{key: msg})
		return gatewayError(403, "AccessDeniedException", string(body)), nil
	}
	passed := map[string]any{"principalId": resp.PrincipalID, "integrationLatency": latency}
	for k, v := range resp.Context {
		passed[k] = fmt.Sprint(v) // API Gateway passes every value on as a string
	}
	return nil, passed
}

// authorizeHTTP runs an HTTP API's app authorizer (payload 2.0, simple
// responses) for c, as authorizeREST does for a REST API.
func (a *App) authorizeHTTP(ctx context.Context, decl *manifest.Authorizer, c *authCall) (*result, map[string]any) {
	r := c.req
	ev := events.APIGatewayV2CustomAuthorizerV2Request{
		Version: "2.0", Type: "REQUEST",
		RouteArn: c.methodARN(), RouteKey: r.Method + " " + c.pattern, RawPath: r.Path,
		Headers: map[string]string{}, PathParameters: c.pathParams, StageVariables: r.StageVars,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			AccountID: c.account, APIID: c.apiID, Stage: c.stage, RequestID: c.id, RouteKey: r.Method + " " + c.pattern,
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: r.Method, Path: r.Path},
		},
	}
	for k, v := range r.Headers {
		ev.Headers[k] = strings.Join(v, ",")
	}
	if len(r.QueryParams) > 0 {
		ev.QueryStringParameters = map[string]string{}
		q := url.Values{}
		for k, v := range r.QueryParams {
			ev.QueryStringParameters[k] = strings.Join(v, ",")
			q[k] = v
		}
		ev.RawQueryString = q.Encode()
	}
	if len(decl.IdentitySources) == 0 {
		ev.IdentitySource = []string{r.Headers.Get(decl.Header)}
	} else {
		for _, src := range decl.IdentitySources {
			place, name, _ := manifest.ParseIdentitySource(src)
			if place == manifest.IdentityHeader {
				ev.IdentitySource = append(ev.IdentitySource, r.Headers.Get(name))
			} else {
				ev.IdentitySource = append(ev.IdentitySource, strings.Join(r.QueryParams[name], ","))
			}
		}
	}
	internal := jsonResult(500, map[string]string{"message": "Internal Server Error"})
	payload, err := json.Marshal(ev)
	if err != nil {
		return internal, nil
	}
	now := time.Now()
	key := cacheKey(doorHTTP, decl, c)
	out := a.authCache.get(key, now)
	if out == nil {
		if out, err = a.invokeNamed(ctx, decl.Name, payload); err != nil {
			return internal, nil
		}
	}
	var resp struct {
		IsAuthorized *bool          `json:"isAuthorized"`
		Context      map[string]any `json:"context"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.IsAuthorized == nil {
		return internal, nil
	}
	a.authCache.put(key, out, now.Add(time.Duration(decl.TTLSeconds)*time.Second))
	if !*resp.IsAuthorized {
		return jsonResult(403, map[string]string{"message": "Forbidden"}), nil
	}
	if resp.Context == nil {
		resp.Context = map[string]any{}
	}
	return nil, resp.Context
}

// stringList is an IAM policy element that is one string or a list.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("not a string or a list of strings")
	}
	*l = many
	return nil
}

// matches reports whether one of the patterns (IAM wildcards * and ?)
// matches s.
func (l stringList) matches(s string, foldCase bool) bool {
	for _, p := range l {
		if foldCase {
			p, s = strings.ToLower(p), strings.ToLower(s)
		}
		if wildcardMatch(p, s) {
			return true
		}
	}
	return false
}

// wildcardMatch matches s against pattern, where * is any run of
// characters and ? any one character.
func wildcardMatch(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && (pattern[px] == '?' || pattern[px] == s[sx]):
			px++
			sx++
		case px < len(pattern) && pattern[px] == '*':
			star, mark = px, sx
			px++
		case star >= 0:
			px = star + 1
			mark++
			sx = mark
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// localAccount is the account of the ARNs an app authorizer sees locally.
const localAccount = "123456789012"

// authorizeLocal runs the route's app authorizer, if it has one, for the
// local server: nil when the request goes on to the route, with
// req.GatewayContext.Authorizer set; else API Gateway's answer.
func (a *App) authorizeLocal(ctx context.Context, e *pathEntry, route *route, req *Request, args []string, stage string) *result {
	decl := route.authorizerDecl
	if decl != nil && req.door == doorHTTP && jwtAuthorizes(decl) {
		claims, scopes, err := checkJWT(decl, req.Headers.Get(decl.Header), time.Now())
		if err != nil {
			return unauthorized()
		}
		req.GatewayContext.Authorizer = map[string]any{"claims": claims, "scopes": scopes}
		return nil
	}
	if decl == nil || decl.Type != manifest.AuthorizerApp {
		return nil
	}
	var res *result
	var passed map[string]any
	switch req.door {
	case doorREST:
		res, passed = a.authorizeREST(ctx, decl, newAuthCall(req, e, args, localAccount, req.GatewayContext.APIID, stage))
	case doorHTTP:
		res, passed = a.authorizeHTTP(ctx, decl, newAuthCall(req, e, args, localAccount, req.GatewayContext.APIID, "$default"))
	default:
		return nil // a function URL has no authorizers: synth refuses the route
	}
	if res != nil {
		return res // API Gateway's own answer: the caller adds the API's CORS headers, if any
	}
	req.GatewayContext.Authorizer = passed
	return nil
}

// appAuthorizerDecl returns the app authorizer protecting r, or nil when r
// is nil or has none.
func appAuthorizerDecl(r *route) *manifest.Authorizer {
	if r == nil || r.authorizerDecl == nil || r.authorizerDecl.Type != manifest.AuthorizerApp {
		return nil
	}
	return r.authorizerDecl
}

// authorizeEvent runs the app authorizer of the route ev reaches, if it
// has one, as the deployed REST API does before sending ev to the
// function: it returns API Gateway's refusal and true, or sets
// ev.RequestContext.Authorizer and returns false.
func (a *App) authorizeEvent(ctx context.Context, ev *events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool) {
	t, err := a.compiled()
	if err != nil {
		return nil, false
	}
	e, args := t.eventEntry(ev)
	if e == nil {
		return nil, false
	}
	req, _ := eventRequest(ctx, *ev)
	decl := appAuthorizerDecl(e.methods[req.Method])
	if decl == nil {
		return nil, false
	}
	rc := ev.RequestContext
	res, passed := a.authorizeREST(ctx, decl, newAuthCall(req, e, args, rc.AccountID, rc.APIID, rc.Stage))
	if res != nil {
		out := toProxyResponse(t.withGatewayCORS(res))
		return &out, true
	}
	ev.RequestContext.Authorizer = passed
	return nil, false
}

// authorizeEventV2 is authorizeEvent for the 2.0 event of an HTTP API.
func (a *App) authorizeEventV2(ctx context.Context, ev *events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool) {
	t, err := a.compiled()
	if err != nil || eventDoor(ev) != doorHTTP || ev.RouteKey == "$default" {
		return nil, false
	}
	e, args := t.eventEntryV2(ev)
	if e == nil {
		return nil, false
	}
	req, _, _ := eventRequestV2(ctx, *ev)
	route := e.methods[req.Method]
	if route != nil && route.authorizerDecl != nil && jwtAuthorizes(route.authorizerDecl) {
		claims, scopes, err := checkJWT(route.authorizerDecl, req.Headers.Get(route.authorizerDecl.Header), time.Now())
		if err != nil {
			out := toV2Response(unauthorized())
			return &out, true
		}
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: claims, Scopes: scopes},
		}
		return nil, false
	}
	decl := appAuthorizerDecl(route)
	if decl == nil {
		return nil, false
	}
	rc := ev.RequestContext
	res, passed := a.authorizeHTTP(ctx, decl, newAuthCall(req, e, args, rc.AccountID, rc.APIID, rc.Stage))
	if res != nil {
		out := toV2Response(res)
		return &out, true
	}
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: passed}
	return nil, false
}

// templatedGatewayResponses reports whether the deployed REST API has
// gateway responses of its own (DEFAULT_4XX and DEFAULT_5XX, carrying the
// CORS headers), whose template writes {"message": ...}: when every CORS
// route shares one setting (internal/openapi's SharedCORS).
func (a *App) templatedGatewayResponses() bool {
	t, err := a.compiled()
	return err == nil && t.gatewayCORS != nil
}

// authCache holds the app authorizers' answers API Gateway would cache.
type authCache struct {
	mu sync.Mutex
	m  map[string]cachedAuth
}

type cachedAuth struct {
	out   []byte
	until time.Time
}

// maxCachedAuth bounds the answers the cache holds.
const maxCachedAuth = 1024

// cacheKey is what API Gateway caches an authorizer's answer under: the
// API and stage, the authorizer and the identity source values.
func cacheKey(door string, decl *manifest.Authorizer, c *authCall) string {
	parts := []string{door, c.apiID, c.stage, decl.Name}
	if len(decl.IdentitySources) == 0 {
		parts = append(parts, c.req.Headers.Get(decl.Header))
	}
	for _, src := range decl.IdentitySources {
		place, name, _ := manifest.ParseIdentitySource(src)
		if place == manifest.IdentityQuery {
			parts = append(parts, strings.Join(c.req.QueryParams[name], ","))
		} else {
			parts = append(parts, c.req.Headers.Get(name))
		}
	}
	return strings.Join(parts, "\x00")
}

// get returns the answer cached under key at now, or nil.
func (c *authCache) get(key string, now time.Time) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && now.Before(e.until) {
		return e.out
	}
	return nil
}

// put caches out under key until until (nothing when until is not later
// than now: a TTL of 0).
func (c *authCache) put(key string, out []byte, until time.Time) {
	now := time.Now()
	if !until.After(now) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedAuth{}
	}
	if len(c.m) >= maxCachedAuth {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedAuth {
			clear(c.m)
		}
	}
	c.m[key] = cachedAuth{out: out, until: until}
}
