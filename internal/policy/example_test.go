package policy_test

import (
	"fmt"

	"github.com/framework-dev/framework/internal/policy"
)

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
