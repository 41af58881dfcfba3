package localres

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
)

// tableIndex is a secondary index as DescribeTable gives it.
type tableIndex struct {
	IndexName  string
	KeySchema  []struct{ AttributeName, KeyType string }
	Projection struct {
		ProjectionType   string
		NonKeyAttributes []string
	}
	IndexStatus string
}

// indexWait bounds the wait for an index the emulator builds or drops.
const indexWait = 5 * time.Minute

// describeIndex says an index's keys and projection, for comparing the
// emulator's with the declared: "owner (S), at (N); INCLUDE title".
// types are the attribute types by name.
func describeIndex(keys []struct{ AttributeName, KeyType string }, types map[string]string, projection string, nonKey []string) string {
	var parts []string
	for _, kt := range []string{"HASH", "RANGE"} {
		for _, k := range keys {
			if k.KeyType == kt {
				parts = append(parts, fmt.Sprintf("%s (%s)", k.AttributeName, types[k.AttributeName]))
			}
		}
	}
	if projection == "" {
		projection = manifest.ProjectionAll
	}
	s := strings.Join(parts, ", ") + "; " + projection
	if len(nonKey) > 0 {
		nk := slices.Clone(nonKey)
		slices.Sort(nk)
		s += " " + strings.Join(nk, ", ")
	}
	return s
}

// declaredIndexes are the secondary indexes d declares as CreateTable
// takes them (tableIndexes), with the attribute definitions of their keys
// and the description of each by name (describeIndex).
type declaredIndexes struct {
	global, local map[string]map[string]any
	desc          map[string]string
	defs          []map[string]string
}

func declaredIndexesOf(d *manifest.Resource) declaredIndexes {
	defs := []map[string]string{{"AttributeName": d.PartitionKey.Name, "AttributeType": d.PartitionKey.Type}}
	if d.SortKey != nil {
		defs = append(defs, map[string]string{"AttributeName": d.SortKey.Name, "AttributeType": d.SortKey.Type})
	}
	in := map[string]any{"AttributeDefinitions": defs}
	tableIndexes(in, d)
	out := declaredIndexes{global: map[string]map[string]any{}, local: map[string]map[string]any{}, desc: map[string]string{},
		defs: in["AttributeDefinitions"].([]map[string]string)}
	types := map[string]string{}
	for _, def := range out.defs {
		types[def["AttributeName"]] = def["AttributeType"]
	}
	add := func(into map[string]map[string]any, list any) {
		xs, _ := list.([]map[string]any)
		for _, x := range xs {
			name := x["IndexName"].(string)
			into[name] = x
			var keys []struct{ AttributeName, KeyType string }
			for _, k := range x["KeySchema"].([]map[string]string) {
				keys = append(keys, struct{ AttributeName, KeyType string }{k["AttributeName"], k["KeyType"]})
			}
			proj := x["Projection"].(map[string]any)
			nonKey, _ := proj["NonKeyAttributes"].([]string)
			out.desc[name] = describeIndex(keys, types, proj["ProjectionType"].(string), nonKey)
		}
	}
	add(out.global, in["GlobalSecondaryIndexes"])
	add(out.local, in["LocalSecondaryIndexes"])
	return out
}

// types are the attribute types of the table have describes, by name.
func (s *keySchema) types() map[string]string {
	types := map[string]string{}
	for _, a := range s.AttributeDefinitions {
		types[a.AttributeName] = a.AttributeType
	}
	return types
}

