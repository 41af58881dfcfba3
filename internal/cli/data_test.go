package cli

import (
	"strings"
	"testing"
)

// tableAndBucket adds a table with partition key key (kept on deletion
// when retain) and a bucket to the fixture's template.
func tableAndBucket(key string, retain bool) func(map[string]any) {
	return func(tpl map[string]any) {
		policy := "Delete"
		if retain {
			policy = "Retain"
		}
		res := tpl["Resources"].(map[string]any)
		res["Todos"] = map[string]any{"Type": "AWS::DynamoDB::Table", "DeletionPolicy": policy, "UpdateReplacePolicy": policy,
			"Properties": map[string]any{
				"KeySchema":            []any{map[string]any{"AttributeName": key, "KeyType": "HASH"}},
				"AttributeDefinitions": []any{map[string]any{"AttributeName": key, "AttributeType": "S"}},
				"BillingMode":          "PAY_PER_REQUEST",
			}}
		res["Files"] = map[string]any{"Type": "AWS::S3::Bucket", "DeletionPolicy": "Delete", "Properties": map[string]any{}}
	}
}

// TestDeployDataLifecycle: diff warns when a table's key change replaces
// it; deploy refuses it without a terminal or --yes and carries it out
// with --yes; destroy names what it deletes and what it keeps; a new
// deploy of the stage says what the deletion kept.
func TestDeployDataLifecycle(t *testing.T) {
	l := newLifecycle(t)
	l.mutate = tableAndBucket("id", false)
	l.expect([]string{"deploy"}, 0, "Initiating first time deployment...")

	l.mutate = tableAndBucket("pk", false)
	l.expect([]string{"diff"}, 0, "WARNING: resources that hold data are deleted or replaced:",
		"! table Todos (AWS::DynamoDB::Table) is REPLACED by a new, empty one (KeySchema changed): the old one is DELETED with everything it holds")
	before := l.aws.CFN.Template("hello-dev")
	l.expect([]string{"deploy"}, 1, "WARNING: this deploy replaces or deletes resources that hold data:", "stdin is not a terminal to confirm it: nothing was changed", "pass --yes")
	if l.aws.CFN.Template("hello-dev") != before || l.aws.CFN.ChangeSetCount() != 0 {
		t.Fatal("a refused data loss was deployed or left its change set")
	}
	l.terminal, l.input = true, "n\n"
	l.expect([]string{"deploy"}, 1, "Replace or delete them and lose what they hold? [y/N]: ", "declined")
	l.terminal, l.input = false, ""
	l.expect([]string{"deploy", "--yes"}, 0, "Rest API URL: ")
	if !strings.Contains(l.aws.CFN.Template("hello-dev"), `"pk"`) {
		t.Fatal("the accepted deploy did not replace the table")
	}

	// A production-like policy: the table is kept by destroy.
	l.mutate = tableAndBucket("pk", true)
	l.expect([]string{"deploy", "--yes"}, 0)
	out := l.expect([]string{"destroy", "--yes"}, 0, "DELETES bucket Files (hello-dev-files-", "Keeps table Todos (hello-dev-Todos-",
		"Deleted stage dev (stack hello-dev).", "Kept (retained) with their data:\n  table Todos (hello-dev-Todos-")
	if strings.Contains(out, "Kept (retained) with their data:\n  bucket") {
		t.Error("destroy lists the deleted bucket as kept")
	}
	l.expect([]string{"deploy"}, 0, "Note: stack hello-dev was deleted on", "kept 1 resource holding data:\n  table Todos (hello-dev-Todos-", "Rest API URL: ")
}
