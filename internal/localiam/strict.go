package localiam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// decodeJSON reads body into v as the check must: only a body that every
// JSON parser reads the same way, read as the services read it. Go's
// encoding/json matches keys without regard to case (and folds ſ to s and
// K to k) and takes the last of duplicate keys, while the emulators and AWS
// (Python's json, Java's Jackson) match keys exactly; Python's json takes
// NaN and Infinity, which JSON has not, and keeps a lone UTF-16 surrogate
// that Go turns into U+FFFD. So the body is refused (an error saying why)
// when it is not valid UTF-8 JSON, when an object holds a key twice, when a
// string escapes half a surrogate pair, or when a key differs only in case
// from a parameter the check reads (v's struct fields, at any depth): then
// Go would read it as that parameter and the service would not. Keys in
// case variants elsewhere (an item's attributes "id" and "ID") are the
// service's business and stay.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if !utf8.Valid(body) {
		return errors.New("the JSON body is not valid UTF-8")
	}
	if !json.Valid(body) {
		return errors.New("the body is not valid JSON (NaN and Infinity are not JSON numbers)")
	}
	if err := loneSurrogate(body); err != nil {
		return err
	}
	if err := checkKeys(json.NewDecoder(bytes.NewReader(body))); err != nil {
		return err
	}
	if err := exactKeys(body, reflect.TypeOf(v)); err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the JSON body does not have the shape the check reads: %v", err)
	}
	return nil
}

// checkKeys walks one JSON value of dec and refuses an object that holds a
// key twice.
func checkKeys(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '[':
		for dec.More() {
			if err := checkKeys(dec); err != nil {
				return err
			}
		}
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			if seen[k] {
				return fmt.Errorf("the JSON body holds the key %q twice", k)
			}
			seen[k] = true
			if err := checkKeys(dec); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// exactKeys refuses a key of raw that differs only in case from a field
// of t (a struct, or what holds structs) without being that field's name.
func exactKeys(raw []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil // not an object: Unmarshal says so
		}
		for k, v := range obj {
			f, ok := fieldNamed(t, k)
			if !ok {
				continue
			}
			if f.Name != k {
				return fmt.Errorf("the JSON body's key %q differs only in case from the parameter %s, which the check reads and the service does not read from %q: spell it %s", k, f.Name, k, f.Name)
			}
			if err := exactKeys(v, f.Type); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if t == reflect.TypeOf(json.RawMessage(nil)) {
			return nil
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
		for _, v := range list {
			if err := exactKeys(v, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		for _, v := range obj {
			if err := exactKeys(v, t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldNamed is the field of struct type t that encoding/json would read
// key into: its name equal to key without regard to case (Unicode's simple
// folding, as encoding/json's).
func fieldNamed(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Name
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" {
			name = tag
		}
		if f.IsExported() && strings.EqualFold(name, key) {
			f.Name = name
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// loneSurrogate refuses a \u escape of half a UTF-16 surrogate pair: Go
// reads it as U+FFFD, Python's json keeps it, so the two read another
// name.
func loneSurrogate(body []byte) error {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		var r rune
		for _, c := range b[:4] {
			r <<= 4
			switch {
			case c >= '0' && c <= '9':
				r |= rune(c - '0')
			case c >= 'a' && c <= 'f':
				r |= rune(c - 'a' + 10)
			case c >= 'A' && c <= 'F':
				r |= rune(c - 'A' + 10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		i++ // the escaped character (the body is valid JSON)
		if i >= len(body) || body[i] != 'u' {
			continue
		}
		r, ok := hex4(body[i+1:])
		if !ok {
			continue
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return errors.New("the JSON body escapes a lone low surrogate (\\uDC00-\\uDFFF), which JSON parsers read differently")
		case r >= 0xD800 && r <= 0xDBFF:
			if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if lo, ok := hex4(body[i+3:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return errors.New("the JSON body escapes a lone high surrogate (\\uD800-\\uDBFF), which JSON parsers read differently")
		}
	}
	return nil
}
