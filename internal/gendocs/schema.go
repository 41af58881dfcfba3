package gendocs

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/framework-dev/framework/internal/config"
)

// ConfigSchema returns the JSON Schema (draft 2020-12) of
// .framework/config.json, generated from config.Keys: each key's type,
// allowed values and meaning, and no key outside the table. It checks
// what one key allows; rules between keys (manage_role false needs
// role_id) are the parser's.
func ConfigSchema() ([]byte, error) {
	defs := map[string]any{}
	top := map[string]any{}
	stage := map[string]any{}
	for _, k := range config.Keys {
		switch k.Scope {
		case config.TopLevel:
			top[k.Name] = keySchema(k)
		case config.PerStage:
			defs[k.Name] = keySchema(k)
			ref := map[string]any{"$ref": "#/$defs/" + k.Name}
			top[k.Name] = ref
			stage[k.Name] = ref
		}
	}
	defs["stage"] = map[string]any{
		"type":                 "object",
		"description":          "A stage's own settings, which replace the top level's.",
		"properties":           stage,
		"additionalProperties": false,
	}
	if s, ok := top["stages"].(map[string]any); ok {
		s["additionalProperties"] = map[string]any{"$ref": "#/$defs/stage"}
	}
	schema := ordered{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", config.SchemaURL("")},
		{"title", ".framework/config.json"},
		{"description", "The configuration of an app of the framework (github.com/framework-dev/framework): top-level defaults and per-stage settings."},
		{"type", "object"},
		{"properties", top},
		{"additionalProperties", false},
		{"$defs", defs},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(schema); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// keySchema is the schema of one key's value.
func keySchema(k config.Key) map[string]any {
	s := map[string]any{}
	desc := []string{k.Doc}
	if a := allowed(k); a != "" {
		desc = append(desc, "Allowed: "+a+".")
	}
	if k.Default != "" {
		desc = append(desc, "Default: "+k.Default+".")
	}
	s["description"] = strings.Join(desc, " ")
	if k.DefaultJSON != nil {
		s["default"] = k.DefaultJSON
	}
	if len(k.Enum) > 0 {
		s["enum"] = k.Enum
	}
	if k.Min != nil {
		s["minimum"] = *k.Min
	}
	if k.Max != nil {
		s["maximum"] = *k.Max
	}
	switch k.Type {
	case config.TypeString:
		s["type"] = "string"
		if k.Pattern != "" {
			s["pattern"] = k.Pattern
		}
	case config.TypeBool:
		s["type"] = "boolean"
	case config.TypeInteger:
		s["type"] = "integer"
	case config.TypeNumber:
		s["type"] = "number"
	case config.TypeStringMap:
		s["type"] = "object"
		s["additionalProperties"] = map[string]any{"type": "string"}
		if k.NamePattern != "" {
			s["propertyNames"] = map[string]any{"pattern": k.NamePattern}
		}
	case config.TypeStringList:
		s["type"] = "array"
		item := map[string]any{"type": "string"}
		if k.Pattern != "" {
			item["pattern"] = k.Pattern
		}
		s["items"] = item
		s["uniqueItems"] = true
		if k.MaxItems > 0 {
			s["maxItems"] = k.MaxItems
		}
	case config.TypeObject:
		s["type"] = "object"
		s["properties"] = nestedProps(k.Keys)
		s["additionalProperties"] = false
		if len(k.Required) > 0 {
			s["required"] = k.Required
		}
	case config.TypeObjectMap:
		s["type"] = "object"
		if k.NamePattern != "" {
			s["propertyNames"] = map[string]any{"pattern": k.NamePattern}
		}
		if len(k.Keys) > 0 {
			entry := map[string]any{"type": "object", "properties": nestedProps(k.Keys), "additionalProperties": false}
			if len(k.Required) > 0 {
				entry["required"] = k.Required
			}
			s["additionalProperties"] = entry
		}
	}
	return s
}

func nestedProps(keys []config.Key) map[string]any {
	props := map[string]any{}
	for _, n := range keys {
		props[n.Name] = keySchema(n)
	}
	return props
}

// ordered is a JSON object whose members keep their order (the schema's
// root: "$schema" first, as readers expect).
type ordered []struct {
	key   string
	value any
}

// MarshalJSON writes the members in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // keep <name> readable in descriptions
		if err := enc.Encode(m.key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := enc.Encode(m.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
