package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthStreaming: an app with a streaming route (examples/streaming's
// url stage, then a manifest) gets a function URL in RESPONSE_STREAM mode, or a REST API whose streaming route (and only it)
// has the streaming integration; an HTTP API stage is refused with
// StreamingHTTPAPIError, naming the route and the two front doors that
// stream. Both templates pass cfn-lint.
func TestSynthStreaming(t *testing.T) {
	ctx := context.Background()
	ticks := route("/ticks", "GET")
	ticks.Streaming = true
	m := &manifest.Manifest{Version: manifest.Version, App: "streamer", Routes: []manifest.Route{route("/", "GET"), ticks}}

	// examples/streaming's url stage, as framework synth --stage url builds it.
	t.Setenv(build.CacheDirEnv, t.TempDir())
	res, err := Synth(ctx, Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "streaming"), Stage: "url", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if u := readTemplate(t, res.TemplatePath).one(t, "AWS::Lambda::Url"); u.Properties["InvokeMode"] != "RESPONSE_STREAM" {
		t.Errorf("function URL %v, want InvokeMode RESPONSE_STREAM", u.Properties)
	}
	cfnLint(t, res.TemplatePath)
	res, err = assemble(ctx, prebuilt(t, m, "dev", &constructs.Config{APIType: constructs.APIFunctionURL}, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := readTemplate(t, res.TemplatePath).one(t, "AWS::Lambda::Url"); u.Properties["InvokeMode"] != "RESPONSE_STREAM" {
		t.Errorf("function URL %v, want InvokeMode RESPONSE_STREAM", u.Properties)
	}

	res, err = assemble(ctx, prebuilt(t, m, "dev", &constructs.Config{TimeoutSeconds: 120}, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	api := readTemplate(t, res.TemplatePath).one(t, "AWS::ApiGateway::RestApi")
	body, _ := json.Marshal(api.Properties["Body"])
	var doc struct {
		Paths map[string]map[string]struct {
			Integration map[string]any `json:"x-amazon-apigateway-integration"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	stream := doc.Paths["/ticks"]["get"].Integration
	uri, _ := json.Marshal(stream["uri"])
	if stream["responseTransferMode"] != "STREAM" || !strings.Contains(string(uri), "2021-11-15/functions/") || !strings.Contains(string(uri), "/response-streaming-invocations") || stream["timeoutInMillis"] != 120000.0 {
		t.Errorf("the streaming route's integration %v", stream)
	}
	plain := doc.Paths["/"]["get"].Integration
	uri, _ = json.Marshal(plain["uri"])
	if plain["responseTransferMode"] != nil || !strings.Contains(string(uri), "/invocations") || strings.Contains(string(uri), "streaming") {
		t.Errorf("the other route's integration %v", plain)
	}
	cfnLint(t, res.TemplatePath)

	zip := filepath.Join(t.TempDir(), "function.zip")
	if err := os.WriteFile(zip, []byte("stand-in package"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = constructs.Prepare(ctx, &constructs.AppProps{Manifest: m, PackageZip: zip, Stage: "dev", Config: &constructs.Config{APIType: constructs.APIHTTP}}, nil)
	var se *config.StreamingHTTPAPIError
	if !errors.As(err, &se) || se.Path != "/ticks" {
		t.Fatalf("HTTP API stage: %v, want a StreamingHTTPAPIError for /ticks", err)
	}
	for _, want := range []string{"StreamingHTTPAPIError", "route /ticks", "cannot stream", `"function_url"`, `"rest"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
}
