package localiam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// decodeJSON reads body into v as the check must: only a body that every
// JSON parser reads the same way. Go's encoding/json matches keys without
// regard to case and takes the last of duplicate keys, while the emulators
// and AWS (Python's json, Java's Jackson) match them exactly; Python's
// json takes NaN and Infinity, which JSON has not. So the body is refused
// (an error saying why) when it is not valid UTF-8 JSON, when an object
// holds a key twice, or two keys that differ only in case. A lone key in
// another case (tablename) is still read into v's field, where the
// emulator finds the parameter missing and refuses the call: the check
// may then refuse a call the service would refuse too, never the reverse.
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
	if err := checkKeys(json.NewDecoder(bytes.NewReader(body))); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// checkKeys walks one JSON value of dec and refuses duplicate and
// case-variant keys in any object of it.
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
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			folded := strings.ToLower(k)
			if prev, dup := seen[folded]; dup {
				if prev == k {
					return fmt.Errorf("the JSON body holds the key %q twice", k)
				}
				return fmt.Errorf("the JSON body holds the keys %q and %q, which differ only in case", prev, k)
			}
			seen[folded] = k
			if err := checkKeys(dec); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
