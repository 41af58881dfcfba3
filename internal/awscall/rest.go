package awscall

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Request makes one request to a service that is not one of the JSON
// protocols' (the API Gateway management API of a WebSocket API), signed
// for signingName in the configuration's region with its credentials, and
// returns the answer's status and body. An answer that is an error is
// returned as it is, for the caller to read; err is for a request that got
// no answer. Without credentials, a request to a plain-HTTP loopback
// endpoint (`framework local`'s) goes unsigned.
func (c Config) Request(ctx context.Context, signingName, method, url string, body []byte) (status int, out []byte, err error) {
	creds, cerr := c.CurrentCredentials(ctx)
	if cerr != nil && !loopbackHTTP(url) {
		return 0, nil, cerr
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("endpoint %q: %w", url, err)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if cerr == nil {
		region := c.Region
		if region == "" {
			region = "us-east-1"
		}
		Sign(req, body, creds, region, signingName, c.now())
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err = io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, out, nil
}

// loopbackHTTP reports whether url is plain HTTP on this machine.
func loopbackHTTP(url string) bool {
	for _, p := range []string{"http://127.0.0.1:", "http://localhost:", "http://[::1]:"} {
		if strings.HasPrefix(url, p) {
			return true
		}
	}
	return false
}
