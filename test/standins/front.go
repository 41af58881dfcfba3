package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/mototest"
)

// noCode is the line an invocation's log holds in place of the function's
// output: moto runs a function's code only in Docker.
const noCode = "standins: moto's Lambda ran no code (it runs code only in Docker): it answered with the event it was sent"

// newFront serves moto's API, adding to each Lambda Invoke what Lambda
// adds: the invocation's START, END and REPORT lines in the function's log
// group, and as the log tail when asked (X-Amz-Log-Type: Tail).
func newFront(m *mototest.Server) http.Handler {
	target, _ := url.Parse(m.URL)
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		name, ok := invokedFunction(resp.Request)
		if !ok || resp.StatusCode != http.StatusOK {
			return nil
		}
		id := resp.Header.Get("X-Amzn-Requestid")
		if id == "" {
			id = newID()
		}
		lines := []string{
			"START RequestId: " + id + " Version: $LATEST",
			noCode,
			"END RequestId: " + id,
			"REPORT RequestId: " + id + "\tDuration: 0.00 ms\tBilled Duration: 0 ms\tMemory Size: 128 MB\tMax Memory Used: 0 MB",
		}
		now := time.Now()
		stream := now.UTC().Format("2006/01/02") + "/[$LATEST]" + newID()
		if err := m.WriteLogEvents("/aws/lambda/"+name, stream, now, lines...); err != nil {
			return fmt.Errorf("write the invocation's log lines: %w", err)
		}
		if resp.Request.Header.Get("X-Amz-Log-Type") == "Tail" {
			resp.Header.Set("X-Amz-Log-Result", base64.StdEncoding.EncodeToString([]byte(strings.Join(lines, "\n")+"\n")))
		}
		return nil
	}
	return p
}

// invokedFunction returns the name of the function a Lambda Invoke request
// (POST /2015-03-31/functions/NAME/invocations) calls, NAME being a name
// or an ARN, and true; or false for another request.
func invokedFunction(r *http.Request) (string, bool) {
	if r == nil || r.Method != http.MethodPost {
		return "", false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/2015-03-31/functions/")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, "/invocations")
	if !ok {
		return "", false
	}
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	if _, fn, ok := strings.Cut(name, ":function:"); ok {
		name = fn
	}
	name, _, _ = strings.Cut(name, ":")
	return name, name != ""
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
