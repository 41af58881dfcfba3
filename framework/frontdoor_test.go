package framework_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
)

// httpAPIEvent and functionURLEvent are payload format 2.0 events in the
// shape each front door sends them, as raw JSON.
const httpAPIEvent = `{"version":"2.0","routeKey":"GET /users/{name}","rawPath":"/users/j%20d","rawQueryString":"tag=a&tag=b",
"cookies":["s=1","t=2"],"headers":{"accept":"*/*","x-dup":"1,2","host":"abc.execute-api.eu-west-1.amazonaws.com"},
"queryStringParameters":{"tag":"a,b"},"pathParameters":{"name":"j d"},
"requestContext":{"accountId":"123456789012","apiId":"abc","domainName":"abc.execute-api.eu-west-1.amazonaws.com","domainPrefix":"abc",
"http":{"method":"GET","path":"/users/j d","protocol":"HTTP/1.1","sourceIp":"192.0.2.1","userAgent":"curl/8"},
"authorizer":{"iam":{"accessKey":"AKIAEXAMPLE","accountId":"123456789012","callerId":"AIDAEXAMPLE","userArn":"arn:aws:iam::123456789012:user/ada","userId":"AIDAEXAMPLE"}},
"requestId":"req-1","routeKey":"GET /users/{name}","stage":"$default","time":"21/Nov/2026:10:00:00 +0000","timeEpoch":1795000000000},
"isBase64Encoded":false}`

const functionURLEvent = `{"version":"2.0","routeKey":"$default","rawPath":"/users/ada","rawQueryString":"",
"headers":{"accept":"*/*","host":"xyz.lambda-url.eu-west-1.on.aws"},
"requestContext":{"accountId":"anonymous","apiId":"xyz","domainName":"xyz.lambda-url.eu-west-1.on.aws","domainPrefix":"xyz",
"http":{"method":"GET","path":"/users/ada","protocol":"HTTP/1.1","sourceIp":"192.0.2.1","userAgent":"curl/8"},
"requestId":"req-2","routeKey":"$default","stage":"$default","time":"21/Nov/2026:10:00:00 +0000","timeEpoch":1795000000000},
"isBase64Encoded":false}`

func frontDoorApp() *framework.App {
	app := framework.New("doors")
	app.Route("/users/{name}", func(r *framework.Request, name string) (any, error) {
		return map[string]any{
			"name": name, "path": r.Path, "tags": r.QueryParams.GetAll("tag"), "cookie": r.Headers.Get("cookie"), "dup": r.Headers.Get("x-dup"),
			"resource": r.GatewayContext.ResourcePath, "caller": r.GatewayContext.Identity.UserArn, "ip": r.GatewayContext.Identity.SourceIP,
			"has_v2_event": r.HTTPEvent() != nil, "has_v1_event": r.Event() != nil,
		}, nil
	})
	app.Route("/cookies", func(r *framework.Request) (any, error) {
		return framework.Response{Body: "ok", MultiValueHeaders: map[string][]string{"Set-Cookie": {"a=1", "b=2"}, "X-Multi": {"x", "y"}}}, nil
	})
	return app
}

// TestLambdaServesV2Events: the API function's one dispatch point tells a
// 2.0 event from a REST API's by its shape and answers it with a 2.0
// response, the request mapped field by field as the README says.
func TestLambdaServesV2Events(t *testing.T) {
	h := apphook.Of(frontDoorApp())
	out, err := h.Invoke(context.Background(), "api", []byte(httpAPIEvent))
	if err != nil {
		t.Fatal(err)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil || resp.StatusCode != 200 {
		t.Fatalf("response %s (%v)", out, err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "j d", "path": "/users/j d", "tags": []any{"a", "b"}, "cookie": "s=1; t=2", "dup": "1,2",
		"resource": "/users/{name}", "caller": "arn:aws:iam::123456789012:user/ada", "ip": "192.0.2.1", "has_v2_event": true, "has_v1_event": false}
	for k, v := range want {
		if g, _ := json.Marshal(got[k]); string(g) != mustJSON(v) {
			t.Errorf("%s = %s, want %s", k, g, mustJSON(v))
		}
	}

	// A function URL sends every request: the function routes it.
	out, err = h.Invoke(context.Background(), "api", []byte(functionURLEvent))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Body, `"name":"ada"`) {
		t.Fatalf("function URL response %s (%v)", out, err)
	}
	unknown := strings.Replace(functionURLEvent, `"rawPath":"/users/ada"`, `"rawPath":"/nope"`, 1)
	out, _ = h.Invoke(context.Background(), "api", []byte(unknown))
	if err := json.Unmarshal(out, &resp); err != nil || resp.StatusCode != 404 || resp.Body != `{"message":"Not Found"}` {
		t.Errorf("function URL, unknown path: %s, want 404 Not Found", out)
	}
	// Cookies go in their own field, other repeated headers are joined.
	cookies := strings.NewReplacer(`"rawPath":"/users/ada"`, `"rawPath":"/cookies"`).Replace(functionURLEvent)
	out, _ = h.Invoke(context.Background(), "api", []byte(cookies))
	if err := json.Unmarshal(out, &resp); err != nil || strings.Join(resp.Cookies, " ") != "a=1 b=2" || resp.Headers["X-Multi"] != "x,y" || resp.Headers["Set-Cookie"] != "" {
		t.Errorf("2.0 response %s: want cookies [a=1 b=2] and X-Multi x,y", out)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
