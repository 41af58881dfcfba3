package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// Typed handlers.
//
// A handler may take the request body as a Go value, as its last
// parameter after the captures, and return any Go type:
//
//	func(r *framework.Request, id string, in UpdateBook) (Book, error)
//
// The body parameter is a struct, a map, a slice or a pointer to one of
// them. The body is decoded strictly: unknown fields are refused, so that
// a misspelt field is a 400 rather than a value silently dropped; a
// required field (see the schema rules) missing from the body is a 400
// too. When the input type (or its pointer) has a Validate() error method,
// it runs before the handler; its error answers 400 BadRequestError with
// the message "Invalid request body: " and the error's text, as a body that
// does not decode does, or answers as itself when it is a ViewError (the
// strict check is in bodycheck.go). The request and
// response types are described in the manifest (schema.go).

// validator is the optional input check of a typed handler.
type validator interface{ Validate() error }

var validatorType = reflect.TypeOf((*validator)(nil)).Elem()

// typedInput is the body parameter of a typed handler.
type typedInput struct {
	param reflect.Type // as declared, T or *T
	elem  reflect.Type // T
	check *presence    // nil when the type holds no struct
}

// bodyParam reports whether t is a type a typed handler takes as its body.
func bodyParam(t reflect.Type) bool {
	e := t
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	switch e.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice:
		return e != requestType.Elem()
	}
	return false
}

// makeTypedHandler returns the caller of a typed handler (one with a body
// parameter), or nil and no error when h has no body parameter.
func makeTypedHandler(h any, nCaptures int) (handlerFunc, *typedInput, error) {
	v := reflect.ValueOf(h)
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return nil, nil, nil
	}
	t := v.Type()
	if t.IsVariadic() || t.NumIn() != nCaptures+2 || t.In(0) != requestType || !bodyParam(t.In(t.NumIn()-1)) {
		return nil, nil, nil
	}
	want := "func(*framework.Request" + strings.Repeat(", string", nCaptures) + ", In) (Out, error)"
	for i := 1; i <= nCaptures; i++ {
		if t.In(i) != stringType {
			return nil, nil, fmt.Errorf("the typed handler %s: argument %d is %s, not string: want %s", t, i+1, t.In(i), want)
		}
	}
	if t.NumOut() != 2 || t.Out(1) != errorType {
		return nil, nil, fmt.Errorf("the typed handler %s must return (Out, error): want %s", t, want)
	}
	in := &typedInput{param: t.In(nCaptures + 1)}
	in.elem = in.param
	if in.elem.Kind() == reflect.Pointer {
		in.elem = in.elem.Elem()
	}
	in.check = presenceOf(in.elem)
	validates := reflect.PointerTo(in.elem).Implements(validatorType)
	call := func(r *Request, args []string) (any, error) {
		ptr := reflect.New(in.elem)
		if err := decodeStrict(r.RawBody, ptr.Interface(), in); err != nil {
			return nil, err
		}
		if validates {
			if err := ptr.Interface().(validator).Validate(); err != nil {
				if _, _, ok := asViewError(err); ok {
					return nil, err
				}
				return nil, BadRequestError{Message: "Invalid request body: " + err.Error()}
			}
		}
		var buf [4]reflect.Value
		vals := buf[:0]
		if len(args)+2 > len(buf) {
			vals = make([]reflect.Value, 0, len(args)+2)
		}
		vals = vals[:len(args)+2]
		vals[0] = reflect.ValueOf(r)
		for i, a := range args {
			vals[i+1] = reflect.ValueOf(a)
		}
		if in.param.Kind() == reflect.Pointer {
			vals[len(args)+1] = ptr
		} else {
			vals[len(args)+1] = ptr.Elem()
		}
		out := v.Call(vals)
		err, _ := out[1].Interface().(error)
		return out[0].Interface(), err
	}
	return call, in, nil
}

