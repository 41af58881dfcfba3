package framework

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/framework-dev/framework/internal/manifest"
)

// Response sets a response's status, headers and body exactly. Return it (or
// a pointer to it) from a handler.
//
// Body may be a string or []byte (sent as is), nil (no body), or any other
// value, which is sent as JSON. Without a Content-Type header, a string body
// is sent as text/plain; charset=utf-8, a []byte body as
// application/octet-stream, and any other value as application/json.
type Response struct {
	Body any
	// StatusCode defaults to 200.
	StatusCode int
	// Headers are single-value headers, names sent as written.
	Headers map[string]string
	// MultiValueHeaders are headers with several values, such as two Set-Cookie.
	MultiValueHeaders map[string][]string

	// jsonValue marks the Response middleware sees for a handler's plain
	// return value: Body is sent as JSON whatever its type.
	jsonValue bool
}

// result is what the pipeline answers, before it is written to an HTTP
// connection or turned into an API Gateway proxy response.
type result struct {
	status  int
	headers []manifest.HeaderField
	body    []byte
	binary  bool
	// stream is the body of a streamed answer (stream.go), nil otherwise.
	stream *streamRun
}

func (r *result) header(name string) (string, bool) {
	for _, h := range r.headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value, true
		}
	}
	return "", false
}

// setDefault adds a header unless one of that name is present.
func (r *result) setDefault(name, value string) {
	if _, ok := r.header(name); !ok {
		r.headers = append(r.headers, manifest.HeaderField{Name: name, Value: value})
	}
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeJSON encodes v compactly without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return append([]byte(nil), b[:len(b)-1]...), nil
}

func jsonResult(status int, v any) *result {
	body, err := encodeJSON(v)
	if err != nil {
		body = []byte(`null`)
	}
	return jsonBodyResult(status, body)
}

// toResult turns a handler's return value into a result.
func toResult(v any) (*result, error) {
	switch resp := v.(type) {
	case *Response:
		if resp == nil {
			return jsonResult(200, nil), nil
		}
		if resp.jsonValue {
			return resp.valueResult()
		}
		return resp.toResult()
	case Response:
		return resp.toResult()
	}
	body, err := encodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("the handler's return value (%T) cannot be encoded as JSON: %w", v, err)
	}
	return jsonBodyResult(200, body), nil
}

// jsonBodyResult is a result of a JSON body, allocated with its header.
func jsonBodyResult(status int, body []byte) *result {
	box := &struct {
		res result
		hdr [1]manifest.HeaderField
	}{hdr: [1]manifest.HeaderField{{Name: "Content-Type", Value: "application/json"}}}
	box.res = result{status: status, headers: box.hdr[:1:1], body: body}
	return &box.res
}

func (resp *Response) toResult() (*result, error) {
	res := &result{status: resp.StatusCode}
	if res.status == 0 {
		res.status = 200
	}
	if res.status < 100 || res.status > 599 {
		return nil, fmt.Errorf("the handler's Response has status %d: use 100 to 599", resp.StatusCode)
	}
	defaultType := "application/json"
	switch b := resp.Body.(type) {
	case nil:
		defaultType = ""
	case string:
		res.body, defaultType = []byte(b), "text/plain; charset=utf-8"
	case []byte:
		res.body, defaultType = b, "application/octet-stream"
	case StreamBody:
		res.stream, defaultType = &streamRun{body: b}, "application/octet-stream"
	default:
		body, err := encodeJSON(b)
		if err != nil {
			return nil, fmt.Errorf("the handler's Response body (%T) cannot be encoded as JSON: %w", b, err)
		}
		res.body = body
	}
	var buf [8]string
	for _, k := range sortedKeysInto(buf[:0], resp.Headers) {
		res.headers = append(res.headers, manifest.HeaderField{Name: k, Value: resp.Headers[k]})
	}
	for _, k := range sortedKeysInto(buf[:0], resp.MultiValueHeaders) {
		for _, v := range resp.MultiValueHeaders[k] {
			res.headers = append(res.headers, manifest.HeaderField{Name: k, Value: v})
		}
	}
	for _, h := range res.headers {
		if err := sendableHeader(h); err != nil {
			return nil, err
		}
	}
	if defaultType != "" {
		res.setDefault("Content-Type", defaultType)
	}
	return res, nil
}

// sendableHeader checks a header of a handler's Response: net/http would
// drop a name that is not a token without a word and turn a line break in
// a value into a space, while deployed API Gateway receives them as they
// are, so both are the handler's error.
func sendableHeader(h manifest.HeaderField) error {
	if !validHeaderName(h.Name) {
		return fmt.Errorf("the handler's Response has a header named %s, which is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~): rename it", quoteCut(h.Name))
	}
	if strings.ContainsAny(h.Value, "\r\n\x00") {
		return fmt.Errorf("the handler's Response header %s has a value holding a line break or NUL, which HTTP cannot send (a value taken from the request must not reach a header as it is): %s", h.Name, quoteCut(h.Value))
	}
	return nil
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// sortedKeysInto appends m's keys to buf[:0] and sorts them: with a buf on
// the caller's stack, a small map costs no allocation.
func sortedKeysInto[V any](buf []string, m map[string]V) []string {
	buf = slices.AppendSeq(buf[:0], maps.Keys(m))
	slices.Sort(buf)
	return buf
}
