package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/mototest"
)

// TestQueueDefaultsTemplateAndEmulator: the queues an app declares
// without a visibility timeout get the same one in the synthesized
// template and at the emulator framework local creates them in, from the
// same .framework/config.json: 6 × the feeding handler's own timeout plus
// its batching window for the fed queue, SQS's 30 s for the other.
func TestQueueDefaultsTemplateAndEmulator(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".framework"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".framework", "config.json"), []byte(`{"version": "1.0", "app_name": "shop", "lambda_timeout": 20,
		"lambda_functions": {"worker": {"lambda_timeout": 45}}, "stages": {"dev": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, App: "shop", Routes: []manifest.Route{route("/", "GET")},
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}, {Name: "spare", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs", BatchSize: 20, MaxBatchingWindowSeconds: 10}}}
	want := map[string]int{"jobs": 6*45 + 10, "spare": 30}

	cfg, err := constructs.LoadConfig(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	res, err := assemble(context.Background(), prebuilt(t, m, "dev", cfg, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	found := 0
	for id := range tpl.ofType("AWS::SQS::Queue") {
		for name, vis := range want {
			if regexp.MustCompile(`^AppRes` + strings.ToUpper(name[:1]) + name[1:] + `[0-9A-F]{8}$`).MatchString(id) {
				found++
				if got := tpl.Resources[id].Properties["VisibilityTimeout"]; got != float64(vis) {
					t.Errorf("template: queue %s visibility timeout %v, want %d", name, got, vis)
				}
			}
		}
	}

	if found != len(want) {
		t.Fatalf("template: %d of the queues %v found", found, want)
	}

	moto := mototest.Start(t)
	for k, v := range moto.Environ(t.TempDir()) {
		t.Setenv(k, v)
	}
	stage, err := declspec.Load(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	r, err := localres.Resolve(context.Background(), m, localres.Options{App: "shop", Stage: "dev", Endpoint: moto.URL, Config: stage})
	if err != nil {
		t.Fatal(err)
	}
	for name, vis := range want {
		var out struct{ Attributes map[string]string }
		if err := r.Client.Call(context.Background(), "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": r.Attrs[name][manifest.AttrURL], "AttributeNames": []string{"VisibilityTimeout"}}, &out); err != nil {
			t.Fatal(err)
		}
		if got := out.Attributes["VisibilityTimeout"]; got != strconv.Itoa(vis) {
			t.Errorf("emulator: queue %s visibility timeout %s, want %d as in the template", name, got, vis)
		}
	}
}
