package deploy

import (
	"context"
	"strings"
	"testing"
)

// withIndexes adds a table with the global indexes named (each on the
// attribute of its name) to the fixture's template.
func withIndexes(names ...string) func(map[string]any) {
	return func(tpl map[string]any) {
		var gsis []any
		defs := []any{map[string]any{"AttributeName": "id", "AttributeType": "S"}}
		for _, n := range names {
			gsis = append(gsis, map[string]any{"IndexName": n, "KeySchema": []any{map[string]any{"AttributeName": n, "KeyType": "HASH"}},
				"Projection": map[string]any{"ProjectionType": "ALL"}})
			defs = append(defs, map[string]any{"AttributeName": n, "AttributeType": "S"})
		}
		props := map[string]any{"KeySchema": []any{map[string]any{"AttributeName": "id", "KeyType": "HASH"}}, "AttributeDefinitions": defs, "BillingMode": "PAY_PER_REQUEST"}
		if gsis != nil {
			props["GlobalSecondaryIndexes"] = gsis
		}
		resources(tpl)["Links"] = map[string]any{"Type": "AWS::DynamoDB::Table", "Properties": props}
	}
}

// TestDeployRefusesTwoIndexChanges: a deploy adding two global indexes to
// a deployed table, which CloudFormation would fail and roll back, stops
// before any change set, saying to change one index per deploy; adding
// one goes through.
func TestDeployRefusesTwoIndexChanges(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, withIndexes()), Options{}); err != nil {
		t.Fatal(err)
	}
	sets := fake.CFN.Calls("CreateChangeSet")
	_, err := deployAssembly(ctx, e, assembly(t, withIndexes("owner", "tag")), Options{})
	if err == nil || !strings.Contains(err.Error(), "the deploy adds owner, tag, but CloudFormation adds or removes one global index of a table per update: change one index per deploy") {
		t.Fatalf("err = %v, want the refusal naming the indexes", err)
	}
	if fake.CFN.Calls("CreateChangeSet") != sets {
		t.Error("a change set was created for an update CloudFormation refuses")
	}
	if _, err := deployAssembly(ctx, e, assembly(t, withIndexes("owner")), Options{}); err != nil {
		t.Fatalf("one index added: %v", err)
	}
}
