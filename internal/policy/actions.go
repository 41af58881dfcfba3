package policy

import (
	"strings"
)

// sdkServicePrefix is the import path prefix of every AWS SDK for Go v2
// service client package; the path element after it names the service.
const sdkServicePrefix = "github.com/aws/aws-sdk-go-v2/service/"

// iamPrefixes holds the SDK service packages whose IAM service prefix is not
// the package name itself. Every other package maps to its own name
// (service/s3 → s3, service/dynamodb → dynamodb, service/sqs → sqs).
var iamPrefixes = map[string]string{
	"acmpca":                        "acm-pca",
	"apigatewaymanagementapi":       "execute-api",
	"apigatewayv2":                  "apigateway",
	"appconfigdata":                 "appconfig",
	"applicationautoscaling":        "application-autoscaling",
	"bedrockagent":                  "bedrock",
	"bedrockagentruntime":           "bedrock",
	"bedrockruntime":                "bedrock",
	"cloudcontrol":                  "cloudformation",
	"cloudfrontkeyvaluestore":       "cloudfront-keyvaluestore",
	"cloudsearchdomain":             "cloudsearch",
	"cloudwatchevents":              "events",
	"cloudwatchlogs":                "logs",
	"cognitoidentity":               "cognito-identity",
	"cognitoidentityprovider":       "cognito-idp",
	"cognitosync":                   "cognito-sync",
	"configservice":                 "config",
	"costexplorer":                  "ce",
	"databasemigrationservice":      "dms",
	"directoryservice":              "ds",
	"docdb":                         "rds",
	"dynamodbstreams":               "dynamodb",
	"ecrpublic":                     "ecr-public",
	"efs":                           "elasticfilesystem",
	"elasticloadbalancingv2":        "elasticloadbalancing",
	"elasticsearchservice":          "es",
	"emr":                           "elasticmapreduce",
	"emrcontainers":                 "emr-containers",
	"emrserverless":                 "emr-serverless",
	"eventbridge":                   "events",
	"iotdataplane":                  "iot",
	"kinesisanalyticsv2":            "kinesisanalytics",
	"lexmodelsv2":                   "lex",
	"lexruntimeservice":             "lex",
	"lexruntimev2":                  "lex",
	"location":                      "geo",
	"marketplacemetering":           "aws-marketplace",
	"mediastoredata":                "mediastore",
	"neptune":                       "rds",
	"neptunedata":                   "neptune-db",
	"opensearch":                    "es",
	"opensearchserverless":          "aoss",
	"personalizeevents":             "personalize",
	"personalizeruntime":            "personalize",
	"pinpoint":                      "mobiletargeting",
	"pinpointemail":                 "ses",
	"pinpointsmsvoicev2":            "sms-voice",
	"rdsdata":                       "rds-data",
	"redshiftdata":                  "redshift-data",
	"resourcegroupstaggingapi":      "tag",
	"s3control":                     "s3",
	"sagemakerfeaturestoreruntime":  "sagemaker",
	"sagemakerruntime":              "sagemaker",
	"sesv2":                         "ses",
	"sfn":                           "states",
	"ssmincidents":                  "ssm-incidents",
	"ssoadmin":                      "sso",
	"ssooidc":                       "sso-oauth",
	"timestreamquery":               "timestream",
	"timestreamwrite":               "timestream",
	"transcribestreaming":           "transcribe",
	"kinesisvideoarchivedmedia":     "kinesisvideo",
	"kinesisvideomedia":             "kinesisvideo",
	"kinesisvideosignaling":         "kinesisvideo",
	"kinesisvideowebrtcstorage":     "kinesisvideo",
	"iotjobsdataplane":              "iotjobsdata",
	"migrationhub":                  "mgh",
	"servicecatalogappregistry":     "servicecatalog",
	"sagemakera2iruntime":           "sagemaker",
	"sagemakergeospatial":           "sagemaker-geospatial",
	"iotsecuretunneling":            "iot",
	"marketplacecatalog":            "aws-marketplace",
	"marketplaceentitlementservice": "aws-marketplace",
}

