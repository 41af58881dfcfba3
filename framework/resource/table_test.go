package resource_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/internal/apphook"
)

// A table's indexes and protection toggles reach the manifest as the stack
// reads them; a toggle left at StageDefault is absent (the stage decides).
func TestTableIndexesReachTheManifest(t *testing.T) {
	app := framework.New("links")
	resource.NewTable(app, "links", resource.TableSpec{
		PartitionKey: key("id"), SortKey: resource.Key{Name: "at", Type: resource.Number},
		GlobalIndexes: []resource.GlobalIndex{
			{Name: "byOwner", PartitionKey: key("owner"), SortKey: resource.Key{Name: "at", Type: resource.Number}},
			{Name: "byTag", PartitionKey: key("tag"), Projection: resource.ProjectInclude, Attributes: []string{"title"}},
		},
		LocalIndexes:       []resource.LocalIndex{{Name: "byTitle", SortKey: key("title"), Projection: resource.ProjectKeysOnly}},
		DeletionProtection: resource.Off,
	})
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(m.Resources[0])
	want := `{"name":"links","kind":"table","partition_key":{"name":"id","type":"S"},"sort_key":{"name":"at","type":"N"},` +
		`"global_indexes":[{"name":"byOwner","partition_key":{"name":"owner","type":"S"},"sort_key":{"name":"at","type":"N"}},` +
		`{"name":"byTag","partition_key":{"name":"tag","type":"S"},"projection":"INCLUDE","non_key_attributes":["title"]}],` +
		`"local_indexes":[{"name":"byTitle","sort_key":{"name":"title","type":"S"},"projection":"KEYS_ONLY"}],"deletion_protection":false}`
	if string(got) != want {
		t.Errorf("table\n got %s\nwant %s", got, want)
	}
}

// A mistake in an index is a declaration error when the app starts
// (App.Validate), naming the table and the index.
func TestTableIndexErrorsAtStart(t *testing.T) {
	app := framework.New("links")
	resource.NewTable(app, "links", resource.TableSpec{
		PartitionKey:  key("id"),
		LocalIndexes:  []resource.LocalIndex{{Name: "byTitle", SortKey: key("title")}},
		GlobalIndexes: []resource.GlobalIndex{{Name: "byOwner", PartitionKey: key("owner"), Attributes: []string{"title"}}},
	})
	err := app.Validate()
	for _, want := range []string{`table "links": local index "byTitle": a local index needs a table with a sort key`,
		`table "links": global index "byOwner": attributes [title] are listed, but its projection is ALL`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
