package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeysTableMatchesParser checks that the parser reads every key of the
// table (keys.go), at the top level and in a stage, and keeps its value:
// a row without a case in the parser, or a case without a row (refused as
// unknown), fails here.
func TestKeysTableMatchesParser(t *testing.T) {
	for _, k := range Keys {
		if k.Example == "" {
			t.Errorf("key %s has no Example", k.Name)
			continue
		}
		member := fmt.Sprintf("%q: %s", k.Name, k.Example)
		if k.With != "" {
			member += ", " + k.With
		}
		var docs []string
		switch k.Scope {
		case TopLevel:
			if k.Name == "version" {
				docs = []string{`{` + member + `}`}
			} else {
				docs = []string{`{"version": "1.0", ` + member + `}`}
			}
		case PerStage:
			docs = []string{
				`{"version": "1.0", ` + member + `}`,
				`{"version": "1.0", "stages": {"dev": {` + member + `}}}`,
			}
		}
		for _, doc := range docs {
			f, err := Parse("config.json", []byte(doc))
			if err != nil {
				t.Errorf("key %s: the table's example is refused by the parser: %v\n%s", k.Name, err, doc)
				continue
			}
			out, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), fmt.Sprintf("%q:", k.Name)) {
				t.Errorf("key %s: parsed, but its value is lost when the file is written again:\n%s\n%s", k.Name, doc, out)
			}
		}
		for _, n := range k.Keys {
			fields := map[string]string{}
			for _, req := range k.Required {
				for _, r := range k.Keys {
					if r.Name == req {
						fields[req] = r.Example
					}
				}
			}
			fields[n.Name] = n.Example
			var members []string
			for name, v := range fields {
				members = append(members, fmt.Sprintf("%q: %s", name, v))
			}
			value := "{" + strings.Join(members, ", ") + "}"
			if k.Type == TypeObjectMap {
				value = `{"fn": ` + value + `}`
			}
			doc := fmt.Sprintf(`{"version": "1.0", %q: %s}`, k.Name, value)
			if _, err := Parse("config.json", []byte(doc)); err != nil {
				t.Errorf("key %s.%s: the table's example is refused by the parser: %v\n%s", k.Name, n.Name, err, doc)
			}
		}
	}
}

// TestSchemaKeyIgnored checks that "$schema" is accepted, kept when the
// file is written again, and refused inside a stage like the other
// top-level keys.
func TestSchemaKeyIgnored(t *testing.T) {
	const url = "https://raw.githubusercontent.com/framework-dev/framework/v0.1.0/docs/config.schema.json"
	f, err := Parse("config.json", []byte(`{"$schema": "`+url+`", "version": "1.0", "app_name": "hello"}`))
	if err != nil {
		t.Fatalf("a file with $schema is refused: %v", err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "{\n  \"$schema\": \""+url+"\",\n") {
		t.Errorf("$schema is not kept first when the file is written:\n%s", out)
	}
	_, err = Parse("config.json", []byte(`{"version": "1.0", "stages": {"dev": {"$schema": "x"}}}`))
	if err == nil || !strings.Contains(err.Error(), "only allowed at the top level") {
		t.Errorf("$schema in a stage: got %v, want a top-level-only error", err)
	}
	_, err = Parse("config.json", []byte(`{"version": "1.0", "$schema": 3}`))
	if err == nil || !strings.Contains(err.Error(), "$schema: must be a string") {
		t.Errorf("$schema a number: got %v, want must be a string", err)
	}
}

func TestSchemaURL(t *testing.T) {
	const base = "https://raw.githubusercontent.com/framework-dev/framework/"
	for version, ref := range map[string]string{
		"v0.3.0":                             "v0.3.0",
		"v0.4.0-rc.1":                        "v0.4.0-rc.1",
		"":                                   "main",
		"v0.1.0-dev":                         "main",
		"v0.0.0-20260101000000-abcdefabcdef": "main",
		"v0.3.0+dirty":                       "main",
	} {
		if got, want := SchemaURL(version), base+ref+"/docs/config.schema.json"; got != want {
			t.Errorf("SchemaURL(%q) = %s, want %s", version, got, want)
		}
	}
}
