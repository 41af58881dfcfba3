package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// tableIndexesManifest is an app whose table has two global indexes and a
// local one; the route get_links reads it.
func tableIndexesManifest() *manifest.Manifest {
	get := route("/links", "GET")
	get.Grants = []manifest.Grant{{Resource: "links", Access: manifest.AccessRead}}
	return &manifest.Manifest{
		Version: manifest.Version, App: "links", Routes: []manifest.Route{get},
		Resources: []manifest.Resource{{Name: "links", Kind: manifest.ResourceTable,
			PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"},
			GlobalIndexes: []manifest.Index{
				{Name: "byOwner", PartitionKey: &manifest.KeyAttr{Name: "owner", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}},
				{Name: "byTag", PartitionKey: &manifest.KeyAttr{Name: "tag", Type: "S"}, Projection: manifest.ProjectionInclude, NonKeyAttributes: []string{"title"}},
			},
			LocalIndexes: []manifest.Index{{Name: "byTitle", SortKey: &manifest.KeyAttr{Name: "title", Type: "S"}, Projection: manifest.ProjectionKeysOnly}},
		}},
	}
}

// TestStackTableIndexes: the declared indexes are on the stack's table
// with their keys and projections, the function reading the table may
// read its indexes (the IAM statement names "<table arn>/index/*"), and
// point-in-time recovery and deletion protection follow the stage (on in
// prod, absent in dev) unless the declaration turns them either way; the
// templates pass cfn-lint.
func TestStackTableIndexes(t *testing.T) {
	on, off := true, false
	for _, c := range []struct {
		stage         string
		pitr, protect *bool
		want          string
	}{
		{"dev", &on, nil, `map[PointInTimeRecoveryEnabled:true] <nil>`},
		{"prod", nil, &off, `map[PointInTimeRecoveryEnabled:true] false`},
		{"prod", nil, nil, `map[PointInTimeRecoveryEnabled:true] true`},
		{"dev", nil, nil, `<nil> <nil>`},
	} {
		m := tableIndexesManifest()
		m.Resources[0].PointInTimeRecovery, m.Resources[0].DeletionProtection = c.pitr, c.protect
		res, err := assemble(context.Background(), prebuilt(t, m, c.stage, nil, nil), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tpl := readTemplate(t, res.TemplatePath)
		table := tpl.one(t, "AWS::DynamoDB::Table").Properties
		if got := fmt.Sprint(table["PointInTimeRecoverySpecification"], " ", table["DeletionProtectionEnabled"]); got != c.want {
			t.Errorf("stage %s, PITR %v, deletion protection %v: got %s, want %s", c.stage, c.pitr, c.protect, got, c.want)
		}
		cfnLint(t, res.TemplatePath)
		if c.stage != "dev" || c.pitr == nil {
			continue
		}
		idx, _ := json.Marshal([]any{table["GlobalSecondaryIndexes"], table["LocalSecondaryIndexes"], table["AttributeDefinitions"]})
		for _, want := range []string{
			`{"IndexName":"byOwner","KeySchema":[{"AttributeName":"owner","KeyType":"HASH"},{"AttributeName":"at","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}`,
			`{"IndexName":"byTag","KeySchema":[{"AttributeName":"tag","KeyType":"HASH"}],"Projection":{"NonKeyAttributes":["title"],"ProjectionType":"INCLUDE"}}`,
			`{"IndexName":"byTitle","KeySchema":[{"AttributeName":"id","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}`,
			`{"AttributeName":"owner","AttributeType":"S"}`, `{"AttributeName":"tag","AttributeType":"S"}`, `{"AttributeName":"title","AttributeType":"S"}`,
		} {
			if !strings.Contains(string(idx), want) {
				t.Errorf("table lacks %s:\n%s", want, idx)
			}
		}
		// The function's statement granting dynamodb:Query names the
		// table and its indexes.
		found := false
		for _, r := range tpl.Resources {
			if r.Type != "AWS::IAM::Role" {
				continue
			}
			b, _ := json.Marshal(r.Properties["Policies"])
			if strings.Contains(string(b), "dynamodb:Query") && strings.Contains(string(b), `"/index/*"`) {
				found = true
			}
		}
		if !found {
			t.Error("no role grants dynamodb:Query on the table's indexes (<table arn>/index/*)")
		}
	}
}
