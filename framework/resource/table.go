package resource

import "github.com/framework-dev/framework/internal/manifest"

// GlobalIndex is a global secondary index of a table: the table's items
// again, under other keys, for a Query (or Scan) with IndexName set to
// Name. A function granted an access to the table has the same access to
// its indexes.
//
// Adding or removing a global index changes the deployed table in place:
// its items stay, and DynamoDB fills a new index from them in the
// background. CloudFormation adds or removes one global index of a table
// per deploy and cannot change an index's keys or projection: to change
// them, add an index under a new name, deploy, then remove the old one.
type GlobalIndex struct {
	// Name names the index in a query's IndexName: 3 to 255 letters,
	// digits, '_', '-' and '.', unique among the table's indexes.
	Name string
	// PartitionKey is required.
	PartitionKey Key
	// SortKey is optional: none when its Name is empty.
	SortKey Key
	// Projection is what the index holds of each item besides the
	// table's and the index's keys: every attribute when zero
	// (ProjectAll).
	Projection Projection
	// Attributes are the attributes an index with ProjectInclude holds
	// besides the keys; listed with another projection, they are a
	// declaration error.
	Attributes []string
}

// LocalIndex is a local secondary index of a table that has a sort key:
// the table's items under the same partition key, sorted by another
// attribute. A table has at most 5, and they exist only from its creation:
// adding, changing or removing one replaces the deployed table, and with
// it its data (`framework diff` warns of it).
type LocalIndex struct {
	// Name names the index in a query's IndexName (as GlobalIndex.Name).
	Name string
	// SortKey is required, an attribute other than the table's sort key.
	SortKey Key
	// Projection and Attributes are as in GlobalIndex.
	Projection Projection
	Attributes []string
}

// Projection is what a secondary index holds of each item besides its
// keys.
type Projection string

// Projections.
const (
	ProjectAll      Projection = ""          // every attribute (the zero value)
	ProjectKeysOnly Projection = "KEYS_ONLY" // the keys only
	ProjectInclude  Projection = "INCLUDE"   // the keys and the Attributes listed
)

// Toggle turns an option on or off, or leaves it to the stage's default
// (its zero value).
type Toggle int8

// Toggles.
const (
	StageDefault Toggle = iota // the stage's default
	On                         // on in every stage
	Off                        // off in every stage
)

func (t Toggle) ptr() *bool {
	if t == StageDefault {
		return nil
	}
	on := t == On
	return &on
}

func indexOf(name string, pk, sk Key, p Projection, attrs []string) manifest.Index {
	return manifest.Index{Name: name, PartitionKey: keyOf(pk), SortKey: keyOf(sk), Projection: string(p), NonKeyAttributes: attrs}
}

// tableIndexes adds spec's indexes and protection settings to r.
func tableIndexes(r *manifest.Resource, spec *TableSpec) {
	for _, x := range spec.GlobalIndexes {
		r.GlobalIndexes = append(r.GlobalIndexes, indexOf(x.Name, x.PartitionKey, x.SortKey, x.Projection, x.Attributes))
	}
	for _, x := range spec.LocalIndexes {
		r.LocalIndexes = append(r.LocalIndexes, indexOf(x.Name, Key{}, x.SortKey, x.Projection, x.Attributes))
	}
	r.PointInTimeRecovery, r.DeletionProtection = spec.PointInTimeRecovery.ptr(), spec.DeletionProtection.ptr()
}
