package framework

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/internal/manifest"
)

// handleEvent answers one API Gateway REST API (v1) proxy event: the Lambda
// side of the app. It translates the event into a Request, runs the same
// pipeline as local serving and translates the result back; a binary
// response is returned base64-encoded with IsBase64Encoded set.
func (a *App) handleEvent(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return toProxyResponse(a.resultREST(ctx, ev)), nil
}

// resultREST is the answer to a REST API proxy event, before it is encoded.
func (a *App) resultREST(ctx context.Context, ev events.APIGatewayProxyRequest) *result {
	t, err := a.compiled()
	if err != nil {
		return &result{status: 500, headers: []manifest.HeaderField{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}}, body: []byte(err.Error())}
	}
	req, body := eventRequest(ctx, ev)
	if body == nil && ev.Body != "" {
		return jsonResult(400, errorBody{Code: "BadRequest", Message: "the event's body is marked base64-encoded but is not valid base64"})
	}
	req.RawBody = body
	e, args := t.eventEntry(&ev)
	// API Gateway answers unknown routes and preflights itself; an event
	// that gets one here was not sent by the REST API this app was
	// deployed with.
	res, route := routeAnswer(e, req.Method)
	if res == nil {
		res = a.serveRoute(t, e, route, req, args)
	}
	return res
}

// eventRequest builds the Request of an event; body is nil when the event
// has none or when its base64 is invalid. The Request keeps a copy of the
// event for Event, allocated with it.
func eventRequest(ctx context.Context, event events.APIGatewayProxyRequest) (*Request, []byte) {
	box := &struct {
		req Request
		ev  events.APIGatewayProxyRequest
	}{ev: event}
	ev := &box.ev
	req := &box.req
	// A REST API sends the path as the client did, percent-encoded; the
	// handler gets it decoded, as the local server and the HTTP API give it.
	req.Method, req.Path, req.ctx, req.event = strings.ToUpper(ev.HTTPMethod), unescapeSegment(ev.Path), ctx, ev
	// Names that differ only in case are one header: their values are
	// merged in sorted name order, so the same event always gives the
	// same request.
	req.Headers = make(Headers, len(ev.Headers))
	var buf [16]string
	for _, k := range sortedKeysInto(buf[:0], ev.MultiValueHeaders) {
		lk := strings.ToLower(k)
		req.Headers[lk] = append(req.Headers[lk], ev.MultiValueHeaders[k]...)
	}
	var single map[string]bool // names taken from ev.Headers
	for _, k := range sortedKeysInto(buf[:0], ev.Headers) {
		lk := strings.ToLower(k)
		if _, inMulti := req.Headers[lk]; inMulti && !single[lk] {
			continue
		}
		if single == nil {
			single = map[string]bool{}
		}
		single[lk] = true
		req.Headers[lk] = append(req.Headers[lk], ev.Headers[k])
	}
	if len(ev.MultiValueQueryStringParameters) > 0 {
		req.QueryParams = make(MultiDict, len(ev.MultiValueQueryStringParameters))
		for k, v := range ev.MultiValueQueryStringParameters {
			req.QueryParams[k] = append([]string(nil), v...)
		}
	} else {
		req.QueryParams = eventQuery(ev.QueryStringParameters, false)
	}
	if len(ev.StageVariables) > 0 {
		req.StageVars = ev.StageVariables
	}
	rc := ev.RequestContext
	id := rc.Identity
	req.GatewayContext = RequestContext{
		APIID: rc.APIID, HTTPMethod: rc.HTTPMethod, RequestID: rc.RequestID, ResourceID: rc.ResourceID,
		ResourcePath: rc.ResourcePath, Stage: rc.Stage, Authorizer: rc.Authorizer,
		Identity: Identity{
			AccessKey: strOrNil(id.AccessKey), AccountID: strOrNil(id.AccountID), APIKey: strOrNil(id.APIKey),
			Caller: strOrNil(id.Caller), UserpoolAuthenticationProvider: strOrNil(id.CognitoAuthenticationProvider),
			UserpoolAuthenticationType: strOrNil(id.CognitoAuthenticationType), UserpoolIdentityID: strOrNil(id.CognitoIdentityID),
			UserpoolIdentityPoolID: strOrNil(id.CognitoIdentityPoolID), SourceIP: strOrNil(id.SourceIP),
			UserAgent: strOrNil(id.UserAgent), UserArn: strOrNil(id.UserArn),
		},
	}
	if ev.Body == "" {
		return req, nil
	}
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return req, nil
		}
		return req, b
	}
	return req, []byte(ev.Body)
}

func toProxyResponse(res *result) events.APIGatewayProxyResponse {
	if res.stream != nil {
		res = res.buffered()
	}
	out := events.APIGatewayProxyResponse{StatusCode: res.status, MultiValueHeaders: make(map[string][]string, len(res.headers))}
	for _, h := range res.headers {
		out.MultiValueHeaders[h.Name] = append(out.MultiValueHeaders[h.Name], h.Value)
	}
	out.Body, out.IsBase64Encoded = res.encodedBody()
	return out
}

// encodedBody is the body of an answer to an event: base64 when it is
// binary.
func (res *result) encodedBody() (body string, base64Encoded bool) {
	return eventBody(res.body, res.binary)
}

// eventBody is body as an event or its answer carries it: base64 when it
// is binary.
func eventBody(body []byte, binary bool) (string, bool) {
	if binary {
		return base64.StdEncoding.EncodeToString(body), true
	}
	return string(body), false
}

// bodyOver tells whether an event's body, base64 or not, holds more than
// max bytes.
func bodyOver(body string, base64Encoded bool, max int64) bool {
	n := int64(len(body))
	if base64Encoded {
		n = int64(base64.StdEncoding.DecodedLen(len(body)))
	}
	return n > max
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// unescapeSegment percent-decodes one path segment (or a whole path),
// leaving it as is when it is not valid percent-encoding.
func unescapeSegment(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// escapePath returns an event's path percent-encoded, to be matched segment
// by segment: as it is when it is valid percent-encoding (a REST API sends
// the path as the client did), else encoded (a path written decoded, by
// hand).
func escapePath(p string) string {
	if dec, err := url.PathUnescape(p); err == nil {
		return (&url.URL{Path: dec, RawPath: p}).EscapedPath()
	}
	return (&url.URL{Path: p}).EscapedPath()
}