// operationActions maps operations whose IAM action is not
// "<prefix>:<Operation>" to the actions they need. Keys are
// "<iam prefix>:<Operation>"; every operation not listed here maps 1:1.
var operationActions = map[string][]string{
	// S3: the object-listing and bucket-probing operations are authorized by
	// bucket-level actions with other names, multipart steps by
	// s3:PutObject, and bucket sub-resource configuration by actions named
	// after the configuration rather than the operation.
	"s3:ListObjects":                                 {"s3:ListBucket"},
	"s3:ListObjectsV2":                               {"s3:ListBucket"},
	"s3:HeadBucket":                                  {"s3:ListBucket"},
	"s3:HeadObject":                                  {"s3:GetObject"},
	"s3:SelectObjectContent":                         {"s3:GetObject"},
	"s3:ListObjectVersions":                          {"s3:ListBucketVersions"},
	"s3:ListBuckets":                                 {"s3:ListAllMyBuckets"},
	"s3:ListMultipartUploads":                        {"s3:ListBucketMultipartUploads"},
	"s3:ListParts":                                   {"s3:ListMultipartUploadParts"},
	"s3:CreateMultipartUpload":                       {"s3:PutObject"},
	"s3:UploadPart":                                  {"s3:PutObject"},
	"s3:CompleteMultipartUpload":                     {"s3:PutObject"},
	"s3:UploadPartCopy":                              {"s3:GetObject", "s3:PutObject"},
	"s3:CopyObject":                                  {"s3:GetObject", "s3:PutObject"},
	"s3:DeleteObjects":                               {"s3:DeleteObject"},
	"s3:GetBucketEncryption":                         {"s3:GetEncryptionConfiguration"},
	"s3:PutBucketEncryption":                         {"s3:PutEncryptionConfiguration"},
	"s3:DeleteBucketEncryption":                      {"s3:PutEncryptionConfiguration"},
	"s3:GetBucketLifecycle":                          {"s3:GetLifecycleConfiguration"},
	"s3:GetBucketLifecycleConfiguration":             {"s3:GetLifecycleConfiguration"},
	"s3:PutBucketLifecycle":                          {"s3:PutLifecycleConfiguration"},
	"s3:PutBucketLifecycleConfiguration":             {"s3:PutLifecycleConfiguration"},
	"s3:DeleteBucketLifecycle":                       {"s3:PutLifecycleConfiguration"},
	"s3:GetBucketCors":                               {"s3:GetBucketCORS"},
	"s3:PutBucketCors":                               {"s3:PutBucketCORS"},
	"s3:DeleteBucketCors":                            {"s3:PutBucketCORS"},
	"s3:GetBucketNotificationConfiguration":          {"s3:GetBucketNotification"},
	"s3:PutBucketNotificationConfiguration":          {"s3:PutBucketNotification"},
	"s3:GetBucketReplication":                        {"s3:GetReplicationConfiguration"},
	"s3:PutBucketReplication":                        {"s3:PutReplicationConfiguration"},
	"s3:DeleteBucketReplication":                     {"s3:PutReplicationConfiguration"},
	"s3:GetPublicAccessBlock":                        {"s3:GetBucketPublicAccessBlock"},
	"s3:PutPublicAccessBlock":                        {"s3:PutBucketPublicAccessBlock"},
	"s3:DeletePublicAccessBlock":                     {"s3:PutBucketPublicAccessBlock"},
	"s3:GetBucketAccelerateConfiguration":            {"s3:GetAccelerateConfiguration"},
	"s3:PutBucketAccelerateConfiguration":            {"s3:PutAccelerateConfiguration"},
	"s3:GetBucketAnalyticsConfiguration":             {"s3:GetAnalyticsConfiguration"},
	"s3:ListBucketAnalyticsConfigurations":           {"s3:GetAnalyticsConfiguration"},
	"s3:PutBucketAnalyticsConfiguration":             {"s3:PutAnalyticsConfiguration"},
	"s3:DeleteBucketAnalyticsConfiguration":          {"s3:PutAnalyticsConfiguration"},
	"s3:GetBucketInventoryConfiguration":             {"s3:GetInventoryConfiguration"},
	"s3:ListBucketInventoryConfigurations":           {"s3:GetInventoryConfiguration"},
	"s3:PutBucketInventoryConfiguration":             {"s3:PutInventoryConfiguration"},
	"s3:DeleteBucketInventoryConfiguration":          {"s3:PutInventoryConfiguration"},
	"s3:GetBucketMetricsConfiguration":               {"s3:GetMetricsConfiguration"},
	"s3:ListBucketMetricsConfigurations":             {"s3:GetMetricsConfiguration"},
	"s3:PutBucketMetricsConfiguration":               {"s3:PutMetricsConfiguration"},
	"s3:DeleteBucketMetricsConfiguration":            {"s3:PutMetricsConfiguration"},
	"s3:GetBucketIntelligentTieringConfiguration":    {"s3:GetIntelligentTieringConfiguration"},
	"s3:ListBucketIntelligentTieringConfigurations":  {"s3:GetIntelligentTieringConfiguration"},
	"s3:PutBucketIntelligentTieringConfiguration":    {"s3:PutIntelligentTieringConfiguration"},
	"s3:DeleteBucketIntelligentTieringConfiguration": {"s3:PutIntelligentTieringConfiguration"},
	"s3:DeleteBucketOwnershipControls":               {"s3:PutBucketOwnershipControls"},
	"s3:DeleteBucketTagging":                         {"s3:PutBucketTagging"},
	"s3:GetObjectLockConfiguration":                  {"s3:GetBucketObjectLockConfiguration"},
	"s3:PutObjectLockConfiguration":                  {"s3:PutBucketObjectLockConfiguration"},
	"s3:WriteGetObjectResponse":                      {"s3-object-lambda:WriteGetObjectResponse"},
	"s3:CreateSession":                               {"s3express:CreateSession"},
	"s3:ListDirectoryBuckets":                        {"s3express:ListAllMyDirectoryBuckets"},

	// Lambda: the Invoke family is authorized by lambda:InvokeFunction.
	"lambda:Invoke":                   {"lambda:InvokeFunction"},
	"lambda:InvokeAsync":              {"lambda:InvokeFunction"},
	"lambda:InvokeWithResponseStream": {"lambda:InvokeFunction"},

	// SNS and SQS: batch operations use the single-message action.
	"sns:PublishBatch":                   {"sns:Publish"},
	"sqs:SendMessageBatch":               {"sqs:SendMessage"},
	"sqs:DeleteMessageBatch":             {"sqs:DeleteMessage"},
	"sqs:ChangeMessageVisibilityBatch":   {"sqs:ChangeMessageVisibility"},
	"secretsmanager:BatchGetSecretValue": {"secretsmanager:BatchGetSecretValue", "secretsmanager:GetSecretValue"},

	// KMS: ReEncrypt needs both halves of the re-encryption.
	"kms:ReEncrypt": {"kms:ReEncryptFrom", "kms:ReEncryptTo"},

	// Bedrock: Converse is authorized by the InvokeModel actions.
	"bedrock:Converse":       {"bedrock:InvokeModel"},
	"bedrock:ConverseStream": {"bedrock:InvokeModelWithResponseStream"},

	// API Gateway management API (WebSocket connections).
	"execute-api:PostToConnection": {"execute-api:ManageConnections"},
	"execute-api:GetConnection":    {"execute-api:ManageConnections"},
	"execute-api:DeleteConnection": {"execute-api:ManageConnections"},
}

