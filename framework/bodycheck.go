package framework

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// The strict check of a typed handler's body: after encoding/json decoded
// it, one pass over the JSON text refuses unknown fields, fields given
// twice, missing required ones and a null where the schema has none
// (encoding/json leaves the zero value there, as if the field were absent),
// naming them.

// presence checks the field names of a body against a type tree: every
// object key names a field of its struct, and every required field is
// there.
type presence struct {
	kind     reflect.Kind // Struct, Slice (and Array), Map
	name     string       // the struct's type name, for errors
	fields   []presenceField
	required []int     // indexes in fields
	elem     *presence // Slice and Map elements
	elemKind string    // the elements' JSON kind when null is refused for them, else ""
}

type presenceField struct {
	name  string
	check *presence
	// kind is the field's JSON kind when it is required and null is
	// refused for it, else "".
	kind string
}

var (
	presenceCache       sync.Map // reflect.Type → *presence (nil stored as (*presence)(nil))
	jsonUnmarshalType   = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// presenceOf returns the check of t, nil when t holds no struct.
func presenceOf(t reflect.Type) *presence {
	return presenceFor(t, map[reflect.Type]*presence{})
}

func presenceFor(t reflect.Type, busy map[reflect.Type]*presence) *presence {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if c, ok := presenceCache.Load(t); ok {
		return c.(*presence)
	}
	if p, ok := busy[t]; ok {
		return p // recursive type: the check under construction
	}
	if t == timeType || reflect.PointerTo(t).Implements(jsonUnmarshalType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil // decodes itself
	}
	var p *presence
	switch t.Kind() {
	case reflect.Struct:
		p = &presence{kind: reflect.Struct, name: typeLabel(t)}
		busy[t] = p
		for _, f := range jsonFields(t) {
			if f.required {
				p.required = append(p.required, len(p.fields))
			}
			var c *presence
			if !f.asString {
				c = presenceFor(f.typ, busy)
			}
			pf := presenceField{name: f.name, check: c}
			if f.required && !nullable(f.typ) {
				pf.kind = jsonKind(f.typ)
			}
			p.fields = append(p.fields, pf)
		}
		delete(busy, t)
	case reflect.Slice, reflect.Array, reflect.Map:
		if e := presenceFor(t.Elem(), busy); e != nil {
			k := t.Kind()
			if k == reflect.Array {
				k = reflect.Slice
			}
			p = &presence{kind: k, elem: e}
			if !nullable(t.Elem()) {
				p.elemKind = jsonKind(t.Elem())
			}
		}
	}
	if len(busy) == 0 {
		presenceCache.Store(t, p)
	}
	return p
}

// nullable reports whether a JSON null is a value of t: a pointer, an
// interface, or a type that decodes itself (json.RawMessage, a
// json.Unmarshaler), as the schema says.
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		return true
	}
	return reflect.PointerTo(t).Implements(jsonUnmarshalType)
}

// walk checks the value at w (valid JSON, decoded already) against p; path
// is the field path so far ("items.0").
func (p *presence) walk(w *jsonWalker, path string) error {
	w.ws()
	if w.peek() == 'n' { // null
		w.skip()
		return nil
	}
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	switch p.kind {
	case reflect.Struct:
		if w.peek() != '{' {
			w.skip()
			return nil
		}
		w.i++
		var seenBuf [16]bool
		seen := seenBuf[:0]
		if len(p.fields) > len(seenBuf) {
			seen = make([]bool, 0, len(p.fields))
		}
		seen = seen[:len(p.fields)]
		for {
			w.ws()
			if w.peek() == '}' {
				w.i++
				break
			}
			if w.peek() == ',' {
				w.i++
				continue
			}
			key := w.key()
			w.ws()
			w.i++ // ':'
			j := p.field(key)
			if j < 0 {
				return badBody("field %s is not a field of %s: remove it (unknown fields are refused)", quoteCut(join(string(key))), p.name)
			}
			f := &p.fields[j]
			if seen[j] {
				if string(key) == f.name {
					return badBody("field %q appears twice: send it once", join(f.name))
				}
				return badBody("field %q appears twice (once as %s; keys match fields without regard to case): send it once", join(f.name), quoteCut(string(key)))
			}
			seen[j] = true
			if w.ws(); f.kind != "" && w.peek() == 'n' {
				return badBody("field %q is required: expected %s, got null", join(f.name), article(f.kind))
			}
			if f.check == nil {
				w.skip()
				continue
			}
			if err := f.check.walk(w, join(f.name)); err != nil {
				return err
			}
		}
		for _, j := range p.required {
			if !seen[j] {
				return badBody("field %q is required", join(p.fields[j].name))
			}
		}
	case reflect.Slice, reflect.Map:
		open, close := byte('['), byte(']')
		if p.kind == reflect.Map {
			open, close = '{', '}'
		}
		if w.peek() != open {
			w.skip()
			return nil
		}
		w.i++
		for n := 0; ; {
			w.ws()
			if w.peek() == close {
				w.i++
				break
			}
			if w.peek() == ',' {
				w.i++
				continue
			}
			var name string
			if p.kind == reflect.Map {
				name = string(w.key())
				w.ws()
				w.i++ // ':'
			} else {
				name = itoa(n)
			}
			if w.ws(); p.elemKind != "" && w.peek() == 'n' {
				return badBody("field %q: expected %s, got null", join(name), article(p.elemKind))
			}
			if err := p.elem.walk(w, join(name)); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// field finds a field by key as encoding/json does: exact, then without
// regard to case.
func (p *presence) field(key []byte) int {
	for i, f := range p.fields {
		if f.name == string(key) {
			return i
		}
	}
	for i, f := range p.fields {
		if strings.EqualFold(f.name, string(key)) {
			return i
		}
	}
	return -1
}

// jsonWalker steps through a JSON text known to be valid.
type jsonWalker struct {
	b []byte
	i int
}

func (w *jsonWalker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *jsonWalker) peek() byte {
	if w.i < len(w.b) {
		return w.b[w.i]
	}
	return 0
}

// key reads a string token and returns its value.
func (w *jsonWalker) key() []byte {
	w.ws()
	start := w.i
	escaped := w.skipString()
	raw := w.b[start:w.i]
	if !escaped || len(raw) < 2 {
		return raw[1 : len(raw)-1]
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || !utf8.ValidString(s) {
		return raw[1 : len(raw)-1]
	}
	return []byte(s)
}

// skipString steps over a string token and reports whether it holds escapes.
func (w *jsonWalker) skipString() (escaped bool) {
	w.i++ // opening quote
	for w.i < len(w.b) {
		c := w.b[w.i]
		w.i++
		if c == '\\' {
			escaped = true
			w.i++
			continue
		}
		if c == '"' {
			return escaped
		}
	}
	return escaped
}

// skip steps over one value.
func (w *jsonWalker) skip() {
	w.ws()
	switch w.peek() {
	case '"':
		w.skipString()
	case '{', '[':
		depth := 0
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case '"':
				w.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.i++
			if depth == 0 {
				return
			}
		}
	default:
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			w.i++
		}
	}
}
