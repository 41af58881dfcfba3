package framework

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// JSON Schemas of typed handlers' Go types.
//
// A typed handler's request and response types are described in the
// manifest as OpenAPI 3.0 Schema Objects: manifest.Route.RequestSchema and
// ResponseSchema refer to named struct types as
// {"$ref": "#/components/schemas/Name"}, and the manifest's Schemas holds those
// named schemas. The rules follow encoding/json: field names from json
// tags, "-" fields left out, embedded structs flattened. A field is
// required unless it is a pointer or an interface or its tag says
// omitempty or omitzero; structs refuse unknown fields
// (additionalProperties: false), as the strict decoding does.

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name     string
	index    []int
	typ      reflect.Type
	required bool
	asString bool // the ",string" option
}

var (
	timeType          = reflect.TypeOf(time.Time{})
	rawMessageType    = reflect.TypeOf(json.RawMessage(nil))
	jsonMarshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshalerType = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// jsonFields lists the JSON fields of struct type t in declaration order,
// embedded structs' fields flattened (the outer field wins over a
// promoted one of the same name).
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int, depth int)
	walk = func(t reflect.Type, index []int, depth int) {
		var embedded []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					embedded = append(embedded, f)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			optional := ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Interface ||
				strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
			out = append(out, jsonField{
				name: name, index: append(append([]int(nil), index...), i), typ: ft,
				required: !optional, asString: strings.Contains(","+opts+",", ",string,"),
			})
		}
		if depth > 8 {
			return
		}
		for _, f := range embedded {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			walk(et, append(append([]int(nil), index...), f.Index...), depth+1)
		}
	}
	walk(t, nil, 0)
	return out
}

// schemaSet builds the schemas of a manifest: named struct types become
// components, each named once.
type schemaSet struct {
	names      map[reflect.Type]string
	taken      map[string]reflect.Type
	components map[string]any
}

func newSchemaSet() *schemaSet {
	return &schemaSet{names: map[reflect.Type]string{}, taken: map[string]reflect.Type{}, components: map[string]any{}}
}

// componentName names the component of named type t: its Go name, or
// package.Name when another type took the name first.
func (s *schemaSet) componentName(t reflect.Type) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	base := strings.Trim(replaceRuns(t.Name(), componentByte), "_")
	name := base
	if other, ok := s.taken[name]; ok && other != t {
		pkg := t.PkgPath()
		if i := strings.LastIndex(pkg, "/"); i >= 0 {
			pkg = pkg[i+1:]
		}
		name = replaceRuns(pkg, componentByte) + "." + base
		for i := 2; s.taken[name] != nil; i++ {
			name = replaceRuns(pkg, componentByte) + "." + base + "_" + itoa(i)
		}
	}
	s.names[t] = name
	s.taken[name] = t
	return name
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// schema returns the OpenAPI 3.0 Schema Object of t.
func (s *schemaSet) schema(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{}
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType)):
		return map[string]any{} // its own JSON form, unknown here
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer", "minimum": float64(0)}
	case reflect.Float32:
		return map[string]any{"type": "number", "format": "float"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Pointer:
		inner := s.schema(t.Elem())
		if _, isRef := inner["$ref"]; isRef {
			return map[string]any{"allOf": []any{inner}, "nullable": true}
		}
		out := map[string]any{"nullable": true}
		for k, v := range inner {
			out[k] = v
		}
		return out
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return map[string]any{"type": "string", "format": "byte"}
		}
		out := map[string]any{"type": "array", "items": s.schema(t.Elem())}
		if t.Kind() == reflect.Array {
			out["minItems"], out["maxItems"] = float64(t.Len()), float64(t.Len())
		}
		return out
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": s.schema(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return s.structSchema(t)
		}
		name := s.componentName(t)
		if _, done := s.components[name]; !done {
			s.components[name] = nil // placeholder: recursive types refer to it
			s.components[name] = s.structSchema(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{} // channels, functions: not JSON
}

func (s *schemaSet) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []any
	for _, f := range jsonFields(t) {
		fs := s.schema(f.typ)
		if f.asString {
			fs = map[string]any{"type": "string"}
		}
		props[f.name] = fs
		if f.required {
			required = append(required, f.name)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// schemaTypes says whether t gets a schema in the manifest: a concrete type
// other than Response.
func schemaType(t reflect.Type) bool {
	if t == nil || t.Kind() == reflect.Interface {
		return false
	}
	rt := reflect.TypeOf(Response{})
	return t != rt && t != reflect.PointerTo(rt)
}
