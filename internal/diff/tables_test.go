package diff

import (
	"strings"
	"testing"
)

// TestTableIndexChanges: adding or removing a global secondary index
// changes the table in place (AttributeDefinitions change with it), so
// diff reports a modification and no data at risk; changing the table's
// key or its local secondary indexes still replaces it, and diff warns.
func TestTableIndexChanges(t *testing.T) {
	const base = `{"Resources":{"Links":{"Type":"AWS::DynamoDB::Table","DeletionPolicy":"Delete","UpdateReplacePolicy":"Delete","Properties":{` +
		`"KeySchema":[{"AttributeName":"id","KeyType":"HASH"},{"AttributeName":"at","KeyType":"RANGE"}],` +
		`"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},{"AttributeName":"at","AttributeType":"N"}%s]%s}}}}`
	gsi := `,"GlobalSecondaryIndexes":[{"IndexName":"byOwner","KeySchema":[{"AttributeName":"owner","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]`
	lsi := `,"LocalSecondaryIndexes":[{"IndexName":"byTitle","KeySchema":[{"AttributeName":"id","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]`
	owner, title := `,{"AttributeName":"owner","AttributeType":"S"}`, `,{"AttributeName":"title","AttributeType":"S"}`
	plain := strings.Replace(strings.Replace(base, "%s", "", 1), "%s", "", 1)
	with := func(defs, props string) string {
		return strings.Replace(strings.Replace(base, "%s", defs, 1), "%s", props, 1)
	}
	for name, c := range map[string]struct {
		old, neu string
		because  string // "" when no data is at risk
	}{
		"gsi added":   {plain, with(owner, gsi), ""},
		"gsi removed": {with(owner, gsi), plain, ""},
		"key changed": {with(owner, gsi), strings.Replace(with(owner, gsi), `{"AttributeName":"at","KeyType":"RANGE"}`, `{"AttributeName":"owner","KeyType":"RANGE"}`, 1), "KeySchema"},
		"lsi added":   {plain, with(title, lsi), "LocalSecondaryIndexes"},
	} {
		r, err := Templates("links-dev", []byte(c.old), []byte(c.neu))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r.Resources) != 1 || r.Resources[0].Action != Modify {
			t.Errorf("%s: changes %+v, want the table modified", name, r.Resources)
		}
		var out strings.Builder
		r.WriteText(&out)
		if c.because == "" {
			if len(r.Data) != 0 || len(r.DataAtRisk()) != 0 || len(r.IndexProblems) != 0 || strings.Contains(out.String(), "REPLACED") {
				t.Errorf("%s: flagged as replacing data: %+v\n%s", name, r.Data, out.String())
			}
			continue
		}
		if len(r.Data) != 1 || strings.Join(r.Data[0].Because, ",") != c.because || len(r.DataAtRisk()) != 1 {
			t.Errorf("%s: data changes %+v, want the table replaced because of %s", name, r.Data, c.because)
		}
		if want := "is REPLACED by a new, empty one (" + c.because + " changed)"; !strings.Contains(out.String(), want) {
			t.Errorf("%s: text lacks %q:\n%s", name, want, out.String())
		}
	}
}

// TestTableIndexProblems: two global indexes added to a table in one
// deploy, and an index whose keys change under the same name, are changes
// CloudFormation refuses: diff says so, with what to do; one index added
// is fine.
func TestTableIndexProblems(t *testing.T) {
	table := func(indexes ...string) string {
		return `{"Resources":{"Links":{"Type":"AWS::DynamoDB::Table","Properties":{"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],` +
			`"GlobalSecondaryIndexes":[` + strings.Join(indexes, ",") + `]}}},` +
			`"Outputs":{"ResLinksName":{"Description":"NAME of the table \"links\"","Value":{"Ref":"Links"}}}}`
	}
	gsi := func(name, key string) string {
		return `{"IndexName":"` + name + `","KeySchema":[{"AttributeName":"` + key + `","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}`
	}
	for name, c := range map[string]struct {
		old, neu, want string
	}{
		"one added":   {table(gsi("byOwner", "owner")), table(gsi("byOwner", "owner"), gsi("byTag", "tag")), ""},
		"two added":   {table(), table(gsi("byOwner", "owner"), gsi("byTag", "tag")), `table "links" (Links): the deploy adds byOwner, byTag, but CloudFormation adds or removes one global index of a table per update: change one index per deploy`},
		"renamed":     {table(gsi("byOwner", "owner")), table(gsi("byUser", "owner")), `the deploy adds byUser and removes byOwner`},
		"key changed": {table(gsi("byOwner", "owner")), table(gsi("byOwner", "user")), `table "links" (Links): global index byOwner changes its keys or projection, which CloudFormation cannot do in place: declare the new one under another name, deploy, then remove the old one`},
	} {
		r, err := Templates("links-dev", []byte(c.old), []byte(c.neu))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		r.WriteText(&out)
		if c.want == "" {
			if len(r.IndexProblems) != 0 || strings.Contains(out.String(), "CloudFormation refuses") {
				t.Errorf("%s: problems %q", name, r.IndexProblems)
			}
			continue
		}
		if len(r.IndexProblems) != 1 || !strings.Contains(r.IndexProblems[0], c.want) {
			t.Errorf("%s: problems %q, want %q", name, r.IndexProblems, c.want)
		}
		if !strings.Contains(out.String(), "WARNING: CloudFormation refuses these table index changes") || !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: text lacks the warning:\n%s", name, out.String())
		}
		if len(r.Data) != 0 {
			t.Errorf("%s: flagged as replacing data: %+v", name, r.Data)
		}
	}
}
