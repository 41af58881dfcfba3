package localres

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestEmulatorTableIndexes: the table `framework local` creates at the
// emulator (moto) has the declared global and local indexes, with their
// projections, and a Query on each returns the item written to the
// table.
func TestEmulatorTableIndexes(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "links", Resources: []manifest.Resource{{Name: "links", Kind: manifest.ResourceTable,
		PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"},
		GlobalIndexes: []manifest.Index{
			{Name: "byOwner", PartitionKey: &manifest.KeyAttr{Name: "owner", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}},
			{Name: "byTag", PartitionKey: &manifest.KeyAttr{Name: "tag", Type: "S"}, Projection: manifest.ProjectionInclude, NonKeyAttributes: []string{"title"}},
		},
		LocalIndexes: []manifest.Index{{Name: "byTitle", SortKey: &manifest.KeyAttr{Name: "title", Type: "S"}, Projection: manifest.ProjectionKeysOnly}},
	}}}
	if err := manifest.Validate(m); err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(ctx, m, Options{App: "links", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	c, table := r.Client, "links-dev-links"
	var desc struct {
		Table struct {
			GlobalSecondaryIndexes, LocalSecondaryIndexes []struct {
				IndexName  string
				Projection struct {
					ProjectionType   string
					NonKeyAttributes []string
				}
			}
		}
	}
	if err := c.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": table}, &desc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range append(desc.Table.GlobalSecondaryIndexes, desc.Table.LocalSecondaryIndexes...) {
		got = append(got, fmt.Sprint(x.IndexName, " ", x.Projection.ProjectionType, x.Projection.NonKeyAttributes))
	}
	slices.Sort(got)
	if want := []string{"byOwner ALL[]", "byTag INCLUDE[title]", "byTitle KEYS_ONLY[]"}; !slices.Equal(got, want) {
		t.Errorf("emulator table's indexes %q, want %q", got, want)
	}
	// The same declaration again: the indexes there are the declared
	// ones, nothing to update or say.
	again, err := Resolve(ctx, m, Options{App: "links", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changes != nil {
		t.Errorf("the same declaration again: changes %v, want none", again.Changes)
	}

	s := func(v string) map[string]string { return map[string]string{"S": v} }
	item := map[string]any{"id": s("l1"), "at": map[string]string{"N": "7"}, "owner": s("ann"), "tag": s("go"), "title": s("Go spec")}
	if err := c.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": table, "Item": item}, nil); err != nil {
		t.Fatal(err)
	}
	for index, q := range map[string][2]any{
		"byOwner": {"#k = :v", s("ann")},
		"byTag":   {"#k = :v", s("go")},
		"byTitle": {"#k = :v", s("l1")},
	} {
		key := map[string]string{"byOwner": "owner", "byTag": "tag", "byTitle": "id"}[index]
		var out struct {
			Count int
			Items []map[string]map[string]string
		}
		err := c.Call(ctx, "dynamodb", "Query", map[string]any{"TableName": table, "IndexName": index, "KeyConditionExpression": q[0],
			"ExpressionAttributeNames": map[string]string{"#k": key}, "ExpressionAttributeValues": map[string]any{":v": q[1]}}, &out)
		if err != nil {
			t.Errorf("query on %s: %v", index, err)
			continue
		}
		if out.Count != 1 || out.Items[0]["id"]["S"] != "l1" {
			t.Errorf("query on %s: %+v, want the item l1", index, out)
		}
	}
}
