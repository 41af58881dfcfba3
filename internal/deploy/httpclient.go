package deploy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// bufferedBodies is an HTTP client for the small form-encoded requests of
// CloudFormation and STS: it hands net/http a request body of its own, read
// into memory, instead of the SDK's request stream.
//
// The SDK may close its request stream as soon as the response arrives,
// while net/http's write loop still makes its final read of the body (to
// check the body is no longer than its Content-Length); that read then
// fails and net/http closes the connection in the middle of the response.
// Against a fast endpoint (the test stand-ins on 127.0.0.1) this made the
// SDK print "failed to discard remaining HTTP response body" and retry the
// call after a delay of up to 2 s.
type bufferedBodies struct {
	next aws.HTTPClient
}

// Do sends req with its body read into memory.
func (c bufferedBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the request body: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = int64(len(b))
	}
	return c.next.Do(req)
}
