package perms

import (
	"fmt"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// An idempotent handler (resource.Idempotent, resource.IdempotentRecords)
// gets exactly the calls of its records on the table holding them, on the
// table's ARN only, and no other function gets them.
func TestIdempotencyAccess(t *testing.T) {
	m := &manifest.Manifest{Version: manifest.Version, App: "shop",
		Routes: []manifest.Route{
			{Path: "/orders", Methods: []string{"POST"}, Handler: "create", Grants: []manifest.Grant{{Resource: "keys", Access: manifest.AccessIdempotency}}},
		},
		Functions: []manifest.Function{
			{Name: "worker", Kind: manifest.KindSQS, Source: "jobs", Grants: []manifest.Grant{{Resource: "keys", Access: manifest.AccessIdempotency}}},
			{Name: "other", Kind: manifest.KindSQS, Source: "jobs2"},
		},
		Resources: []manifest.Resource{{Name: "keys", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, TTLAttribute: "expires"}},
	}
	if err := manifest.Validate(m); err != nil {
		t.Fatal(err)
	}
	pols, err := Compute(Input{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	want := "[dynamodb:DeleteItem on ${resource:keys} dynamodb:GetItem on ${resource:keys} dynamodb:PutItem on ${resource:keys}]"
	for fn, w := range map[string]string{"api": want, "worker": want, "other": "[]"} {
		var got []string
		for _, g := range granted(pols.Function(fn)) {
			if g[:9] == "dynamodb:" {
				got = append(got, g)
			}
		}
		if fmt.Sprint(got) != w {
			t.Errorf("function %s is granted %v on the table, want %s", fn, got, w)
		}
	}
}
