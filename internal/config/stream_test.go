package config

import (
	"errors"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestFrontDoorRefusesStreamingOnHTTPAPI: a streaming route is refused on
// an HTTP API stage with a StreamingHTTPAPIError, and accepted on a REST
// API or a function URL.
func TestFrontDoorRefusesStreamingOnHTTPAPI(t *testing.T) {
	m := &manifest.Manifest{Routes: []manifest.Route{{Path: "/ticks", Methods: []string{"GET"}, Handler: "ticks", Streaming: true}}}
	var se *StreamingHTTPAPIError
	if err := (FrontDoor{APIType: APIHTTP}).Check(m); !errors.As(err, &se) || se.Path != "/ticks" || se.Handler != "ticks" {
		t.Errorf("HTTP API: %v, want a StreamingHTTPAPIError for /ticks", err)
	}
	for _, typ := range []string{APIRest, APIFunctionURL} {
		if err := (FrontDoor{APIType: typ}).Check(m); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}
