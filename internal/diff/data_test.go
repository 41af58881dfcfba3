package diff

import (
	"strings"
	"testing"
)

// TestDataChanges: a table's key change replaces it and a bucket's
// removal deletes it, both flagged (and written as a warning); a retained
// queue's removal keeps it; an in-place change of a table is no loss.
func TestDataChanges(t *testing.T) {
	old := `{"Resources":{
 "Todos":{"Type":"AWS::DynamoDB::Table","DeletionPolicy":"Delete","UpdateReplacePolicy":"Delete","Properties":{"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}},
 "Notes":{"Type":"AWS::DynamoDB::Table","Properties":{"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}},
 "Files":{"Type":"AWS::S3::Bucket","DeletionPolicy":"Delete","Properties":{}},
 "Jobs":{"Type":"AWS::SQS::Queue","DeletionPolicy":"Retain","Properties":{}},
 "Topic":{"Type":"AWS::SNS::Topic","Properties":{}}}}`
	neu := `{"Resources":{
 "Todos":{"Type":"AWS::DynamoDB::Table","DeletionPolicy":"Delete","UpdateReplacePolicy":"Delete","Properties":{"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}},
 "Notes":{"Type":"AWS::DynamoDB::Table","Properties":{"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"TimeToLiveSpecification":{"AttributeName":"ttl","Enabled":true}}}}}`
	r, err := Templates("todo-dev", []byte(old), []byte(neu))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]DataChange{}
	for _, c := range r.Data {
		got[c.LogicalID] = c
	}
	if len(got) != 3 {
		t.Fatalf("data changes %+v, want Todos, Files and Jobs", r.Data)
	}
	if c := got["Todos"]; c.Action != Modify || c.Kept || strings.Join(c.Because, ",") != "KeySchema" {
		t.Errorf("Todos %+v, want replaced because of KeySchema, not kept", c)
	}
	if c := got["Files"]; c.Action != Remove || c.Kept {
		t.Errorf("Files %+v, want removed and deleted", c)
	}
	if c := got["Jobs"]; c.Action != Remove || !c.Kept {
		t.Errorf("Jobs %+v, want removed and kept", c)
	}
	if risk := r.DataAtRisk(); len(risk) != 2 {
		t.Errorf("at risk %+v, want Todos and Files (the retained queue loses nothing)", risk)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"WARNING: resources that hold data are deleted or replaced",
		"table Todos (AWS::DynamoDB::Table) is REPLACED by a new, empty one (KeySchema changed): the old one is DELETED",
		"bucket Files (AWS::S3::Bucket) is DELETED", "queue Jobs (AWS::SQS::Queue) leaves the stack: it is kept (retained)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Error("red without Color")
	}
	r.Color = true
	b.Reset()
	r.WriteText(&b)
	if !strings.Contains(b.String(), "\x1b[31mWARNING") {
		t.Errorf("no red warning with Color:\n%s", b.String())
	}
	// CloudFormation's answer adds a replacement the templates do not show.
	r2, _ := Templates("todo-dev", []byte(neu), []byte(strings.Replace(neu, `"ttl"`, `"expires"`, 1)))
	if len(r2.Data) != 0 {
		t.Fatalf("TTL change flagged: %+v", r2.Data)
	}
	r2.SetReplacement(map[string]string{"Notes": "Conditional"})
	if len(r2.Data) != 1 || !r2.Data[0].Maybe {
		t.Errorf("after CloudFormation's Conditional answer: %+v", r2.Data)
	}
}

// A resource the app declared is named by its declared name, which the
// stage template's outputs give (the value a Ref or Fn::GetAtt of it, the
// description naming it); others keep their logical id alone.
func TestDataChangesNameDeclaredResources(t *testing.T) {
	old := `{"Resources":{
 "AppResTodos1A2B3C4D":{"Type":"AWS::DynamoDB::Table","Properties":{"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}},
 "AppResJobs5E6F7A8B":{"Type":"AWS::SQS::Queue","Properties":{}},
 "Legacy":{"Type":"AWS::S3::Bucket","Properties":{}}},
 "Outputs":{
  "ResTodosName":{"Value":{"Ref":"AppResTodos1A2B3C4D"},"Description":"NAME of the table \"todos\""},
  "ResTodosArn":{"Value":{"Fn::GetAtt":["AppResTodos1A2B3C4D","Arn"]},"Description":"ARN of the table \"todos\""},
  "ResJobsName":{"Value":{"Fn::GetAtt":["AppResJobs5E6F7A8B","QueueName"]},"Description":"NAME of the queue \"jobs\""},
  "FunctionName":{"Value":{"Ref":"Fn"},"Description":"Name of the Lambda function"}}}`
	neu := `{"Resources":{
 "AppResTodos1A2B3C4D":{"Type":"AWS::DynamoDB::Table","Properties":{"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}}}}`
	r, err := Templates("todo-dev", []byte(old), []byte(neu))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range r.Data {
		lines = append(lines, c.Line())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		`table "todos" (AppResTodos1A2B3C4D, AWS::DynamoDB::Table) is REPLACED`,
		`queue "jobs" (AppResJobs5E6F7A8B, AWS::SQS::Queue) is DELETED`,
		`bucket Legacy (AWS::S3::Bucket) is DELETED`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lines lack %q:\n%s", want, got)
		}
	}
}
