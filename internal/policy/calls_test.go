package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

func TestFromCalls(t *testing.T) {
	calls := []Call{
		{Actions: []string{"s3:PutObject"}},
		{Actions: []string{"s3-object-lambda:WriteGetObjectResponse"}},
		{Actions: []string{"s3:GetObject", "s3:PutObject"}},
		{Actions: []string{"dynamodb:Query"}},
		{Actions: []string{"logs:PutLogEvents"}}, // the app itself writes to CloudWatch Logs
	}
	doc := FromCalls(calls)
	var got []string
	for _, s := range doc.Statement {
		got = append(got, fmt.Sprintf("%s %s %s %s", s.Sid, s.Effect, strings.Join(s.Action, ","), strings.Join(s.Resource, ",")))
	}
	want := []string{
		"AllowLogging Allow logs:CreateLogGroup,logs:CreateLogStream,logs:PutLogEvents arn:*:logs:*:*:log-group:/aws/lambda/*",
		"AllowDynamodb Allow dynamodb:Query *",
		"AllowLogs Allow logs:PutLogEvents *",
		"AllowS3 Allow s3:GetObject,s3:PutObject *",
		"AllowS3ObjectLambda Allow s3-object-lambda:WriteGetObjectResponse *",
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("statements differ at %s\nall of them:\n%s", testutil.FirstDiff(w, g), g)
	}
	if doc.Version != "2012-10-17" {
		t.Errorf("version = %q", doc.Version)
	}
}
