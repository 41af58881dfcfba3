package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestRuntimeAPIStreaming runs the example's binary, built as deployed,
// against the Runtime API stand-in: behind a function URL (whose invoke
// mode is RESPONSE_STREAM, as the app streams) every answer uses the
// streamed response mode, the JSON prelude and its 8 NUL bytes first;
// behind a REST API only the streaming route's does, the page being the
// usual proxy response.
func TestRuntimeAPIStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the function binary")
	}
	bin := testutil.BuildBootstrap(t, ".")
	fn := testutil.StartFunction(t, bin, build.AppEnviron(os.Environ()), runtimeapi.WithTimeout(20*time.Second))
	urlEvent := func(path string) []byte {
		b, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "$default", RawPath: path, Headers: map[string]string{},
			RequestContext: events.APIGatewayV2HTTPRequestContext{RouteKey: "$default", DomainName: "abc.lambda-url.us-east-1.on.aws", Stage: "$default",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: path}}})
		return b
	}
	restEvent := func(path string) []byte {
		b, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: path, Resource: path})
		return b
	}
	invoke := func(t *testing.T, event []byte) *runtimeapi.StreamResponse {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		t.Cleanup(cancel)
		sr, err := fn.InvokeStream(ctx, event)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sr.Close() })
		return sr
	}
	// prelude checks the streamed mode and returns the prelude and a
	// reader of the body after it.
	prelude := func(t *testing.T, sr *runtimeapi.StreamResponse) (map[string]any, *bufio.Reader) {
		t.Helper()
		if sr.Mode != "streaming" || !sr.Chunked || sr.ContentType != "application/vnd.awslambda.http-integration-response" {
			t.Fatalf("mode %q, chunked %v, Content-Type %q: want the streamed response mode", sr.Mode, sr.Chunked, sr.ContentType)
		}
		br := bufio.NewReader(sr)
		var head []byte
		for !bytes.HasSuffix(head, make([]byte, 8)) {
			b, err := br.ReadByte()
			if err != nil {
				t.Fatalf("no 8 NUL bytes after the prelude: %q, %v", head, err)
			}
			head = append(head, b)
		}
		var p map[string]any
		if err := json.Unmarshal(head[:len(head)-8], &p); err != nil {
			t.Fatalf("prelude %q: %v", head, err)
		}
		return p, br
	}
	want := "id: 1\ndata: tick 1\n\nid: 2\ndata: tick 2\n\nid: 3\ndata: tick 3\n\nid: 4\ndata: tick 4\n\nid: 5\ndata: tick 5\n\n"

	t.Run("function URL, streaming route", func(t *testing.T) {
		sr := invoke(t, urlEvent("/ticks"))
		p, body := prelude(t, sr)
		if p["statusCode"] != 200.0 || p["headers"].(map[string]any)["Content-Type"] != "text/event-stream" {
			t.Errorf("prelude %v", p)
		}
		if b, _ := io.ReadAll(body); string(b) != want || sr.Err() != nil {
			t.Errorf("body %q (%v), want %q", b, sr.Err(), want)
		}
	})
	t.Run("function URL, route that does not stream", func(t *testing.T) {
		sr := invoke(t, urlEvent("/"))
		p, body := prelude(t, sr)
		if p["statusCode"] != 200.0 || !strings.HasPrefix(p["headers"].(map[string]any)["Content-Type"].(string), "text/html") {
			t.Errorf("prelude %v", p)
		}
		if b, _ := io.ReadAll(body); !strings.Contains(string(b), "EventSource") {
			t.Errorf("body %q", b)
		}
	})
	t.Run("function URL, unknown route", func(t *testing.T) {
		p, _ := prelude(t, invoke(t, urlEvent("/nope")))
		if p["statusCode"] != 404.0 {
			t.Errorf("prelude %v", p)
		}
	})
	t.Run("REST API, streaming route", func(t *testing.T) {
		sr := invoke(t, restEvent("/ticks"))
		p, body := prelude(t, sr)
		if p["statusCode"] != 200.0 || p["multiValueHeaders"].(map[string]any)["Content-Type"].([]any)[0] != "text/event-stream" {
			t.Errorf("prelude %v", p)
		}
		if b, _ := io.ReadAll(body); string(b) != want {
			t.Errorf("body %q, want %q", b, want)
		}
	})
	t.Run("REST API, route that does not stream", func(t *testing.T) {
		sr := invoke(t, restEvent("/"))
		b, _ := io.ReadAll(sr)
		if sr.Mode != "buffered" {
			t.Errorf("mode %q: a REST route that does not stream has a buffered integration", sr.Mode)
		}
		var out events.APIGatewayProxyResponse
		if err := json.Unmarshal(b, &out); err != nil || out.StatusCode != 200 || !strings.Contains(out.Body, "EventSource") {
			t.Errorf("proxy response %s: %v", b, err)
		}
	})
	if !strings.Contains(fn.Output.String(), `"resource":"/ticks"`) {
		t.Errorf("no access line for the streamed answers:\n%s", fn.Output.String())
	}
}
