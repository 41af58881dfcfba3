package main

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestAuthorizerFunctions runs the example's binary, built as deployed, as
// each authorizer's function (FRAMEWORK_HANDLER set as the construct sets
// it) against a Runtime API stand-in, and sends it the events API Gateway
// sends: a REST TOKEN event (allowed: a policy for the whole stage, the
// decisions being cached; unknown token: the error "Unauthorized", which
// API Gateway turns into 401), a REST REQUEST event (denied per method,
// caching off) and an HTTP API 2.0 event (a simple response).
func TestAuthorizerFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the function binary")
	}
	bin := testutil.BuildBootstrap(t, ".")
	const arn = "arn:aws:execute-api:us-east-1:123456789012:abc123/dev/GET/"
	for _, tc := range []struct {
		name, handler, event string
		want, errMsg         string
	}{
		{"token allowed", "bearer", `{"type":"TOKEN","authorizationToken":"Bearer t-alice","methodArn":"` + arn + `me"}`,
			`{"principalId":"alice","policyDocument":{"Version":"2012-10-17","Statement":[{"Action":["execute-api:Invoke"],"Effect":"Allow","Resource":["arn:aws:execute-api:us-east-1:123456789012:abc123/dev/*"]}]},"context":{"role":"admin"}}`, ""},
		{"token unknown", "bearer", `{"type":"TOKEN","authorizationToken":"Bearer nope","methodArn":"` + arn + `me"}`, "", "Unauthorized"},
		{"request denied", "tenant-key", `{"type":"REQUEST","methodArn":"` + arn + `tenants/acme/report","httpMethod":"GET","path":"/tenants/acme/report","headers":{"X-Tenant":"acme"},"queryStringParameters":{"key":"k-globex"},"pathParameters":{"name":"acme"}}`,
			`{"principalId":"acme","policyDocument":{"Version":"2012-10-17","Statement":[{"Action":["execute-api:Invoke"],"Effect":"Deny","Resource":["` + arn + `tenants/acme/report"]}]},"context":{"paid":true,"tenant":"acme"}}`, ""},
		{"http api allowed", "tenant-key", `{"version":"2.0","type":"REQUEST","routeArn":"arn:aws:execute-api:us-east-1:123456789012:abc123/$default/GET/tenants/acme/report","identitySource":["acme","k-acme"],"routeKey":"GET /tenants/{name}/report","rawPath":"/tenants/acme/report","headers":{"x-tenant":"acme"},"queryStringParameters":{"key":"k-acme"},"requestContext":{"http":{"method":"GET","path":"/tenants/acme/report"}}}`,
			`{"isAuthorized":true,"context":{"paid":"true","principalId":"acme","tenant":"acme"}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := testutil.StartFunction(t, bin, build.AppEnviron(os.Environ(), names.EnvHandler+"="+tc.handler), runtimeapi.WithTimeout(10*time.Second))
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			got, err := fn.Invoke(ctx, []byte(tc.event))
			if tc.errMsg != "" {
				var fe *runtimeapi.FunctionError
				if !errors.As(err, &fe) || fe.Message != tc.errMsg {
					t.Fatalf("Invoke = %s, %v; want the function error %q", got, err, tc.errMsg)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("Invoke = %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
}
