package policy_test

import (
	"fmt"

	"github.com/framework-dev/framework/internal/policy"
)

// Deploy compares the policy in .framework/policy.json with the newly
// generated one and lists the changes before asking for confirmation.
func ExampleDiffActions() {
	old := &policy.Document{Version: policy.PolicyVersion, Statement: []policy.Statement{
		{Sid: "AllowS3", Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject"}, Resource: []string{"*"}},
	}}
	generated := policy.FromCalls([]policy.Call{
		{Actions: policy.OperationActions("github.com/aws/aws-sdk-go-v2/service/s3", "HeadObject")},
		{Actions: policy.OperationActions("github.com/aws/aws-sdk-go-v2/service/dynamodb", "Query")},
	})
	added, removed := policy.DiffActions(old, generated)
	fmt.Println("added:", added)
	fmt.Println("removed:", removed)
	// Output:
	// added: [dynamodb:Query logs:CreateLogGroup logs:CreateLogStream logs:PutLogEvents]
	// removed: [s3:PutObject]
}

func ExampleOperationActions() {
	for _, op := range []string{"GetObject", "HeadObject", "ListObjectsV2", "ListObjectVersions"} {
		fmt.Println(op, policy.OperationActions("github.com/aws/aws-sdk-go-v2/service/s3", op))
	}
	fmt.Println(policy.OperationActions("github.com/aws/aws-sdk-go-v2/service/lambda", "Invoke"))
	fmt.Println(policy.OperationActions("github.com/aws/aws-sdk-go-v2/service/sfn", "StartExecution"))
	// Output:
	// GetObject [s3:GetObject]
	// HeadObject [s3:GetObject]
	// ListObjectsV2 [s3:ListBucket]
	// ListObjectVersions [s3:ListBucketVersions]
	// [lambda:InvokeFunction]
	// [states:StartExecution]
}