// makeCall checks the route's handler and returns its caller: a typed
// handler's (makeTypedHandler) or another's (makeHandler). It records the
// types the manifest describes.
func (r *route) makeCall(nCaptures int) (handlerFunc, error) {
	call, in, err := makeTypedHandler(r.handler, nCaptures)
	if call == nil && err == nil {
		call, err = makeHandler(r.handler, nCaptures)
	}
	if err != nil {
		return nil, err
	}
	r.input = in
	if t := reflect.TypeOf(r.handler); t.NumOut() == 2 && schemaType(t.Out(0)) {
		r.output = t.Out(0)
	}
	return call, nil
}

// schemas sets the request and response schemas of a typed route.
func (r *route) schemas(s *schemaSet, mr *manifest.Route) {
	if r.input != nil {
		mr.RequestSchema = s.schema(r.input.param)
	}
	if r.output != nil {
		mr.ResponseSchema = s.schema(r.output)
	}
}

// Status sets the status of the route's answers when the handler returns
// a plain value (not a Response): 201 for a handler that creates, say. It
// is 200 to 299, not 204 or 205, which have no body (return a Response for
// those); errors keep their own status.
func Status(code int) RouteOption {
	return RouteOption{func(r *route) {
		if code < 200 || code > 299 || code == 204 || code == 205 {
			r.optErrs = append(r.optErrs, fmt.Errorf("Status(%d): use 200 to 299 except 204 and 205 (for an answer without a body, return a Response)", code))
			return
		}
		r.status = code
	}}
}

// badBody is the 400 of a body that does not fit the handler's input type.
func badBody(format string, args ...any) error {
	return BadRequestError{Message: "Invalid request body: " + fmt.Sprintf(format, args...)}
}

// decodeStrict decodes body into ptr, then checks it against the input
// type: a null body, unknown fields, fields given twice, missing required
// fields and a null in a required field are refused, with errors naming
// the field. encoding/json decodes (its errors name
// mistyped fields); one more pass over the text checks the field names.
func decodeStrict(body []byte, ptr any, in *typedInput) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return badBody("the body is empty: send a JSON %s", jsonKind(in.elem))
	}
	if err := json.Unmarshal(body, ptr); err != nil {
		return decodeError(err, in.elem)
	}
	if t := bytes.TrimSpace(body); t[0] == 'n' && !nullable(in.elem) {
		// encoding/json leaves the value as it was: the handler would get
		// an empty one, its required fields unchecked.
		return badBody("expected a JSON %s, got null", jsonKind(in.elem))
	}
	if in.check != nil {
		w := &jsonWalker{b: body}
		if err := in.check.walk(w, ""); err != nil {
			return err
		}
	}
	return nil
}

// decodeError turns encoding/json's error into a 400 naming the field.
func decodeError(err error, t reflect.Type) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end of JSON input"):
		return badBody("malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "after top-level value"):
		return badBody("the body holds more than one JSON value: send one %s", jsonKind(t))
	case errors.As(err, &syn):
		return badBody("malformed JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badBody("malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &typ):
		got := typ.Value
		if typ.Field == "" {
			return badBody("expected a JSON %s, got %s", jsonKind(t), article(got))
		}
		return badBody("field %q: expected %s, got %s", typ.Field, article(jsonKind(typ.Type)), article(got))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return badBody("field %s is not a field of %s: remove it (unknown fields are refused)", name, typeLabel(t))
	}
	return badBody("%s", strings.TrimPrefix(err.Error(), "json: "))
}

func typeLabel(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return "the " + jsonKind(t)
}

// jsonKind names the JSON form of t: "object", "array", "string", "number",
// "integer", "boolean".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if t == timeType {
			return "string"
		}
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	}
	return "value"
}

func article(s string) string {
	if s == "" {
		return "a value"
	}
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	if strings.HasPrefix(s, "number ") {
		return s // "number 1e400"
	}
	return "a " + s
}
