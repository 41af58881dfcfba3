package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// standIn answers the function's AWS calls: DynamoDB (by X-Amz-Target)
// and the WebSocket API's management endpoint (/dev/@connections/ID),
// recording each call.
type standIn struct {
	mu    sync.Mutex
	calls []string
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	call := r.Header.Get("X-Amz-Target")
	if call == "" {
		call = r.Method + " " + r.URL.EscapedPath() + " " + string(body)
	}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	switch {
	case strings.HasSuffix(call, ".Scan"):
		io.WriteString(w, `{"Items":[{"id":{"S":"SxbAPdTjIAMCJdA="}},{"id":{"S":"gone1"}}],"Count":2}`)
	case strings.Contains(call, "/@connections/gone1"):
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, `{"message":"Gone"}`)
	default:
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		io.WriteString(w, `{}`)
	}
}

func (s *standIn) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := strings.Join(s.calls, "\n")
	s.calls = nil
	return out
}

// TestRuntimeAPI runs the example's binary, built as deployed, once per
// WebSocket handler, and sends each the event API Gateway sends
// (testdata/, the shapes of events.APIGatewayWebsocketProxyRequest as AWS
// documents them) through the real aws-lambda-go runtime loop: the
// connect handler refuses a client without a name with 400 and stores
// one with a name; a message is broadcast through the management API, a
// gone connection forgotten; an undecodable message gets 400.
func TestRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the function binary")
	}
	bin := testutil.BuildBootstrap(t, ".")
	aws := &standIn{}
	srv := httptest.NewServer(aws)
	defer srv.Close()
	env := build.AppEnviron(os.Environ(), "AWS_ENDPOINT_URL="+srv.URL, "AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret",
		"FRAMEWORK_RES_CONNECTIONS_NAME=chat-dev-connections", names.EnvWebSocketEndpoint+"="+srv.URL+"/dev")
	for _, tc := range []struct {
		handler, event string
		want           string // the exact response payload
		calls          string // the AWS calls made, in order
	}{
		{"connect", "connect-noname.json", `{"statusCode":400,"headers":{"Content-Type":"application/json"},"multiValueHeaders":null,"body":"{\"Code\":\"BadRequestError\",\"Message\":\"connect with ?name=YOUR_NAME\"}"}`, ""},
		{"connect", "connect.json", `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`, "DynamoDB_20120810.PutItem"},
		{"say", "message.json", `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`,
			"DynamoDB_20120810.Scan\nPOST /dev/@connections/SxbAPdTjIAMCJdA= {\"from\":\"SxbAPdTjIAMCJdA=\",\"text\":\"hello\"}\nPOST /dev/@connections/gone1 {\"from\":\"SxbAPdTjIAMCJdA=\",\"text\":\"hello\"}\nDynamoDB_20120810.DeleteItem"},
		{"say", "message-bad.json", `{"statusCode":400,"headers":{"Content-Type":"application/json"},"multiValueHeaders":null,"body":"{\"Code\":\"BadRequestError\",\"Message\":\"the message is not a main.Say: json: cannot unmarshal number into Go struct field Say.text of type string\"}"}`, ""},
		{"disconnect", "disconnect.json", `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`, "DynamoDB_20120810.DeleteItem"},
	} {
		t.Run(tc.handler+"/"+tc.event, func(t *testing.T) {
			fn := testutil.StartFunction(t, bin, append(env, names.EnvHandler+"="+tc.handler), runtimeapi.WithTimeout(10*time.Second))
			event, err := os.ReadFile(filepath.Join("testdata", tc.event))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			got, err := fn.Invoke(ctx, event)
			if err != nil {
				t.Fatalf("Invoke: %v\n%s", err, fn.Output.String())
			}
			if string(got) != tc.want {
				t.Errorf("response %s\nwant %s", got, tc.want)
			}
			if calls := aws.take(); calls != tc.calls {
				t.Errorf("AWS calls:\n%s\nwant:\n%s", calls, tc.calls)
			}
		})
	}
}
