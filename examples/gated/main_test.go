package main

import (
	"fmt"
	"testing"

	"github.com/framework-dev/framework/frameworktest"
)

// TestAuthorizers sends each request through the local server and through
// the Lambda adapter (API Gateway calling the authorizer's function, then
// the API's), which answer alike, behind a REST API and an HTTP API.
func TestAuthorizers(t *testing.T) {
	c := frameworktest.New(newApp())
	for _, tc := range []struct {
		path    string
		headers map[string]string
		status  int
		body    string
		http    string // the HTTP API's answer when it differs: status and body
	}{
		{"/", nil, 200, `{"hello":"anyone"}`, ""},
		{"/me", nil, 401, `{"message":"Unauthorized"}`, ""},
		{"/me", map[string]string{"Authorization": "Bearer t-nobody"}, 401, `{"message":"Unauthorized"}`, `403 {"message":"Forbidden"}`},
		{"/me", map[string]string{"Authorization": "Bearer t-alice"}, 200, `{"role":"admin","user":"alice"}`, ""},
		{"/tenants/acme/report?key=k-acme", map[string]string{"X-Tenant": "acme"}, 200, `{"paid":true,"tenant":"acme"}`, ""},
		{"/tenants/acme/report?key=k-globex", map[string]string{"X-Tenant": "acme"}, 403, `{"Message":"User is not authorized to access this resource with an explicit deny"}`, `403 {"message":"Forbidden"}`},
		{"/tenants/acme/report?key=k-globex", map[string]string{"X-Tenant": "globex"}, 403, `{"Code":"ForbiddenError","Message":"this key is for tenant globex"}`, ""},
		{"/tenants/acme/report", map[string]string{"X-Tenant": "acme"}, 401, `{"message":"Unauthorized"}`, ""},
	} {
		for _, door := range []string{"rest", "http"} {
			c.APIType = door
			want := fmt.Sprintf("%d %s", tc.status, tc.body)
			if door == "http" && tc.http != "" {
				want = tc.http
			}
			for via, res := range map[string]*frameworktest.Response{
				"local":  c.Get(tc.path, tc.headers),
				"lambda": c.Lambda("GET", tc.path, nil, tc.headers),
			} {
				if got := fmt.Sprintf("%d %s", res.StatusCode, res.Body); got != want {
					t.Errorf("GET %s %v, %s via %s: %s, want %s", tc.path, tc.headers, door, via, got, want)
				}
			}
		}
	}
}
