package config

import (
	"strings"
	"testing"
)

// TestLambdaFunctions: lambda_functions.<name> overrides memory and timeout
// per function, top level then stage, key by key; bad entries name their key path.
func TestLambdaFunctions(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"version": "1.0", "app_name": "ev", "lambda_memory_size": 256,
		"lambda_functions": {"nightly": {"lambda_memory_size": 1024, "lambda_timeout": 300}, "resize": {"lambda_timeout": 30}},
		"stages": {"prod": {"lambda_timeout": 20, "lambda_functions": {"nightly": {"lambda_timeout": 900}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stage string
		want  map[string]FunctionConfig
	}{
		{"dev", map[string]FunctionConfig{"nightly": {1024, 300}, "resize": {256, 30}}},
		{"prod", map[string]FunctionConfig{"nightly": {1024, 900}, "resize": {256, 30}}},
	} {
		st, err := f.Stage(tc.stage)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range tc.want {
			if got := st.LambdaFunctions[name]; got != want {
				t.Errorf("stage %s: %s = %+v, want %+v", tc.stage, name, got, want)
			}
		}
	}
	for _, tc := range []struct{ doc, want string }{
		{`{"lambda_functions": {"nightly": {"lambda_timeout": 901}}}`, "config.json: lambda_functions.nightly.lambda_timeout: 901 is out of range"},
		{`{"lambda_functions": {"nightly": {"memory": 512}}}`, "config.json: lambda_functions.nightly.memory: unknown key"},
		{`{"lambda_functions": {"nightly cleanup": {}}}`, `config.json: lambda_functions.nightly cleanup: "nightly cleanup" is not a function name`},
		{`{"lambda_functions": []}`, "config.json: lambda_functions: must be an object, not an array"},
		{`{"stages": {"prod": {"lambda_functions": {"x": {"lambda_memory_size": 64}}}}}`, "config.json: stages.prod.lambda_functions.x.lambda_memory_size: 64 is out of range"},
	} {
		_, err := Parse("config.json", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want %q", tc.doc, err, tc.want)
		}
	}
}
