package policy

import (
	"strings"
	"testing"
)

func TestIAMPrefix(t *testing.T) {
	tests := []struct {
		pkg, want string
		ok        bool
	}{
		{"github.com/aws/aws-sdk-go-v2/service/s3", "s3", true},
		{"github.com/aws/aws-sdk-go-v2/service/dynamodb", "dynamodb", true},
		{"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs", "logs", true},
		{"github.com/aws/aws-sdk-go-v2/service/sfn", "states", true},
		{"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2", "elasticloadbalancing", true},
		{"github.com/aws/aws-sdk-go-v2/service/eventbridge", "events", true},
		{"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider", "cognito-idp", true},
		{"github.com/aws/aws-sdk-go-v2/service/sesv2", "ses", true},
		{"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi", "execute-api", true},
		{"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams", "dynamodb", true},
		{"github.com/aws/aws-sdk-go-v2/service/secretsmanager", "secretsmanager", true},
		{"github.com/aws/aws-sdk-go-v2/service/s3/types", "", false},
		{"github.com/aws/aws-sdk-go-v2/service/internal", "", false},
		{"github.com/aws/aws-sdk-go-v2/aws", "", false},
		{"example.com/service/s3", "", false},
	}
	for _, tt := range tests {
		got, ok := IAMPrefix(tt.pkg)
		if got != tt.want || ok != tt.ok {
			t.Errorf("IAMPrefix(%s) = %q, %v; want %q, %v", tt.pkg, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOperationActions(t *testing.T) {
	const svc = "github.com/aws/aws-sdk-go-v2/service/"
	tests := []struct {
		pkg, op string
		want    string // actions joined by spaces
	}{
		// S3 operations authorized by actions of other names.
		{"s3", "GetObject", "s3:GetObject"},
		{"s3", "PutObject", "s3:PutObject"},
		{"s3", "ListObjectsV2", "s3:ListBucket"},
		{"s3", "ListObjects", "s3:ListBucket"},
		{"s3", "HeadObject", "s3:GetObject"},
		{"s3", "HeadBucket", "s3:ListBucket"},
		{"s3", "ListObjectVersions", "s3:ListBucketVersions"},
		{"s3", "ListBuckets", "s3:ListAllMyBuckets"},
		{"s3", "PutObjectAcl", "s3:PutObjectAcl"},
		{"s3", "DeleteObjects", "s3:DeleteObject"},
		{"s3", "CopyObject", "s3:GetObject s3:PutObject"},
		{"s3", "CreateMultipartUpload", "s3:PutObject"},
		{"s3", "UploadPart", "s3:PutObject"},
		{"s3", "AbortMultipartUpload", "s3:AbortMultipartUpload"},
		{"s3", "ListParts", "s3:ListMultipartUploadParts"},
		{"s3", "GetBucketCors", "s3:GetBucketCORS"},
		{"s3", "PutBucketLifecycleConfiguration", "s3:PutLifecycleConfiguration"},
		{"s3", "GetPublicAccessBlock", "s3:GetBucketPublicAccessBlock"},
		{"s3", "WriteGetObjectResponse", "s3-object-lambda:WriteGetObjectResponse"},
		// DynamoDB maps 1:1.
		{"dynamodb", "PutItem", "dynamodb:PutItem"},
		{"dynamodb", "Query", "dynamodb:Query"},
		{"dynamodb", "BatchWriteItem", "dynamodb:BatchWriteItem"},
		{"dynamodb", "TransactWriteItems", "dynamodb:TransactWriteItems"},
		{"dynamodbstreams", "GetRecords", "dynamodb:GetRecords"},
		// Lambda's Invoke family.
		{"lambda", "Invoke", "lambda:InvokeFunction"},
		{"lambda", "InvokeWithResponseStream", "lambda:InvokeFunction"},
		{"lambda", "GetFunction", "lambda:GetFunction"},
		// Messaging batches use the single-message actions.
		{"sns", "Publish", "sns:Publish"},
		{"sns", "PublishBatch", "sns:Publish"},
		{"sqs", "SendMessageBatch", "sqs:SendMessage"},
		{"sqs", "DeleteMessageBatch", "sqs:DeleteMessage"},
		{"sqs", "ReceiveMessage", "sqs:ReceiveMessage"},
		{"sqs", "GetQueueUrl", "sqs:GetQueueUrl"},
		// Secrets, parameters, keys, identity.
		{"secretsmanager", "GetSecretValue", "secretsmanager:GetSecretValue"},
		{"secretsmanager", "BatchGetSecretValue", "secretsmanager:BatchGetSecretValue secretsmanager:GetSecretValue"},
		{"ssm", "GetParameter", "ssm:GetParameter"},
		{"ssm", "GetParametersByPath", "ssm:GetParametersByPath"},
		{"kms", "Decrypt", "kms:Decrypt"},
		{"kms", "GenerateDataKey", "kms:GenerateDataKey"},
		{"kms", "ReEncrypt", "kms:ReEncryptFrom kms:ReEncryptTo"},
		{"sts", "AssumeRole", "sts:AssumeRole"},
		{"sts", "GetCallerIdentity", "sts:GetCallerIdentity"},
		// Services whose IAM prefix differs from the package name.
		{"cloudwatchlogs", "PutLogEvents", "logs:PutLogEvents"},
		{"sfn", "StartExecution", "states:StartExecution"},
		{"eventbridge", "PutEvents", "events:PutEvents"},
		{"elasticloadbalancingv2", "DescribeTargetHealth", "elasticloadbalancing:DescribeTargetHealth"},
		{"apigatewaymanagementapi", "PostToConnection", "execute-api:ManageConnections"},
		{"bedrockruntime", "Converse", "bedrock:InvokeModel"},
		{"sesv2", "SendEmail", "ses:SendEmail"},
	}
	for _, tt := range tests {
		got := strings.Join(OperationActions(svc+tt.pkg, tt.op), " ")
		if got != tt.want {
			t.Errorf("OperationActions(%s, %s) = %q, want %q", tt.pkg, tt.op, got, tt.want)
		}
	}
	if got := OperationActions("example.com/mine", "GetObject"); got != nil {
		t.Errorf("a package that is not an SDK service gave %v", got)
	}
}

// TestOperationActionsReturnsCopies guards the table against callers that
// append to or edit the returned slice.
func TestOperationActionsReturnsCopies(t *testing.T) {
	a := OperationActions("github.com/aws/aws-sdk-go-v2/service/s3", "CopyObject")
	a[0] = "changed"
	if b := OperationActions("github.com/aws/aws-sdk-go-v2/service/s3", "CopyObject"); b[0] != "s3:GetObject" {
		t.Errorf("editing a result changed the table: %v", b)
	}
}

// TestMappedActionsAreWellFormed checks every entry of the tables has the
// IAM "prefix:Action" form, so a typo cannot reach a deployed role.
func TestMappedActionsAreWellFormed(t *testing.T) {
	for key, actions := range operationActions {
		if !actionPattern.MatchString(key) {
			t.Errorf("table key %q is not prefix:Operation", key)
		}
		if len(actions) == 0 {
			t.Errorf("%s maps to no action", key)
		}
		for _, a := range actions {
			if !actionPattern.MatchString(a) || strings.Contains(a, "*") {
				t.Errorf("%s maps to malformed action %q", key, a)
			}
		}
	}
	for svc, prefix := range iamPrefixes {
		if !actionPattern.MatchString(prefix + ":X") {
			t.Errorf("prefix of %s is malformed: %q", svc, prefix)
		}
	}
	for key, h := range featureHelpers {
		for _, a := range h.actions {
			if !actionPattern.MatchString(a) {
				t.Errorf("helper %s maps to malformed action %q", key, a)
			}
		}
	}
}