// IAMPrefix returns the IAM service prefix of the AWS SDK for Go v2 service
// package with import path pkgPath ("github.com/aws/aws-sdk-go-v2/service/
// cloudwatchlogs" → "logs"), and false if pkgPath is not a service package.
func IAMPrefix(pkgPath string) (string, bool) {
	svc, ok := strings.CutPrefix(pkgPath, sdkServicePrefix)
	if !ok || svc == "" || strings.Contains(svc, "/") || svc == "internal" {
		return "", false
	}
	if p, ok := iamPrefixes[svc]; ok {
		return p, true
	}
	return svc, true
}

// OperationActions returns the IAM actions an operation of the AWS SDK for
// Go v2 service package pkgPath needs: "s3"+"GetObject" → s3:GetObject,
// "s3"+"ListObjectsV2" → s3:ListBucket, "lambda"+"Invoke" →
// lambda:InvokeFunction. It returns nil if pkgPath is not a service package.
func OperationActions(pkgPath, operation string) []string {
	prefix, ok := IAMPrefix(pkgPath)
	if !ok || operation == "" {
		return nil
	}
	action := prefix + ":" + operation
	if mapped, ok := operationActions[action]; ok {
		return append([]string(nil), mapped...)
	}
	return []string{action}
}

// helperUse is what a function or method of an SDK feature package does
// with the client it was given.
type helperUse struct {
	operation string
	actions   []string
}

// featureHelpers maps "<package path>.<Type>.<Method>" and
// "<package path>.<Func>" of SDK feature packages to the actions they need.
// An upload that fails part way aborts its multipart upload, so Upload
// needs s3:AbortMultipartUpload as well as s3:PutObject.
var featureHelpers = map[string]helperUse{
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager.Uploader.Upload":     {"Upload", []string{"s3:AbortMultipartUpload", "s3:PutObject"}},
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager.Downloader.Download": {"Download", []string{"s3:GetObject"}},
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager.GetBucketRegion":     {"GetBucketRegion", []string{"s3:ListBucket"}},
	"github.com/aws/aws-sdk-go-v2/feature/rds/auth.BuildAuthToken":        {"BuildAuthToken", []string{"rds-db:connect"}},
}

// HelperActions returns the operation and the actions (a copy) of an SDK
// feature package's function or method named "<package path>.<Func>" or
// "<package path>.<Type>.<Method>", such as feature/s3/manager's
// Uploader.Upload, and whether it is one the policy knows.
func HelperActions(name string) (operation string, actions []string, ok bool) {
	h, ok := featureHelpers[name]
	if !ok {
		return "", nil, false
	}
	return h.operation, append([]string(nil), h.actions...), true
}
