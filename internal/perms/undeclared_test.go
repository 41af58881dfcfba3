package perms

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
)

// TestUndeclaredGrants: each scanned call granted on "*" is listed once
// per call site and action, with the functions granted it, why and how to
// declare it: s3.ListBuckets (an account-level action, with a bucket
// declared), a DynamoDB call with no table declared, a service the app
// cannot declare. A call within a declaration is not listed.
func TestUndeclaredGrants(t *testing.T) {
	m := shortener()
	m.Resources = append(m.Resources, manifest.Resource{Name: "files", Kind: manifest.ResourceBucket})
	m.Grants = append(m.Grants, manifest.Grant{Resource: "files", Access: manifest.AccessRead})
	route := []string{policy.RoutePrefix + "redirect"}
	calls := []policy.Call{
		{Pos: "main.go:40:3", Package: sdk + "dynamodb", Operation: "GetItem", Actions: []string{"dynamodb:GetItem"}, Functions: route, Target: &policy.Target{Kind: "table", Name: "links"}},
		{Pos: "main.go:42:3", Package: sdk + "s3", Operation: "ListBuckets", Actions: []string{"s3:ListAllMyBuckets"}, Functions: route},
		{Pos: "main.go:44:3", Package: sdk + "s3", Operation: "ListBuckets", Actions: []string{"s3:ListAllMyBuckets"}, Functions: []string{"count"}},
		{Pos: "main.go:70:3", Package: sdk + "rekognition", Operation: "DetectLabels", Actions: []string{"rekognition:DetectLabels"}, Functions: []string{"importCsv", "count"}},
	}
	p, err := Compute(Input{Manifest: m, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range p.Undeclared {
		got = append(got, g.String())
	}
	want := []string{
		`main.go:42: s3.ListBuckets is granted s3:ListAllMyBuckets on "*" to function api (targets no bucket: the account, or another kind of resource); no declaration narrows it; to grant less, write the policy yourself`,
		`main.go:44: s3.ListBuckets is granted s3:ListAllMyBuckets on "*" to function count (targets no bucket`,
		`main.go:70: rekognition.DetectLabels is granted rekognition:DetectLabels on "*" to function count, importCsv (the app can declare no rekognition resource); to grant less, write the policy yourself (.framework/policy.json with autogen_policy false`,
	}
	if len(got) != len(want) {
		t.Fatalf("undeclared grants:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("grant %d:\n%s\nwant it to start\n%s", i, got[i], want[i])
		}
	}

	// No table declared: the hint says which constructor declares one.
	m2 := &manifest.Manifest{Version: manifest.Version, App: "x", Routes: []manifest.Route{{Path: "/", Methods: []string{"GET"}, Handler: "index"}}}
	p, err = Compute(Input{Manifest: m2, Calls: []policy.Call{{Pos: "main.go:3:1", Package: sdk + "dynamodb", Operation: "PutItem", Actions: []string{"dynamodb:PutItem"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Undeclared) != 1 || !strings.Contains(p.Undeclared[0].String(), `(the app declares no table); declare the table it uses (resource.NewTable(app, "name", ...)) and Allow the access`) {
		t.Errorf("undeclared table call: %+v", p.Undeclared)
	}
}
