package test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/frameworktest"
)

// frontDoorCases changes the kitchensink cases whose answer behind an HTTP
// API or a function URL differs from a REST API's, as the README's front
// door table says; the function gives the 404 of an unknown route only
// behind a function URL (an HTTP API answers it itself).
var frontDoorCases = map[string]func(t *testing.T, got response){
	"binary response without Accept": func(t *testing.T, got response) {
		wantStatus(t, got, 200) // both front doors decode base64 whatever Accept says
		if !bytes.HasPrefix(got.rawBody, []byte{0x89, 'P', 'N', 'G'}) {
			t.Errorf("binary body %q, want the PNG bytes", got.rawBody)
		}
	},
	"unknown path":      func(t *testing.T, got response) { wantJSON(t, got, 404, `{"message":"Not Found"}`) },
	"undeclared method": func(t *testing.T, got response) { wantJSON(t, got, 404, `{"message":"Not Found"}`) },
}

// TestLambdaParityFrontDoors replays the kitchensink cases as the payload
// 2.0 events of an HTTP API and of a function URL to the kitchensink
// binary running as a Lambda function (the Runtime API protocol, against
// a stand-in on 127.0.0.1), and checks the answers with the REST API's
// assertions, but where frontDoorCases says they differ.
func TestLambdaParityFrontDoors(t *testing.T) {
	twin, invoke := kitchensinkLambda(t)
	for _, door := range []string{"http", "function_url"} {
		client := frameworktest.New(twin)
		client.APIType = door
		for _, c := range kitchensinkCases() {
			check := c.check
			if f := frontDoorCases[c.name]; f != nil {
				check = f
			}
			gatewaySays := door == "http" && (c.name == "unknown path" || c.name == "undeclared method")
			t.Run(door+"/"+c.name, func(t *testing.T) {
				headers := c.req.clientHeaders()
				if gatewaySays {
					// The HTTP API answers without the function: the client's answer.
					check(t, v2Response(t, *client.Lambda(c.req.method, c.req.path, c.req.body, headers)))
					return
				}
				var r events.APIGatewayV2HTTPResponse
				invoke(t, client.HTTPEvent(c.req.method, c.req.path, c.req.body, headers), &r)
				if r.StatusCode == 0 {
					t.Fatalf("function answered without a status code: %+v", r)
				}
				// Each cookie is a Set-Cookie header.
				h := http.Header{}
				for k, v := range r.Headers {
					h.Set(k, v)
				}
				for _, c := range r.Cookies {
					h.Add("Set-Cookie", c)
				}
				check(t, clientResponse(t, r.StatusCode, h, r.Body, r.IsBase64Encoded))
			})
		}
	}
}

func v2Response(t *testing.T, r frameworktest.Response) response {
	t.Helper()
	return response{status: r.StatusCode, header: r.Headers, body: string(r.Body), rawBody: r.Body}
}
