package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// api returns a template with a REST API whose body has the given paths,
// and a role with the given policy statements.
func tpl(paths map[string]any, statements ...map[string]any) []byte {
	st := make([]any, len(statements))
	for i, s := range statements {
		st[i] = s
	}
	t := map[string]any{"Resources": map[string]any{
		"RestApi": map[string]any{"Type": "AWS::ApiGateway::RestApi", "Properties": map[string]any{
			"Name": "hello-dev", "Body": map[string]any{"swagger": "2.0", "paths": paths},
		}},
		"Role": map[string]any{"Type": "AWS::IAM::Role", "Properties": map[string]any{
			"AssumeRolePolicyDocument": map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Action": "sts:AssumeRole"}}},
			"Policies":                 []any{map[string]any{"PolicyName": "p", "PolicyDocument": map[string]any{"Version": "2012-10-17", "Statement": st}}},
		}},
	}}
	b, _ := json.Marshal(t)
	return b
}

func proxy(fn string) map[string]any {
	return map[string]any{"x-amazon-apigateway-integration": map[string]any{"type": "aws_proxy", "httpMethod": "POST", "uri": fn}}
}

func preflightOp(origin string) map[string]any {
	return map[string]any{"x-amazon-apigateway-integration": map[string]any{"type": "mock", "responses": map[string]any{"default": map[string]any{
		"responseParameters": map[string]any{"method.response.header.Access-Control-Allow-Origin": origin}}}}}
}

func allow(actions ...string) map[string]any {
	a := make([]any, len(actions))
	for i, x := range actions {
		a[i] = x
	}
	return map[string]any{"Effect": "Allow", "Action": a, "Resource": "*"}
}

