package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
)

// frontDoorDiffers are the kitchensink cases whose answer behind an HTTP
// API or a function URL differs from a REST API's, as the README lists:
// an unknown route or method is 404 {"message":"Not Found"}, not 403; a
// binary response needs no Accept header naming its type.
var frontDoorDiffers = map[string]func(c ksCase) ksCase{
	"options on non-cors route": notFoundCase,
	"unknown path":              notFoundCase,
	"undeclared method":         notFoundCase,
	"binary out wrong accept 400": func(c ksCase) ksCase {
		c.status, c.contains, c.wantBody = 200, "", binaryOut
		return c
	},
	"binary out no accept 400": func(c ksCase) ksCase {
		c.status, c.contains, c.wantBody = 200, "", binaryOut
		return c
	},
	"json is binary: strict accept": func(c ksCase) ksCase {
		c.status, c.contains, c.wantJSON = 200, "", `{"hello":"world"}`
		return c
	},
}

func notFoundCase(c ksCase) ksCase {
	c.status, c.wantJSON = 404, `{"message":"Not Found"}`
	return c
}

// TestKitchensinkFrontDoors runs every kitchensink case behind each front
// door other than the REST API, through the local handler (`framework
// local --stage S` with that api_type) and through the Lambda adapter with
// the payload format 2.0 event the front door sends: both answer alike,
// and as the REST API does except where frontDoorDiffers says.
func TestKitchensinkFrontDoors(t *testing.T) {
	for _, door := range []string{"http", "function_url"} {
		for _, c := range ksCases {
			if f := frontDoorDiffers[c.name]; f != nil {
				c = f(c)
			}
			for _, via := range []string{"local", "lambda"} {
				t.Run(door+"/"+c.name+"/"+via, func(t *testing.T) { runCase(t, c, door, via) })
			}
		}
	}
}

// TestFrontDoorEncoding: behind an HTTP API or a function URL, cookies
// travel in their own field both ways, repeated request headers arrive
// joined by commas and repeated query keys keep every value.
func TestFrontDoorEncoding(t *testing.T) {
	for _, door := range []string{"http", "function_url"} {
		client := frameworktest.New(newApp())
		client.APIType = door
		for _, via := range []string{"local", "lambda"} {
			resp := send(client, via, "GET", "/headers", nil, nil)
			if got := resp.Header("Set-Cookie"); strings.Join(got, ";") != "a=1;b=2" {
				t.Errorf("%s %s: Set-Cookie = %q, want a=1 and b=2", door, via, got)
			}
		}
		ev := client.HTTPEvent("GET", "/headers", nil, map[string]string{"Cookie": "a=1; b=2"})
		out, err := apphook.Of(newApp()).HandleHTTPEvent(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(out.Cookies, ";") != "a=1;b=2" || out.Headers["Set-Cookie"] != "" {
			t.Errorf("%s: the 2.0 response has cookies %q and headers %v: Set-Cookie belongs in cookies", door, out.Cookies, out.Headers)
		}

		// The handler sees the cookies as one Cookie header and a
		// repeated query key with each of its values.
		ev = client.HTTPEvent("POST", "/echo?a=1&a=2", []byte(`{}`), map[string]string{"Content-Type": "application/json", "Cookie": "x=1; y=2"})
		ev.Headers["x-multi"] = "one,two" // how the front door delivers a repeated header
		out, _ = apphook.Of(newApp()).HandleHTTPEvent(context.Background(), ev)
		var echo struct {
			Headers     map[string]string `json:"headers"`
			QueryParams map[string]string `json:"query_params"`
		}
		body := []byte(out.Body)
		if out.IsBase64Encoded { // application/json is among the kitchensink's binary types
			body, _ = base64.StdEncoding.DecodeString(out.Body)
		}
		if err := json.Unmarshal(body, &echo); err != nil {
			t.Fatalf("%s: %d %s", door, out.StatusCode, out.Body)
		}
		if echo.Headers["cookie"] != "x=1; y=2" || echo.Headers["x-multi"] != "one,two" || echo.QueryParams["a"] != "2" {
			t.Errorf("%s: the handler saw headers %v and query %v", door, echo.Headers, echo.QueryParams)
		}
		resp := client.Lambda("GET", "/qs?a=1&a=2&b=x%20y", nil, nil)
		var qs struct{ Lists map[string][]string }
		if err := resp.JSON(&qs); err != nil || strings.Join(qs.Lists["a"], ",") != "1,2" || strings.Join(qs.Lists["b"], ",") != "x y" {
			t.Errorf("%s: repeated query keys: %s", door, resp.Body)
		}
	}
}
