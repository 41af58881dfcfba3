package manifest_test

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

func tableManifest(edit func(r *manifest.Resource)) *manifest.Manifest {
	r := manifest.Resource{Name: "links", Kind: manifest.ResourceTable,
		PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"},
		GlobalIndexes: []manifest.Index{{Name: "byOwner", PartitionKey: &manifest.KeyAttr{Name: "owner", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "at", Type: "N"}}},
		LocalIndexes:  []manifest.Index{{Name: "byTitle", SortKey: &manifest.KeyAttr{Name: "title", Type: "S"}, Projection: manifest.ProjectionInclude, NonKeyAttributes: []string{"done"}}},
	}
	if edit != nil {
		edit(&r)
	}
	return &manifest.Manifest{Version: manifest.Version, App: "links", Resources: []manifest.Resource{r}}
}

// TestTableIndexDeclarations: a table with a global and a local index is
// valid; each mistake in declaring indexes or the protection options is
// refused by Validate (which the app runs at start and synth runs), with
// an error naming the table and the index and saying what to do.
func TestTableIndexDeclarations(t *testing.T) {
	if err := manifest.Validate(tableManifest(nil)); err != nil {
		t.Fatalf("valid table: %v", err)
	}
	key := func(n, typ string) *manifest.KeyAttr { return &manifest.KeyAttr{Name: n, Type: typ} }
	many := func(n int, local bool) []manifest.Index {
		var out []manifest.Index
		for i := range n {
			x := manifest.Index{Name: "idx" + string(rune('a'+i)), SortKey: key("s", "S")}
			if !local {
				x.PartitionKey = key("p", "S")
			}
			out = append(out, x)
		}
		return out
	}
	for name, c := range map[string]struct {
		edit func(r *manifest.Resource)
		want string
	}{
		"short name":     {func(r *manifest.Resource) { r.GlobalIndexes[0].Name = "by" }, `table "links": global index "by": an index name is 3 to 255 letters`},
		"bad characters": {func(r *manifest.Resource) { r.GlobalIndexes[0].Name = "by owner" }, `global index "by owner": an index name is 3 to 255`},
		"duplicate":      {func(r *manifest.Resource) { r.LocalIndexes[0].Name = "byOwner" }, `two indexes are named "byOwner": rename one`},
		"gsi no key":     {func(r *manifest.Resource) { r.GlobalIndexes[0].PartitionKey = nil }, `global index "byOwner": give it a partition key`},
		"gsi bad type":   {func(r *manifest.Resource) { r.GlobalIndexes[0].PartitionKey.Type = "X" }, `global index "byOwner": give it a partition key with a name and a type of S`},
		"lsi no table sort key": {func(r *manifest.Resource) { r.SortKey = nil; r.GlobalIndexes[0].SortKey = nil },
			`local index "byTitle": a local index needs a table with a sort key`},
		"lsi own partition key": {func(r *manifest.Resource) { r.LocalIndexes[0].PartitionKey = key("x", "S") }, `local index "byTitle": a local index has the table's partition key`},
		"lsi no sort key":       {func(r *manifest.Resource) { r.LocalIndexes[0].SortKey = nil }, `local index "byTitle": give it a sort key`},
		"lsi table sort key":    {func(r *manifest.Resource) { r.LocalIndexes[0].SortKey = key("at", "N") }, `its sort key "at" is the table's`},
		"too many gsi":          {func(r *manifest.Resource) { r.GlobalIndexes = many(21, false) }, `21 global secondary indexes: a table has at most 20`},
		"too many lsi":          {func(r *manifest.Resource) { r.LocalIndexes = many(6, true) }, `6 local secondary indexes: a table has at most 5`},
		"attrs without include": {func(r *manifest.Resource) { r.GlobalIndexes[0].NonKeyAttributes = []string{"title"} },
			`global index "byOwner": attributes [title] are listed, but its projection is ALL: use the projection INCLUDE`},
		"attrs with keys only": {func(r *manifest.Resource) {
			r.LocalIndexes[0].Projection = manifest.ProjectionKeysOnly
		}, `its projection is KEYS_ONLY`},
		"include without attrs": {func(r *manifest.Resource) { r.LocalIndexes[0].NonKeyAttributes = nil }, `its projection INCLUDE lists no attribute`},
		"unknown projection":    {func(r *manifest.Resource) { r.GlobalIndexes[0].Projection = "SOME" }, `projection "SOME": use one of ALL, KEYS_ONLY, INCLUDE`},
		"key types differ":      {func(r *manifest.Resource) { r.GlobalIndexes[0].SortKey.Type = "S" }, `key attribute "at" is of type S here and N in another key`},
		"too many projected": {func(r *manifest.Resource) {
			for i := range 100 {
				r.LocalIndexes[0].NonKeyAttributes = append(r.LocalIndexes[0].NonKeyAttributes, "a"+strings.Repeat("x", i))
			}
		}, `project 101 attributes besides the keys: DynamoDB allows 100`},
	} {
		err := manifest.Validate(tableManifest(c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
	on := true
	m := &manifest.Manifest{Version: manifest.Version, App: "links", Resources: []manifest.Resource{
		{Name: "jobs", Kind: manifest.ResourceQueue, DeletionProtection: &on, GlobalIndexes: tableManifest(nil).Resources[0].GlobalIndexes}}}
	if err := manifest.Validate(m); err == nil || !strings.Contains(err.Error(), `queue "jobs": only a table takes secondary indexes and deletion protection`) {
		t.Errorf("queue with table options: %v", err)
	}
}

// TestTableProtectionDefaults: point-in-time recovery and deletion
// protection are on in the stages that keep data (as the removal policy),
// off elsewhere, and a declaration turns either way.
func TestTableProtectionDefaults(t *testing.T) {
	on, off := true, false
	r := &manifest.Resource{Name: "t", Kind: manifest.ResourceTable}
	for stage, want := range map[string]bool{"prod": true, "eu-live": true, "dev": false, "preprod": false} {
		if p, d := r.TableProtection(stage); p != want || d != want {
			t.Errorf("stage %s: PITR %v, deletion protection %v; want %v", stage, p, d, want)
		}
	}
	r.PointInTimeRecovery, r.DeletionProtection = &off, &on
	if p, d := r.TableProtection("prod"); p || !d {
		t.Errorf("prod with PITR off: %v %v", p, d)
	}
	if p, d := r.TableProtection("dev"); p || !d {
		t.Errorf("dev with deletion protection on: %v %v", p, d)
	}
}