func routes(r *Report) string {
	var lines []string
	for _, c := range r.Routes {
		l := fmt.Sprintf("%s %s %s", sign[c.Action], c.Method, c.Path)
		if len(c.Changes) > 0 {
			l += ": " + strings.Join(changed(c.Changes), ", ")
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func TestRoutes(t *testing.T) {
	get := map[string]any{"get": proxy("f")}
	for _, tc := range []struct {
		name     string
		old, new map[string]any
		want     string
	}{
		{"unchanged", map[string]any{"/": get}, map[string]any{"/": get}, ""},
		{"route added", map[string]any{"/": get}, map[string]any{"/": get, "/users/{name}": map[string]any{"post": proxy("f")}}, "+ POST /users/{name}"},
		{"method added to a path", map[string]any{"/": get}, map[string]any{"/": map[string]any{"get": proxy("f"), "put": proxy("f")}}, "+ PUT /"},
		{"route removed", map[string]any{"/": get, "/old": get}, map[string]any{"/": get}, "- GET /old"},
		{"integration changed", map[string]any{"/": get}, map[string]any{"/": map[string]any{"get": proxy("g")}}, "~ GET /: integration changed"},
		{"authorization changed", map[string]any{"/": get}, map[string]any{"/": map[string]any{"get": func() map[string]any {
			op := proxy("f")
			op["security"] = []any{map[string]any{"api_key": []any{}}}
			return op
		}()}}, "~ GET /: authorization changed"},
		{"cors enabled", map[string]any{"/cors": get}, map[string]any{"/cors": map[string]any{"get": proxy("f"), "options": preflightOp("'*'")}}, "~ GET /cors: cors enabled"},
		{"cors disabled", map[string]any{"/cors": map[string]any{"get": proxy("f"), "options": preflightOp("'*'")}}, map[string]any{"/cors": get}, "~ GET /cors: cors disabled"},
		{"cors changed", map[string]any{"/cors": map[string]any{"get": proxy("f"), "options": preflightOp("'*'")}},
			map[string]any{"/cors": map[string]any{"get": proxy("f"), "options": preflightOp("'https://example.com'")}}, "~ GET /cors: cors changed"},
		{"an OPTIONS handler of the app is a route", map[string]any{"/": get}, map[string]any{"/": map[string]any{"get": proxy("f"), "options": proxy("f")}}, "+ OPTIONS /"},
		{"methods sorted", map[string]any{}, map[string]any{"/": map[string]any{"delete": proxy("f"), "get": proxy("f"), "post": proxy("f")}}, "+ GET /\n+ POST /\n+ DELETE /"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Templates("s", tpl(tc.old), tpl(tc.new))
			if err != nil {
				t.Fatal(err)
			}
			if got := routes(r); got != tc.want {
				t.Errorf("routes:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestIAMStatements(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []map[string]any
		want     []string
	}{
		{"same", []map[string]any{allow("logs:PutLogEvents")}, []map[string]any{allow("logs:PutLogEvents")}, nil},
		{"action order does not matter", []map[string]any{allow("a:X", "a:Y")}, []map[string]any{allow("a:Y", "a:X")}, nil},
		{"added", []map[string]any{allow("logs:PutLogEvents")}, []map[string]any{allow("logs:PutLogEvents"), allow("s3:GetObject")},
			[]string{"+ Allow s3:GetObject on *"}},
		{"widened", []map[string]any{allow("s3:GetObject")}, []map[string]any{allow("s3:GetObject", "s3:PutObject")},
			[]string{"- Allow s3:GetObject on *", "+ Allow s3:GetObject, s3:PutObject on *"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Templates("s", tpl(map[string]any{}, tc.old...), tpl(map[string]any{}, tc.new...))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range r.IAM {
				got = append(got, sign[c.Action]+" "+describeStatement(c.Statement))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("iam = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPolicyActions(t *testing.T) {
	b := tpl(map[string]any{}, allow("s3:PutObject", "logs:PutLogEvents"), allow("s3:PutObject"),
		map[string]any{"Effect": "Deny", "Action": "s3:DeleteObject", "Resource": "*"})
	got, err := PolicyActions(b)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted, de-duplicated, no Deny, no trust policy (sts:AssumeRole).
	if strings.Join(got, ",") != "logs:PutLogEvents,s3:PutObject" {
		t.Errorf("PolicyActions = %v", got)
	}
	if _, err := PolicyActions([]byte("{")); err == nil {
		t.Error("a broken template gave no error")
	}
}

func TestResourceProperties(t *testing.T) {
	old := `{"Resources":{
		"Fn":{"Type":"AWS::Lambda::Function","Properties":{"MemorySize":128,"Role":{"Fn::GetAtt":["Role","Arn"]},"Environment":{"Variables":{"A":"1","B":"2"}}}},
		"Gone":{"Type":"AWS::SNS::Topic"}}}`
	neu := `{"Resources":{
		"Fn":{"Type":"AWS::Lambda::Function","Properties":{"MemorySize":256,"Role":{"Fn::GetAtt":["Other","Arn"]},"Environment":{"Variables":{"A":"1","C":"3"}}},"Metadata":{"ignored":true}},
		"New":{"Type":"AWS::SQS::Queue"}}}`
	r, err := Templates("s", []byte(old), []byte(neu))
	if err != nil {
		t.Fatal(err)
	}
	r.SetReplacement(map[string]string{"Fn": "Conditional"})
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `Stack s (deployed)
Resources
  ~ AWS::Lambda::Function Fn (may be replaced)
      - Environment.Variables.B: "2"
      + Environment.Variables.C: "3"
      ~ MemorySize: 128 → 256
      ~ Role: {"Fn::GetAtt":["Role","Arn"]} → {"Fn::GetAtt":["Other","Arn"]}
  - AWS::SNS::Topic Gone
  + AWS::SQS::Queue New
1 to add, 1 to modify (0 replaced), 1 to remove.
`
	if buf.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestNotDeployedIsAllAdded(t *testing.T) {
	r, err := Templates("s", nil, tpl(map[string]any{"/": map[string]any{"get": proxy("f")}}, allow("s3:GetObject")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Deployed || len(r.Resources) != 2 || routes(r) != "+ GET /" || len(r.IAM) != 1 || r.IAM[0].Action != Add {
		t.Errorf("report = %+v", r)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Deployed || len(back.Routes) != 1 {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestIdenticalIsEmpty(t *testing.T) {
	b := tpl(map[string]any{"/": map[string]any{"get": proxy("f")}}, allow("s3:GetObject"))
	r, err := Templates("s", b, b)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Empty() {
		t.Errorf("identical templates differ: %+v", r)
	}
}

// TestLongValueShowsWhatDiffers: a long value that changes near its end (a
// renamed queue in an ARN built with Fn::Join) is shown around the part
// that differs, not cut to the same prefix on both sides.
func TestLongValueShowsWhatDiffers(t *testing.T) {
	arn := func(queue string) string {
		return `{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},":sqs:",{"Ref":"AWS::Region"},":",{"Ref":"AWS::AccountId"},":` + queue + `"]]}`
	}
	tpl := func(queue string) []byte {
		return []byte(`{"Resources":{"Orders":{"Type":"AWS::Lambda::EventSourceMapping","Properties":{"FunctionName":"f","EventSourceArn":` + arn(queue) + `}}}}`)
	}
	r, err := Templates("s", tpl("orders-incoming"), tpl("orders-renamed"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "EventSourceArn") {
			line = l
		}
	}
	old, neu, ok := strings.Cut(line, " → ")
	if !ok || !strings.Contains(old, ":orders-incoming\"]]}") || !strings.Contains(neu, ":orders-renamed\"]]}") {
		t.Errorf("the EventSourceArn line does not show both queue names:\n%s", buf.String())
	}
	for _, side := range []string{old, neu} {
		if len(side) > 130 {
			t.Errorf("side of %d characters, want it cut: %s", len(side), side)
		}
	}
}

// A permission on a resource of the stack (a declared bucket and its
// objects) names it as Fn::Sub would, in the lines deploy asks about.
func TestPermissionOnStackResource(t *testing.T) {
	tpl := `{"Resources": {
 "Files": {"Type": "AWS::S3::Bucket"},
 "Role": {"Type": "AWS::IAM::Role", "Properties": {}},
 "Policy": {"Type": "AWS::IAM::Policy", "Properties": {"Roles": [{"Ref": "Role"}], "PolicyDocument": {"Statement": [
   {"Effect": "Allow", "Action": "s3:GetObject", "Resource": [{"Fn::GetAtt": ["Files", "Arn"]}, {"Fn::Join": ["", [{"Fn::GetAtt": ["Files", "Arn"]}, "/*"]]}]}]}}}}}`
	lines, err := PermissionChanges(nil, []byte(tpl))
	if err != nil {
		t.Fatal(err)
	}
	if want := "+ Allow s3:GetObject on ${Files.Arn}, ${Files.Arn}/* (Policy)"; len(lines) != 1 || lines[0] != want {
		t.Errorf("permission changes %q, want [%q]", lines, want)
	}
}
