package localres

import (
	"slices"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// A function's process gets the variables of the resources it may use and
// no others; behind the IAM check, a queue's URL at the emulator names the
// proxy (same path) and only AWS_REGION of the AWS settings is kept; with
// no check, the emulator stays the endpoint.
func TestFunctionEnv(t *testing.T) {
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceTable}, {Name: "audit", Kind: manifest.ResourceTable}, {Name: "jobs", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs", Grants: []manifest.Grant{{Resource: "orders", Access: manifest.AccessRead}}}},
		Routes:    []manifest.Route{{Methods: []string{"GET"}, Path: "/a", Handler: "list", Grants: []manifest.Grant{{Resource: "audit", Access: manifest.AccessWrite}}}},
	}
	r := &Resources{Client: &Client{endpoint: "http://127.0.0.1:5000"}, Attrs: map[string]map[string]string{
		"orders": {manifest.AttrName: "shop-dev-orders"},
		"audit":  {manifest.AttrName: "shop-dev-audit"},
		"jobs":   {manifest.AttrName: "shop-dev-jobs", manifest.AttrURL: "http://127.0.0.1:5000/123456789012/shop-dev-jobs"},
	}, Env: []string{"AWS_REGION=us-east-1", "AWS_ENDPOINT_URL=http://127.0.0.1:5000", "AWS_ACCESS_KEY_ID=test"}}
	r.withEnv(m)
	uses := Uses(m)
	if !slices.Equal(uses["api"], []string{"audit"}) || !slices.Equal(uses["work"], []string{"jobs", "orders"}) {
		t.Fatalf("Uses: %v, want api: audit, work: jobs and orders", uses)
	}

	got := r.FunctionEnv(uses["work"], "http://127.0.0.1:7000")
	want := []string{"AWS_REGION=us-east-1", "FRAMEWORK_RES_ORDERS_NAME=shop-dev-orders",
		"FRAMEWORK_RES_JOBS_NAME=shop-dev-jobs", "FRAMEWORK_RES_JOBS_URL=http://127.0.0.1:7000/123456789012/shop-dev-jobs"}
	if !slices.Equal(got, want) {
		t.Errorf("work behind the proxy:\n got %q\nwant %q", got, want)
	}
	got = r.FunctionEnv(uses["api"], "")
	want = []string{"AWS_REGION=us-east-1", "AWS_ENDPOINT_URL=http://127.0.0.1:5000", "AWS_ACCESS_KEY_ID=test", "FRAMEWORK_RES_AUDIT_NAME=shop-dev-audit"}
	if !slices.Equal(got, want) {
		t.Errorf("api without the check:\n got %q\nwant %q", got, want)
	}

	got = ProxyEndpoints([]string{"HOME=/h", "AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:5000", "AWS_ENDPOINT_URL_STS=http://127.0.0.1:5000"}, "http://127.0.0.1:7000", "http://127.0.0.1:5000")
	want = []string{"AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:7000", "AWS_ENDPOINT_URL_STS=http://127.0.0.1:7000", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=", "FRAMEWORK_LOCAL_RESOURCES=emulator"}
	if !slices.Equal(got, want) {
		t.Errorf("ProxyEndpoints:\n got %q\nwant %q", got, want)
	}
}
