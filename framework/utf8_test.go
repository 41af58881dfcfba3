package framework_test

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// A body that is not UTF-8 under a non-binary Content-Type would reach API
// Gateway mangled through the Lambda adapter: both front doors answer 500.
func TestNonUTF8BodyUnderTextType(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(`{"hello":"world"}`))
	_ = w.Close()
	gzipJSON := func(r *framework.Request) (any, error) {
		return framework.Response{Body: gz.Bytes(), Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}}, nil
	}
	const generic = `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`
	cases := []struct {
		name   string
		debug  bool
		binary bool
		status int
		want   string // body, or a substring with Debug
	}{
		{"generic 500", false, false, 500, generic},
		{"debug says what to do", true, false, 500, `add "application/json" to App.API.BinaryTypes`},
		{"binary type: sent as bytes", false, true, 200, gz.String()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := framework.New("utf8")
			app.Debug = c.debug
			if c.binary {
				app.API.BinaryTypes = append(app.API.BinaryTypes, "application/json")
			}
			app.Route("/gzip", gzipJSON)
			doors(t, app, "GET", "/gzip", nil, map[string]string{"Accept": "application/json"}, func(t *testing.T, resp *frameworktest.Response) {
				got := string(resp.Body)
				if resp.StatusCode != c.status || (c.debug && !strings.Contains(got, c.want)) || (!c.debug && got != c.want) {
					t.Errorf("= %d %q, want %d %q", resp.StatusCode, got, c.status, c.want)
				}
			})
		})
	}
}
