package localres

import "github.com/framework-dev/framework/internal/manifest"

// tableIndexes adds the declared table d's secondary indexes to in, a
// CreateTable request, with the attribute definitions of their keys: the
// same indexes the stage's stack gives the deployed table.
// Point-in-time recovery and deletion protection are the deployed
// table's only: the emulator's tables are for development, and
// `framework local` must stay free to recreate them.
func tableIndexes(in map[string]any, d *manifest.Resource) {
	defs := in["AttributeDefinitions"].([]map[string]string)
	define := func(k *manifest.KeyAttr) {
		for _, def := range defs {
			if def["AttributeName"] == k.Name {
				return
			}
		}
		defs = append(defs, map[string]string{"AttributeName": k.Name, "AttributeType": k.Type})
	}
	index := func(x *manifest.Index, pk *manifest.KeyAttr) map[string]any {
		keys := []map[string]string{{"AttributeName": pk.Name, "KeyType": "HASH"}}
		define(pk)
		if x.SortKey != nil {
			keys = append(keys, map[string]string{"AttributeName": x.SortKey.Name, "KeyType": "RANGE"})
			define(x.SortKey)
		}
		proj := map[string]any{"ProjectionType": x.ProjectionType()}
		if len(x.NonKeyAttributes) > 0 {
			proj["NonKeyAttributes"] = x.NonKeyAttributes
		}
		return map[string]any{"IndexName": x.Name, "KeySchema": keys, "Projection": proj}
	}
	var global, local []map[string]any
	for i := range d.GlobalIndexes {
		global = append(global, index(&d.GlobalIndexes[i], d.GlobalIndexes[i].PartitionKey))
	}
	for i := range d.LocalIndexes {
		local = append(local, index(&d.LocalIndexes[i], d.PartitionKey))
	}
	if global != nil {
		in["GlobalSecondaryIndexes"] = global
	}
	if local != nil {
		in["LocalSecondaryIndexes"] = local
	}
	in["AttributeDefinitions"] = defs
}
