package localres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestEmulatorUpdatesTableIndexes: a global index added to or removed
// from the declaration of a table already at the emulator (moto) is added
// or removed in place, with a line saying so, and the table keeps its
// items, which a query on the new index finds; a changed local index
// cannot be, so a line says what differs and how to recreate the table.
func TestEmulatorUpdatesTableIndexes(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	table := "links-dev-links"
	d := manifest.Resource{Name: "links", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"},
		GlobalIndexes: []manifest.Index{{Name: "byOwner", PartitionKey: &manifest.KeyAttr{Name: "owner", Type: "S"}}}}
	m := &manifest.Manifest{App: "links", Resources: []manifest.Resource{d}}
	o := Options{App: "links", Stage: "dev", Endpoint: moto.URL}
	r, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) map[string]string { return map[string]string{"S": v} }
	item := map[string]any{"id": s("l1"), "owner": s("ann"), "tag": s("go"), "at": map[string]string{"N": "7"}}
	if err := r.Client.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": table, "Item": item}, nil); err != nil {
		t.Fatal(err)
	}
	indexes := func() []string {
		t.Helper()
		var out struct {
			Table struct{ GlobalSecondaryIndexes []tableIndex }
		}
		if err := r.Client.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": table}, &out); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, x := range out.Table.GlobalSecondaryIndexes {
			names = append(names, x.IndexName+" "+x.Projection.ProjectionType)
		}
		slices.Sort(names)
		return names
	}

	// byOwner removed, byTag added (with a sort key of a type the table
	// does not define yet).
	m.Resources[0].GlobalIndexes = []manifest.Index{{Name: "byTag", PartitionKey: &manifest.KeyAttr{Name: "tag", Type: "S"},
		SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}, Projection: manifest.ProjectionKeysOnly}}
	if r, err = Resolve(ctx, m, o); err != nil {
		t.Fatal(err)
	}
	if got, want := indexes(), []string{"byTag KEYS_ONLY"}; !slices.Equal(got, want) {
		t.Errorf("global indexes at the emulator %q, want %q", got, want)
	}
	want := Change{Resource: table, Applied: true, Line: "Updated table links-dev-links at the emulator to its declaration: global index byOwner removed, global index byTag added. Deployed, CloudFormation adds or removes one global index per deploy: deploy the changes one at a time."}
	if !slices.Contains(r.Changes, want) {
		t.Errorf("changes %v\nwant %v", r.Changes, want)
	}
	var q struct {
		Count int
		Items []map[string]map[string]string
	}
	err = r.Client.Call(ctx, "dynamodb", "Query", map[string]any{"TableName": table, "IndexName": "byTag", "KeyConditionExpression": "tag = :t",
		"ExpressionAttributeValues": map[string]any{":t": s("go")}}, &q)
	if err != nil || q.Count != 1 || q.Items[0]["id"]["S"] != "l1" {
		t.Errorf("query on the added index: %+v, %v; want the item written before", q, err)
	}

	// A changed projection: the index is built again.
	m.Resources[0].GlobalIndexes[0].Projection = ""
	if r, err = Resolve(ctx, m, o); err != nil {
		t.Fatal(err)
	}
	if got, want := indexes(), []string{"byTag ALL"}; !slices.Equal(got, want) {
		t.Errorf("global indexes after the projection changed %q, want %q", got, want)
	}
	if lines := fmt.Sprint(r.Changes); !strings.Contains(lines, "Updated table links-dev-links at the emulator to its declaration: global index byTag changed (tag (S), at (N); KEYS_ONLY -> tag (S), at (N); ALL; a deployed stack cannot change an index in place: rename it there).") {
		t.Errorf("changes after the projection changed: %s", lines)
	}

	// A local index added: DynamoDB makes those with the table only.
	m.Resources[0].LocalIndexes = []manifest.Index{{Name: "byAt", SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}}}
	if r, err = Resolve(ctx, m, o); err != nil {
		t.Fatal(err)
	}
	wantLine := "Table links-dev-links at the emulator differs from its declaration and DynamoDB cannot change that in place: its local indexes are none at the emulator and byAt (id (S), at (N); ALL) declared (DynamoDB makes local indexes with the table only). It stays as it is, with its items; to recreate it (its items are lost), delete it (aws dynamodb delete-table --table-name links-dev-links --endpoint-url " + moto.URL + ") and save a file."
	if len(r.Changes) != 1 || r.Changes[0].Applied || r.Changes[0].Line != wantLine {
		t.Errorf("changes with a local index added: %v\nwant only the line %q", r.Changes, wantLine)
	}
	var scan struct{ Count int }
	if err := r.Client.Call(ctx, "dynamodb", "Scan", map[string]any{"TableName": table}, &scan); err != nil || scan.Count != 1 {
		t.Errorf("the table's items after its indexes changed: %d, %v; want its item kept", scan.Count, err)
	}
}
