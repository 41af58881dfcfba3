package perms

import (
	"slices"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
)

// TestTableAccessNamesIndexes: an access to a table is an access to its
// indexes: the statement names "<table arn>/index/*" besides the table,
// so the construct's role, gen-policy, diff's permission view and the
// local IAM check (Allows) all let a handler that may read the table
// query its global index, and none lets it write through the index.
func TestTableAccessNamesIndexes(t *testing.T) {
	m := &manifest.Manifest{Version: manifest.Version, App: "links",
		Routes: []manifest.Route{{Path: "/mine", Methods: []string{"GET"}, Handler: "mine", Grants: []manifest.Grant{{Resource: "links", Access: manifest.AccessRead}}}},
		Resources: []manifest.Resource{{Name: "links", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "code", Type: "S"},
			GlobalIndexes: []manifest.Index{{Name: "byOwner", PartitionKey: &manifest.KeyAttr{Name: "owner", Type: "S"}}}}},
	}
	pols, err := Compute(Input{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	api := pols.Function(policy.APIFunction)
	const arn = "arn:aws:dynamodb:us-east-1:123456789012:table/links-dev-links"
	attr := func(name, a string) (string, bool) { return arn, name == "links" && a == manifest.AttrARN }
	doc, err := api.Document(attr, ReasonLogging)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range doc.Statement {
		if slices.Contains(s.Action, "dynamodb:Query") {
			found = slices.Equal(s.Resource, []string{arn, arn + "/index/*"})
		}
	}
	if !found {
		t.Errorf("no statement grants dynamodb:Query on the table and its indexes: %+v", doc.Statement)
	}
	if !api.Allows("dynamodb:Query", arn+"/index/byOwner", attr) {
		t.Error("a Query on the index is refused")
	}
	if api.Allows("dynamodb:PutItem", arn+"/index/byOwner", attr) || api.Allows("dynamodb:Query", arn+"-other/index/byOwner", attr) {
		t.Error("a write, or another table's index, is allowed")
	}
}
