package remote

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"
)

// TestResolveHandlerFunctions: each event handler and plain function is
// found by its handler name, as the stack's outputs list them.
func TestResolveHandlerFunctions(t *testing.T) {
	outputs := map[string]string{
		names.OutputFunctionName:                "events-dev-Function-AAA",
		names.OutputFunctionArn:                 "arn:aws:lambda:us-east-1:1:function:events-dev-Function-AAA",
		names.FunctionOutput("nightly-cleanup"): "events-dev-Fnnightly-BBB",
		names.FunctionOutput("orders"):          "events-dev-Fnorders-CCC",
		names.OutputEndpointURL:                 "https://x/dev/",
	}
	var got []string
	for _, f := range Functions(outputs) {
		got = append(got, f.Name+"="+f.FunctionName)
	}
	if want := "api=events-dev-Function-AAA nightly-cleanup=events-dev-Fnnightly-BBB orders=events-dev-Fnorders-CCC"; strings.Join(got, " ") != want {
		t.Errorf("Functions = %v, want %s", got, want)
	}
	for name, want := range map[string]string{"nightly-cleanup": "events-dev-Fnnightly-BBB", "events-dev-Fnorders-CCC": "events-dev-Fnorders-CCC", "": "events-dev-Function-AAA"} {
		f, err := Resolve("events", "dev", outputs, name)
		if err != nil || f.FunctionName != want {
			t.Errorf("Resolve(%q) = %+v, %v; want %s", name, f, err, want)
		}
	}
	if _, err := Resolve("events", "dev", outputs, "nope"); err == nil || !strings.Contains(err.Error(), "its functions are: api, nightly-cleanup, orders") {
		t.Errorf("Resolve(nope) = %v", err)
	}
}
