package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// Index is a secondary index of a declared table.
type Index struct {
	// Name is the index's name, unique among the table's indexes: 3 to
	// 255 letters, digits, '_', '-' and '.'.
	Name string `json:"name"`
	// PartitionKey is a global index's partition key (required there); a
	// local index has the table's and leaves it nil.
	PartitionKey *KeyAttr `json:"partition_key,omitempty"`
	// SortKey is the index's sort key: optional for a global index,
	// required for a local one.
	SortKey *KeyAttr `json:"sort_key,omitempty"`
	// Projection is what the index holds of each item: ProjectionAll
	// (also when empty), ProjectionKeysOnly or ProjectionInclude.
	Projection string `json:"projection,omitempty"`
	// NonKeyAttributes are the attributes a ProjectionInclude index holds
	// besides the keys.
	NonKeyAttributes []string `json:"non_key_attributes,omitempty"`
}

// Index projections (Index.Projection), DynamoDB's ProjectionType.
const (
	ProjectionAll      = "ALL"
	ProjectionKeysOnly = "KEYS_ONLY"
	ProjectionInclude  = "INCLUDE"
)

// ProjectionType is the index's projection as DynamoDB takes it: ALL when
// none is declared.
func (x *Index) ProjectionType() string {
	if x.Projection == "" {
		return ProjectionAll
	}
	return x.Projection
}

// DynamoDB's limits on a table's secondary indexes.
const (
	MaxGlobalIndexes     = 20  // global secondary indexes per table (the default quota)
	MaxLocalIndexes      = 5   // local secondary indexes per table
	MaxProjectedNonKeyed = 100 // non-key attributes projected, summed over the table's indexes
)

// TableProtection returns whether the declared table r gets point-in-time
// recovery and deletion protection in stage: what the declaration says, or
// else on in the stages that keep their data (those whose name looks like
// production, names.LooksLikeProduction, as for the removal policy) and
// off in the others.
func (r *Resource) TableProtection(stage string) (pointInTimeRecovery, deletionProtection bool) {
	keeps := names.LooksLikeProduction(stage)
	pick := func(b *bool) bool {
		if b != nil {
			return *b
		}
		return keeps
	}
	return pick(r.PointInTimeRecovery), pick(r.DeletionProtection)
}

// indexNameChars: ^[A-Za-z0-9_.-]+$
var indexNameChars = set("A-Za-z0-9_.-")

// validateTable checks a table's secondary indexes; bad reports each
// problem (the caller names the table).
func (r *Resource) validateTable(bad func(format string, args ...any)) {
	if len(r.GlobalIndexes) > MaxGlobalIndexes {
		bad("%d global secondary indexes: a table has at most %d, remove some", len(r.GlobalIndexes), MaxGlobalIndexes)
	}
	if len(r.LocalIndexes) > MaxLocalIndexes {
		bad("%d local secondary indexes: a table has at most %d, remove some", len(r.LocalIndexes), MaxLocalIndexes)
	}
	// Every key attribute, the table's and the indexes', has one type.
	types := map[string]string{}
	keyType := func(where string, k *KeyAttr) {
		if k == nil || k.Name == "" {
			return
		}
		if t, ok := types[k.Name]; ok && t != k.Type {
			bad("%s: key attribute %q is of type %s here and %s in another key: give it one type", where, k.Name, k.Type, t)
			return
		}
		types[k.Name] = k.Type
	}
	keyType("the table's key", r.PartitionKey)
	keyType("the table's key", r.SortKey)
	seen := map[string]bool{}
	projected := 0
	check := func(x *Index, global bool) {
		kind := "local"
		if global {
			kind = "global"
		}
		where := fmt.Sprintf("%s index %q", kind, x.Name)
		switch {
		case len(x.Name) < 3 || len(x.Name) > 255 || !indexNameChars.all(x.Name):
			bad("%s: an index name is 3 to 255 letters, digits, '_', '-' and '.': rename it", where)
		case seen[x.Name]:
			bad("two indexes are named %q: rename one", x.Name)
		}
		seen[x.Name] = true
		validKey := func(k *KeyAttr) bool {
			return k != nil && k.Name != "" && slices.Contains([]string{"S", "N", "B"}, k.Type)
		}
		if global {
			if !validKey(x.PartitionKey) {
				bad("%s: give it a partition key with a name and a type of S (string), N (number) or B (binary)", where)
			}
			if x.SortKey != nil && !validKey(x.SortKey) {
				bad("%s: sort key %q: give the attribute a name and a type of S (string), N (number) or B (binary)", where, x.SortKey.Name)
			}
		} else {
			if x.PartitionKey != nil {
				bad("%s: a local index has the table's partition key: remove its own", where)
			}
			if r.SortKey == nil {
				bad("%s: a local index needs a table with a sort key: give the table one (which replaces it), or make the index global", where)
			}
			if !validKey(x.SortKey) {
				bad("%s: give it a sort key with a name and a type of S (string), N (number) or B (binary)", where)
			} else if r.SortKey != nil && x.SortKey.Name == r.SortKey.Name {
				bad("%s: its sort key %q is the table's: sort on another attribute", where, x.SortKey.Name)
			}
		}
		keyType(where, x.PartitionKey)
		keyType(where, x.SortKey)
		switch x.Projection {
		case "", ProjectionAll, ProjectionKeysOnly:
			if len(x.NonKeyAttributes) > 0 {
				bad("%s: attributes %v are listed, but its projection is %s: use the projection INCLUDE to hold them, or remove the list", where, x.NonKeyAttributes, x.ProjectionType())
			}
		case ProjectionInclude:
			if len(x.NonKeyAttributes) == 0 {
				bad("%s: its projection INCLUDE lists no attribute: list the attributes it holds besides the keys, or use KEYS_ONLY", where)
			}
			for i, a := range x.NonKeyAttributes {
				if a == "" || slices.Contains(x.NonKeyAttributes[:i], a) {
					bad("%s: projected attribute %q is empty or listed twice: list each once", where, a)
				}
			}
			projected += len(x.NonKeyAttributes)
		default:
			bad("%s: projection %q: use one of ALL, KEYS_ONLY, INCLUDE", where, x.Projection)
		}
	}
	for i := range r.GlobalIndexes {
		check(&r.GlobalIndexes[i], true)
	}
	for i := range r.LocalIndexes {
		check(&r.LocalIndexes[i], false)
	}
	if projected > MaxProjectedNonKeyed {
		bad("its indexes project %d attributes besides the keys: DynamoDB allows %d over all of a table's indexes, project fewer (or ALL)", projected, MaxProjectedNonKeyed)
	}
}

// tableOnly reports which table-only options a resource of another kind
// sets, for the error naming them; "" when none.
func (r *Resource) tableOnly() string {
	var set []string
	if len(r.GlobalIndexes)+len(r.LocalIndexes) > 0 {
		set = append(set, "secondary indexes")
	}
	if r.PointInTimeRecovery != nil {
		set = append(set, "point-in-time recovery")
	}
	if r.DeletionProtection != nil {
		set = append(set, "deletion protection")
	}
	return strings.Join(set, " and ")
}
