package test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"
)

// TestLocalFunctionTimeout: framework local applies the stage's
// lambda_timeout (1 s here, shorter than the REST API's 29 s integration
// timeout) to the routes: the handler's context has that deadline, and a
// handler still running at it gets the answer API Gateway gives a
// function that failed (Lambda Developer Guide, "Handling Lambda errors
// with an API Gateway API"): 502 {"message": "Internal server error"}.
func TestLocalFunctionTimeout(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "functimeout")
	s := startLocal(t, dir, testEnv(t), "--no-autoreload")
	client := &http.Client{Timeout: 60 * time.Second} // a safety net: the 29 s integration timeout comes first

	resp, err := client.Get(s.URL + "/deadline")
	if err != nil {
		t.Fatal(err)
	}
	var dl struct {
		HasDeadline bool  `json:"has_deadline"`
		WithinMS    int64 `json:"within_ms"`
	}
	if b := readAll(t, resp.Body); json.Unmarshal(b, &dl) != nil || !dl.HasDeadline || dl.WithinMS > 1000 {
		t.Errorf("GET /deadline = %d %s, want a deadline within the function's 1 s timeout", resp.StatusCode, b)
	}

	resp, err = client.Get(s.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	if b := readAll(t, resp.Body); resp.StatusCode != 502 || string(b) != `{"message": "Internal server error"}` {
		t.Errorf("GET /slow past the function's timeout = %d %s, want 502 {\"message\": \"Internal server error\"}", resp.StatusCode, b)
	}
}
