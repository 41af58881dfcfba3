package framework

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"strings"
	"testing"
)

// TestAccessLineV2: in Lambda mode a 2.0 event (HTTP API or function URL)
// gets the same access line as a REST event, through the one dispatch
// point, with its route pattern as resource; access_log false stops it.
func TestAccessLineV2(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	for _, door := range []string{doorHTTP, doorFunctionURL} {
		app := accessApp(t)
		ev, _ := json.Marshal(app.gatewayEventV2("GET", "/users/ada", nil, nil, "$default", door))
		var out bytes.Buffer
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		app.apiEvents = app.lambdaServe(&out, "")
		if _, err := app.invokeNamed(lambdaCtx("r-"+door), "api", ev); err != nil {
			t.Fatal(err)
		}
		var line map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &line); err != nil {
			t.Fatalf("%s: access output %q: %v", door, out.String(), err)
		}
		resource := "/users/{name}" // behind a function URL, the pattern the function matched
		if line["type"] != "access" || line["method"] != "GET" || line["path"] != "/users/ada" || line["resource"] != resource ||
			line["status"] != 200.0 || line["request_id"] != "r-"+door || line["api_request_id"] != "test-request" {
			t.Errorf("%s: access line %v", door, line)
		}
		out.Reset()
		app.apiEvents = app.lambdaServe(&out, "false")
		if _, err := app.invokeNamed(lambdaCtx("r2"), "api", ev); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), `"type":"access"`) {
			t.Errorf("%s: access_log false still wrote %s", door, out.String())
		}
	}
}