// localIndexesDiffer says how the local indexes of the table have
// describes differ from those d declares ("" when they do not): DynamoDB
// has them from the table's creation on.
func localIndexesDiffer(have *keySchema, d *manifest.Resource) string {
	want := declaredIndexesOf(d)
	types := have.types()
	var h, w []string
	for _, x := range have.LocalSecondaryIndexes {
		h = append(h, x.IndexName+" ("+describeIndex(x.KeySchema, types, x.Projection.ProjectionType, x.Projection.NonKeyAttributes)+")")
	}
	for name, desc := range want.desc {
		if want.local[name] != nil {
			w = append(w, name+" ("+desc+")")
		}
	}
	slices.Sort(h)
	slices.Sort(w)
	if slices.Equal(h, w) {
		return ""
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("its local indexes are %s at the emulator and %s declared (DynamoDB makes local indexes with the table only)", list(h), list(w))
}

// updateGlobalIndexes gives the table named name, which existed with the
// schema have, the global indexes d declares: an index no longer declared
// is deleted, a new one created (DynamoDB builds it from the table's
// items), a changed one deleted and created again; one index per
// UpdateTable call, as DynamoDB requires, each waited for. Its items stay.
// A Change says what was done.
func (c *Client) updateGlobalIndexes(ctx context.Context, name string, d *manifest.Resource, have *keySchema) error {
	want := declaredIndexesOf(d)
	types := have.types()
	haveDesc := map[string]string{}
	for _, x := range have.GlobalSecondaryIndexes {
		haveDesc[x.IndexName] = describeIndex(x.KeySchema, types, x.Projection.ProjectionType, x.Projection.NonKeyAttributes)
	}
	var drop, create []string
	for _, x := range slices.Sorted(maps.Keys(haveDesc)) {
		if want.global[x] == nil || want.desc[x] != haveDesc[x] {
			drop = append(drop, x)
		}
	}
	for _, x := range slices.Sorted(maps.Keys(want.global)) {
		if h, ok := haveDesc[x]; !ok || h != want.desc[x] {
			create = append(create, x)
		}
	}
	var done []string
	note := func() {
		if len(done) > 0 {
			line := fmt.Sprintf("Updated table %s at the emulator to its declaration: %s.", name, strings.Join(done, ", "))
			if len(drop)+len(create) > 1 {
				// CloudFormation refuses more than one index created or
				// deleted in one update of the table.
				line += " Deployed, CloudFormation adds or removes one global index per deploy: deploy the changes one at a time."
			}
			noteChange(ctx, Change{Resource: name, Applied: true, Line: line})
		}
	}
	for _, x := range drop {
		in := map[string]any{"TableName": name, "GlobalSecondaryIndexUpdates": []any{map[string]any{"Delete": map[string]string{"IndexName": x}}}}
		if err := c.Call(ctx, "dynamodb", "UpdateTable", in, nil); err != nil {
			note()
			return fmt.Errorf("update table %s to its declaration (delete global index %s): %w", name, x, err)
		}
		if err := c.waitIndex(ctx, name, x, true); err != nil {
			note()
			return err
		}
		if want.global[x] == nil {
			done = append(done, "global index "+x+" removed")
		}
	}
	// The attribute definitions: the table's, and those of the keys of
	// the indexes created.
	defs := []map[string]string{}
	for _, a := range have.AttributeDefinitions {
		defs = append(defs, map[string]string{"AttributeName": a.AttributeName, "AttributeType": a.AttributeType})
	}
	for _, x := range create {
		for _, k := range want.global[x]["KeySchema"].([]map[string]string) {
			if _, ok := types[k["AttributeName"]]; ok {
				continue
			}
			for _, def := range want.defs {
				if def["AttributeName"] == k["AttributeName"] {
					defs = append(defs, def)
					types[k["AttributeName"]] = def["AttributeType"]
				}
			}
		}
		in := map[string]any{"TableName": name, "AttributeDefinitions": defs,
			"GlobalSecondaryIndexUpdates": []any{map[string]any{"Create": want.global[x]}}}
		if err := c.Call(ctx, "dynamodb", "UpdateTable", in, nil); err != nil {
			note()
			return fmt.Errorf("update table %s to its declaration (create global index %s): %w", name, x, err)
		}
		if err := c.waitIndex(ctx, name, x, false); err != nil {
			note()
			return err
		}
		if _, was := haveDesc[x]; was {
			done = append(done, fmt.Sprintf("global index %s changed (%s -> %s; a deployed stack cannot change an index in place: rename it there)", x, haveDesc[x], want.desc[x]))
		} else {
			done = append(done, "global index "+x+" added")
		}
	}
	note()
	return nil
}

// waitIndex waits until the global index named index of the table named
// table is ACTIVE at the emulator (gone: no longer there) and the table
// ACTIVE too, so that the next UpdateTable is taken.
func (c *Client) waitIndex(parent context.Context, table, index string, gone bool) error {
	ctx, cancel := context.WithTimeout(parent, indexWait)
	defer cancel()
	pause := 50 * time.Millisecond
	for {
		var out struct {
			Table struct {
				TableStatus            string
				GlobalSecondaryIndexes []tableIndex
			}
		}
		if err := c.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": table}, &out); err != nil {
			return fmt.Errorf("update table %s to its declaration (wait for global index %s): %w", table, index, err)
		}
		status := "gone"
		for _, x := range out.Table.GlobalSecondaryIndexes {
			if x.IndexName == index {
				status = x.IndexStatus
			}
		}
		tableReady := out.Table.TableStatus == "" || out.Table.TableStatus == "ACTIVE"
		if tableReady && (gone && status == "gone" || !gone && (status == "ACTIVE" || status == "")) {
			return nil
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return fmt.Errorf("update table %s to its declaration (wait for global index %s): %w", table, index, parent.Err())
			}
			return fmt.Errorf("update table %s to its declaration: its global index %s is still %s at the emulator after %s (table %s); run framework local again when the emulator is done",
				table, index, status, indexWait, out.Table.TableStatus)
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}
