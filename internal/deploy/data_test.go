package deploy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/diff"
)

// withData adds a table (deleted with the stack, or kept when retain) and
// a bucket to the fixture's template.
func withData(retain bool, key string) func(map[string]any) {
	return func(tpl map[string]any) {
		policy := "Delete"
		if retain {
			policy = "Retain"
		}
		resources(tpl)["Todos"] = map[string]any{"Type": "AWS::DynamoDB::Table", "DeletionPolicy": policy, "UpdateReplacePolicy": policy,
			"Properties": map[string]any{
				"KeySchema":            []any{map[string]any{"AttributeName": key, "KeyType": "HASH"}},
				"AttributeDefinitions": []any{map[string]any{"AttributeName": key, "AttributeType": "S"}},
				"BillingMode":          "PAY_PER_REQUEST",
			}}
		resources(tpl)["Files"] = map[string]any{"Type": "AWS::S3::Bucket", "DeletionPolicy": "Delete", "Properties": map[string]any{}}
	}
}

// TestDeployDataLoss: a table's key change and a bucket's removal are
// flagged by diff (CloudFormation's change set says the table is
// replaced), and deploy asks before executing them: declined, nothing
// changes and no change set is left; accepted, the deploy goes on.
func TestDeployDataLoss(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, withData(false, "id")), Options{ConfirmData: func([]diff.DataChange) (bool, error) {
		t.Error("asked about data on the first deploy")
		return true, nil
	}}); err != nil {
		t.Fatal(err)
	}
	changed := func(tpl map[string]any) {
		withData(false, "pk")(tpl)
		delete(resources(tpl), "Files")
	}
	r, err := diffAssembly(ctx, e, assembly(t, changed))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	r.WriteText(&text)
	wantContains(t, "diff", text.String(), "WARNING: resources that hold data are deleted or replaced",
		"table Todos (AWS::DynamoDB::Table) is REPLACED by a new, empty one (KeySchema changed): the old one is DELETED",
		"bucket Files (AWS::S3::Bucket) is DELETED with everything it holds", "~ AWS::DynamoDB::Table Todos (replaced)")

	before := fake.CFN.Template("hello-dev")
	var asked []diff.DataChange
	_, err = deployAssembly(ctx, e, assembly(t, changed), Options{ConfirmData: func(c []diff.DataChange) (bool, error) {
		asked = c
		return false, nil
	}})
	if !errors.Is(err, ErrDeclined) {
		t.Fatalf("err = %v, want ErrDeclined", err)
	}
	if len(asked) != 2 || asked[0].LogicalID != "Files" || asked[1].LogicalID != "Todos" {
		t.Errorf("asked about %+v, want Files and Todos", asked)
	}
	if fake.CFN.Template("hello-dev") != before || fake.CFN.ChangeSetCount() != 0 {
		t.Error("a declined data loss still changed something or left its change set")
	}
	if _, err := deployAssembly(ctx, e, assembly(t, changed), Options{ConfirmData: func([]diff.DataChange) (bool, error) { return true, nil }}); err != nil {
		t.Fatal(err)
	}
	if fake.CFN.Template("hello-dev") == before {
		t.Error("accepted deploy changed nothing")
	}
}

// TestDestroyKeepsRetained: destroy names the resources holding data it
// deletes and keeps; the retained table outlives the stack, and a new
// deploy of the stage succeeds (new names: nothing collides) and says
// which resources the deletion kept.
func TestDestroyKeepsRetained(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	if k, err := e.LastDeletionKept(ctx, "hello-dev"); err != nil || k != nil {
		t.Fatalf("before any deletion: %+v, %v", k, err)
	}
	if _, err := deployAssembly(ctx, e, assembly(t, withData(true, "id")), Options{}); err != nil {
		t.Fatal(err)
	}
	var data []StackResource
	found, err := e.Destroy(ctx, "hello-dev", func(st *Stack) (bool, error) {
		var err error
		data, err = e.DataResources(ctx, st)
		return true, err
	})
	if err != nil || !found {
		t.Fatalf("destroy: %v %v", found, err)
	}
	if len(data) != 2 || data[0].LogicalID != "Files" || data[0].Retained || data[1].LogicalID != "Todos" || !data[1].Retained ||
		!strings.HasPrefix(data[1].PhysicalID, "hello-dev-Todos-") {
		t.Fatalf("data resources %+v, want Files deleted and Todos kept, with its name", data)
	}
	if len(fake.CFN.Kept) != 1 || fake.CFN.Kept[0].PhysicalID != data[1].PhysicalID {
		t.Errorf("kept in the account: %+v", fake.CFN.Kept)
	}
	if !strings.Contains(out.String(), "DELETE_SKIPPED") {
		t.Errorf("destroy output shows no skipped deletion:\n%s", out)
	}
	k, err := e.LastDeletionKept(ctx, "hello-dev")
	if err != nil || k == nil || len(k.Kept) != 1 || k.Kept[0].PhysicalID != data[1].PhysicalID {
		t.Fatalf("last deletion kept %+v, %v", k, err)
	}
	out.Reset()
	if _, err := deployAssembly(ctx, e, assembly(t, withData(true, "id")), Options{}); err != nil {
		t.Fatalf("second deploy after a destroy that kept the table: %v\n%s", err, out)
	}
	wantContains(t, "second deploy output", out.String(), "Note: stack hello-dev was deleted on", "kept 1 resource holding data", "table Todos ("+data[1].PhysicalID+")", "creates new, empty ones")
	if fake.CFN.Status("hello-dev") != "CREATE_COMPLETE" {
		t.Errorf("status %s", fake.CFN.Status("hello-dev"))
	}
}

// TestDeployConfirmsGrants: a grant on a declared resource (the role's
// default policy, where CDK's grants and the triggers' permissions go)
// is a change of the role's permissions that deploy asks about, like a
// change of the role's own policy.
func TestDeployConfirmsGrants(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, withData(false, "id")), Options{}); err != nil {
		t.Fatal(err)
	}
	grant := func(tpl map[string]any) {
		withData(false, "id")(tpl)
		resources(tpl)["FunctionRoleDefaultPolicy"] = map[string]any{"Type": "AWS::IAM::Policy", "Properties": map[string]any{
			"PolicyName": "FunctionRoleDefaultPolicy", "Roles": []any{map[string]any{"Ref": "FunctionRole"}},
			"PolicyDocument": map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
				"Effect": "Allow", "Action": []any{"dynamodb:GetItem", "dynamodb:Query"}, "Resource": map[string]any{"Fn::GetAtt": []any{"Todos", "Arn"}}}}},
		}}
	}
	var asked *PolicyChange
	_, err := deployAssembly(ctx, e, assembly(t, grant), Options{ConfirmPolicy: func(c PolicyChange) (bool, error) {
		asked = &c
		return false, nil
	}})
	if !errors.Is(err, ErrDeclined) || asked == nil {
		t.Fatalf("err %v, asked %v: want the grant confirmed and declined", err, asked)
	}
	if strings.Join(asked.Added, ",") != "dynamodb:GetItem,dynamodb:Query" || !strings.Contains(strings.Join(asked.Changes, "\n"), "Todos") {
		t.Errorf("asked about %+v, want the two table actions on Todos", asked)
	}
}
