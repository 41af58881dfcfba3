package gendocs

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/scaffold"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestGeneratedFilesFresh fails while a committed reference page or the
// JSON Schema differs from what the code generates now: a command, flag
// or configuration key was changed without regenerating them.
func TestGeneratedFilesFresh(t *testing.T) {
	root := testutil.RepoRoot(t)
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case os.IsNotExist(err):
			t.Errorf("%s is missing: run `%s` (or `go generate ./...`) and commit it", name, Command)
		case err != nil:
			t.Error(err)
		case !bytes.Equal(got, files[name]):
			t.Errorf("%s is stale: it differs from what the code generates at line %d; run `%s` (or `go generate ./...`) and commit the result", name, firstDiffLine(got, files[name]), Command)
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// compileSchema compiles the generated schema with an independent
// validator, which also checks it against the draft 2020-12 metaschema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := ConfigSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(config.SchemaURL(""), doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(config.SchemaURL(""))
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

func validate(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestSchemaAcceptsProjects validates the examples' configurations and
// the one new-project writes (released and development builds).
func TestSchemaAcceptsProjects(t *testing.T) {
	s := compileSchema(t)
	paths, err := filepath.Glob(filepath.Join(testutil.RepoRoot(t), "examples", "*", ".framework", "config.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example configuration found (%v)", err)
	}
	docs := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = data
	}
	for name, o := range map[string]scaffold.Options{
		"new-project (release)":     {Name: "orders", FrameworkVersion: "v0.3.0"},
		"new-project (development)": {Name: "orders", FrameworkDir: "/src/framework"},
	} {
		f := scaffold.Config(o)
		if f.Schema == "" {
			t.Errorf("%s: no $schema", name)
		}
		data, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = data
	}
	for name, data := range docs {
		if err := validate(s, data); err != nil {
			t.Errorf("%s does not match the schema: %v", name, err)
		}
		if _, err := config.Parse(name, data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSchemaAgreesWithParser probes every key of the table with valid and
// invalid values (its example, a value of the wrong type, each allowed
// value, the bounds and just beyond them), at the top level and in a
// stage, and checks that the schema and the parser both accept or both
// refuse each; and that an unknown key fails both.
func TestSchemaAgreesWithParser(t *testing.T) {
	s := compileSchema(t)
	type probe struct {
		doc  string
		want bool // valid
	}
	var probes []probe
	add := func(k config.Key, value string, want bool) {
		member := fmt.Sprintf("%q: %s", k.Name, value)
		if k.With != "" {
			member += ", " + k.With
		}
		switch k.Scope {
		case config.TopLevel:
			if k.Name != "version" {
				member = `"version": "1.0", ` + member
			}
			probes = append(probes, probe{"{" + member + "}", want})
		case config.PerStage:
			probes = append(probes,
				probe{`{"version": "1.0", ` + member + `}`, want},
				probe{`{"version": "1.0", "stages": {"dev": {` + member + `}}}`, want})
		}
	}
	for _, k := range config.Keys {
		add(k, k.Example, true)
		add(k, wrongType(k.Type), false)
		for _, v := range k.Enum {
			add(k, jsonValue(v), true)
		}
		if len(k.Enum) > 0 {
			add(k, jsonValue(notIn(k.Enum)), false)
		}
		if k.Min != nil {
			add(k, fmtNum(*k.Min), true)
			add(k, fmtNum(*k.Min-1), false)
		}
		if k.Max != nil {
			add(k, fmtNum(*k.Max), true)
			add(k, fmtNum(*k.Max+1), false)
		}
		if k.MaxItems > 0 {
			items := strings.Repeat(strings.Trim(k.Example, "[]")+", ", k.MaxItems+1)
			add(k, "["+strings.TrimSuffix(items, ", ")+"]", false)
		}
	}
	probes = append(probes,
		probe{`{"version": "1.0", "lambda_memory": 512}`, false},
		probe{`{"version": "1.0", "stages": {"dev": {"lambda_memory": 512}}}`, false},
		probe{`{"version": "1.0", "lambda_memory_size": "512"}`, false},
		probe{`{"version": "1.0", "stages": {"dev": {"app_name": "x"}}}`, false},
		probe{`{"version": "1.0", "stages": {"dev_1": {}}}`, false},
		probe{`{"version": "1.0", "api_gateway_custom_domain": {"domain_name": "api.example.com"}}`, false},
		probe{`{"version": "1.0", "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:us-east-1:123456789012:certificate/abc", "zone": "x"}}`, false},
		probe{`{"version": "1.0", "lambda_functions": {"fn": {"lambda_memory_size": 64}}}`, false},
		probe{`{"version": "1.0", "lambda_functions": {"fn": {"memory": 256}}}`, false},
		probe{`{"version": "1.0", "environment_variables": {"A_B": 1}}`, false},
	)
	for _, p := range probes {
		schemaErr := validate(s, []byte(p.doc))
		_, parseErr := config.Parse("config.json", []byte(p.doc))
		if (schemaErr == nil) != p.want {
			t.Errorf("schema: %s: valid %v, want %v (%v)", p.doc, schemaErr == nil, p.want, schemaErr)
		}
		if (parseErr == nil) != p.want {
			t.Errorf("parser: %s: valid %v, want %v (%v)", p.doc, parseErr == nil, p.want, parseErr)
		}
	}
}

// wrongType returns a JSON value not of type typ.
func wrongType(typ config.Type) string {
	if typ == config.TypeString {
		return "12"
	}
	return `"12"`
}

func jsonValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// notIn returns a value of the enum's type that it does not hold.
func notIn(enum []any) any {
	if _, ok := enum[0].(string); ok {
		return "not-a-value"
	}
	return 2
}
