package framework

import (
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestLocalRequestIDs checks the local server's request ids: shaped as API
// Gateway's (a lower-case UUID), the resource id their first six digits,
// and no two alike.
func TestLocalRequestIDs(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 10000 {
		id, res := newRequestID()
		if !shape.MatchString(id) || res != id[:6] || seen[id] {
			t.Fatalf("newRequestID() = %q, %q (seen before: %v)", id, res, seen[id])
		}
		seen[id] = true
	}
}

// TestLocalHeaderHelpers checks that the local server's header helpers do
// what the code they replaced did: strings.ToLower of a name, and every
// header of a result appended to those the response has, with
// Content-Length last and alone.
func TestLocalHeaderHelpers(t *testing.T) {
	for _, k := range []string{"Accept", "User-Agent", "X-Api-Key", "X-Custom-Thing", "x-lower", "Ünicode", ""} {
		if got, want := lowerHeaderName(k), strings.ToLower(k); got != want {
			t.Errorf("lowerHeaderName(%q) = %q, want %q", k, got, want)
		}
	}
	res := &result{body: []byte("hello"), headers: []manifest.HeaderField{
		{Name: "Content-Type", Value: "text/plain"}, {Name: "Set-Cookie", Value: "a=1"}, {Name: "Set-Cookie", Value: "b=2"},
		{Name: "Connection", Value: "close"}, {Name: "Content-Length", Value: "99"},
	}}
	old := func(hdr http.Header, res *result) { // writeResult's loop before
		for _, f := range res.headers {
			hdr[f.Name] = append(hdr[f.Name], f.Value)
		}
		hdr["Content-Length"] = []string{strconv.Itoa(len(res.body))}
	}
	got, want := http.Header{"Connection": {"keep-alive"}}, http.Header{"Connection": {"keep-alive"}}
	setResultHeaders(got, res)
	old(want, res)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("setResultHeaders gives %v, want %v", got, want)
	}
	// The values share one array: appending to one must not change another.
	got["Content-Type"] = append(got["Content-Type"], "x")
	if got.Get("Set-Cookie") != "a=1" || len(got["Set-Cookie"]) != 2 {
		t.Errorf("appending to Content-Type changed Set-Cookie: %v", got)
	}
}
