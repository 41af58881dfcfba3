package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	path := writeFile(t, `{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "Logs", "Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": ["arn:*:logs:*:*:*"]},
    {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::my-bucket/*"},
    {"Sid": "NoDelete", "Effect": "Deny", "Action": ["s3:Delete*"], "Resource": ["*"]}
  ]
}
`)
	doc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{Version: "2012-10-17", Statement: []Statement{
		{Sid: "Logs", Effect: "Allow", Action: []string{"logs:CreateLogStream", "logs:PutLogEvents"}, Resource: []string{"arn:*:logs:*:*:*"}},
		{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: []string{"arn:aws:s3:::my-bucket/*"}},
		{Sid: "NoDelete", Effect: "Deny", Action: []string{"s3:Delete*"}, Resource: []string{"*"}},
	}}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("Load:\n got %+v\nwant %+v", doc, want)
	}
}

func TestLoadSingleStatementObject(t *testing.T) {
	doc, err := Load(writeFile(t, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Statement) != 1 || doc.Statement[0].Action[0] != "sqs:SendMessage" {
		t.Errorf("got %+v", doc)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, content string
		line, col     int
		want          string
	}{
		{"empty file", "", 1, 1, "unexpected end of file"},
		{"not an object", `[]`, 1, 1, "the policy document must be an object, found a list"},
		{"syntax error", "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [}\n", 3, 17, "invalid JSON"},
		{"truncated", "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n", 4, 1, "unexpected end of file"},
		{"missing Version", "{\n  \"Statement\": [{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\"],\"Resource\":[\"*\"]}]\n}", 1, 1, `missing "Version": add "Version": "2012-10-17"`},
		{"wrong Version", "{\"Version\": \"2012-10-18\", \"Statement\": [{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\"],\"Resource\":[\"*\"]}]}", 1, 2, `"Version" is "2012-10-18"`},
		{"Version not a string", "{\"Version\": 2012}", 1, 13, `"Version" must be a string, found the number 2012`},
		{"missing Statement", "{\n  \"Version\": \"2012-10-17\"\n}", 1, 1, `missing "Statement"`},
		{"empty Statement", "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": []\n}", 3, 3, `"Statement" is empty`},
		{"Statement not a list", "{\"Version\": \"2012-10-17\", \"Statement\": \"all\"}", 1, 40, `"Statement" must be a list, found the string "all"`},
		{"unknown top-level key", "{\"Version\": \"2012-10-17\", \"Statment\": []}", 1, 27, `unsupported key "Statment"`},
		{"duplicate key", "{\"Version\": \"2012-10-17\", \"Version\": \"2012-10-17\"}", 1, 27, `duplicate key "Version"`},
		{"missing Effect", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Action\": [\"s3:GetObject\"], \"Resource\": [\"*\"]}\n]}", 2, 3, `Statement[0]: missing "Effect"`},
		{"bad Effect", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"allow\", \"Action\": [\"s3:GetObject\"], \"Resource\": [\"*\"]}\n]}", 2, 4, `Statement[0].Effect is "allow": use "Allow" or "Deny"`},
		{"missing Action", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\"], \"Resource\": [\"*\"]},\n  {\"Effect\": \"Allow\", \"Resource\": [\"*\"]}\n]}", 3, 3, `Statement[1]: missing or empty "Action"`},
		{"empty Resource", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": []}\n]}", 2, 3, `Statement[0]: missing or empty "Resource"`},
		{"malformed action", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": [\"GetObject\"], \"Resource\": [\"*\"]}\n]}", 2, 23, `Statement[0].Action "GetObject": an action is "service:Operation"`},
		{"action not a string", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\", 7], \"Resource\": [\"*\"]}\n]}", 2, 50, `Statement[0].Action[1] must be a string, found the number 7`},
		{"malformed resource", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"my-bucket\"}\n]}", 2, 49, `Statement[0].Resource "my-bucket": a resource is an ARN`},
		{"Condition is refused, not dropped", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\",\n   \"Condition\": {\"Bool\": {\"aws:SecureTransport\": \"true\"}}}\n]}", 3, 4, `Statement[0]: "Condition" is not supported`},
		{"unknown statement key", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Effect\": \"Allow\", \"Actions\": \"s3:GetObject\", \"Resource\": \"*\"}\n]}", 2, 23, `Statement[0]: unknown key "Actions"`},
		{"bad Sid", "{\"Version\": \"2012-10-17\", \"Statement\": [\n  {\"Sid\": \"read only\", \"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}\n]}", 2, 4, `Statement[0].Sid "read only": use letters and digits only`},
		{"statement not an object", "{\"Version\": \"2012-10-17\", \"Statement\": [\"s3:GetObject\"]}", 1, 41, `Statement[0] must be an object, found the string "s3:GetObject"`},
		{"trailing data", "{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}]}\n{}", 2, 1, "unexpected data after the policy document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.content)
			doc, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", doc)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, not *LoadError: %v", err, err)
			}
			if le.Path != path || le.Line != tt.line || le.Column != tt.col {
				t.Errorf("position = %s:%d:%d, want %s:%d:%d (error: %v)", le.Path, le.Line, le.Column, path, tt.line, tt.col, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("error does not start with the file name: %v", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".framework", "policy.json")
	_, err := Load(path)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error = %v, want one wrapping fs.ErrNotExist", err)
	}
	for _, want := range []string{path, "framework gen-policy", "--no-autogen-policy"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMarshal(t *testing.T) {
	doc := &Document{Version: PolicyVersion, Statement: []Statement{
		{Sid: "A", Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: []string{"*"}},
		{Sid: "B", Effect: "Allow"}, // nil lists
	}}
	got, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "A",
      "Effect": "Allow",
      "Action": [
        "s3:GetObject"
      ],
      "Resource": [
        "*"
      ]
    },
    {
      "Sid": "B",
      "Effect": "Allow",
      "Action": [],
      "Resource": []
    }
  ]
}
`
	if string(got) != want {
		t.Errorf("Marshal:\n%s\nwant:\n%s", got, want)
	}
	if doc.Statement[1].Action != nil {
		t.Error("Marshal modified the document")
	}
	if _, err := (*Document)(nil).Marshal(); err == nil {
		t.Error("Marshal of a nil document succeeded")
	}
}

// TestMarshalLoadRoundTrip checks that what deploy writes to
// .framework/policy.json loads back as the same document, so a user can
// start a hand-written policy from it.
func TestMarshalLoadRoundTrip(t *testing.T) {
	doc := FromCalls([]Call{{Actions: []string{"s3:GetObject", "dynamodb:Query"}}})
	b, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(writeFile(t, string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, doc) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, doc)
	}
}

func TestActions(t *testing.T) {
	doc := &Document{Version: PolicyVersion, Statement: []Statement{
		{Effect: "Allow", Action: []string{"s3:PutObject", "logs:PutLogEvents"}},
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject"}},
		{Effect: "Deny", Action: []string{"s3:DeleteObject"}},
	}}
	want := []string{"logs:PutLogEvents", "s3:GetObject", "s3:PutObject"}
	if got := Actions(doc); !reflect.DeepEqual(got, want) {
		t.Errorf("Actions = %v, want %v", got, want)
	}
	if got := Actions(nil); got != nil {
		t.Errorf("Actions(nil) = %v", got)
	}
}
