package manifest

import (
	"fmt"
	"strings"
)

// Trigger is how the stage stack makes a function's events reach it.
type Trigger int

const (
	// TriggerNone: the function is invoked directly (a plain function).
	TriggerNone Trigger = iota
	// TriggerRule: an EventBridge rule, with a schedule (KindSchedule) or
	// an event pattern, targets the function.
	TriggerRule
	// TriggerMapping: an event source mapping polls the source (a queue or
	// a stream) and invokes the function with batches; the role gets
	// KindSpec.ReadActions on the source.
	TriggerMapping
	// TriggerSubscription: an SNS subscription of protocol lambda.
	TriggerSubscription
	// TriggerBucketNotification: an S3 bucket notification.
	TriggerBucketNotification
	// TriggerWebSocket: a route of the app's WebSocket API (websocket.go)
	// integrates the function.
	TriggerWebSocket
)

// KindSpec describes one kind of event handler: what its Source refers
// to, which settings apply, and how its trigger is made. Package framework
// (options that apply to a kind), the manifest's rules, the construct
// (triggers and grants) and the sample events read it.
//
// Adding a kind is one entry here and one registration method with its
// handler type in package framework (plus a sample event in
// internal/eventsample): a kind whose trigger is one of the Trigger values
// needs no other change.
type KindSpec struct {
	Kind Kind
	// Source names what Function.Source refers to ("queue", "topic",
	// "bucket", "stream"); "" when the kind reads from no source.
	Source string
	// Label names the source in messages ("queue", "DynamoDB stream").
	Label string
	// Service is the AWS service of the source's ARN.
	Service string
	// ValidName tells whether a source given by name (in the stack's
	// account and region) is a valid name; nil when only an ARN will do.
	ValidName func(name string) bool
	// ARNResource is how the resource part of the source's ARN starts
	// ("stream/" for Kinesis, "table/" for a DynamoDB stream); the ARN of a
	// source given by name is built with it.
	ARNResource string
	// ARNHint shows the form of the source's ARN in error messages.
	ARNHint string
	// MaxBatch is the largest BatchSize; 0 when batches do not apply.
	MaxBatch int
	// Stream is true when StartingPosition applies.
	Stream bool
	// Trigger is how the stack makes the events reach the function.
	Trigger Trigger
	// ReadActions are the IAM actions an event source mapping needs on the
	// source (TriggerMapping).
	ReadActions []string
}

// Kinds are the kinds of event handler and plain function, in the order
// error messages list them.
var Kinds = []KindSpec{
	{Kind: KindSchedule, Trigger: TriggerRule},
	{Kind: KindSQS, Source: "queue", Label: "queue", Service: "sqs", ValidName: queueName,
		ARNHint: "arn:aws:sqs:REGION:ACCOUNT:QUEUE", MaxBatch: 10000, Trigger: TriggerMapping,
		ReadActions: []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"}},
	{Kind: KindSNS, Source: "topic", Label: "topic", Service: "sns", ValidName: topicName,
		ARNHint: "arn:aws:sns:REGION:ACCOUNT:TOPIC", Trigger: TriggerSubscription},
	{Kind: KindS3, Source: "bucket", Label: "bucket", Service: "s3", ValidName: bucketName,
		ARNHint: "arn:aws:s3:::BUCKET", Trigger: TriggerBucketNotification},
	{Kind: KindEventBridge, Trigger: TriggerRule},
	{Kind: KindDynamoDB, Source: "stream", Label: "DynamoDB stream", Service: "dynamodb", ARNResource: "table/",
		ARNHint:  "arn:aws:dynamodb:REGION:ACCOUNT:table/TABLE/stream/LABEL (the table's LatestStreamArn)",
		MaxBatch: 10000, Stream: true, Trigger: TriggerMapping,
		ReadActions: []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}},
	{Kind: KindKinesis, Source: "stream", Label: "Kinesis stream", Service: "kinesis", ValidName: kinesisName, ARNResource: "stream/",
		ARNHint: "arn:aws:kinesis:REGION:ACCOUNT:stream/NAME", MaxBatch: 10000, Stream: true, Trigger: TriggerMapping,
		ReadActions: []string{"kinesis:DescribeStream", "kinesis:DescribeStreamSummary", "kinesis:GetRecords", "kinesis:GetShardIterator", "kinesis:ListShards", "kinesis:ListStreams", "kinesis:SubscribeToShard"}},
	{Kind: KindFunction},
	{Kind: KindAuthorizer},
	{Kind: KindWebSocket, Trigger: TriggerWebSocket},
}

// SpecOf returns the description of kind, and false for a kind that is
// not one of Kinds.
func SpecOf(kind Kind) (KindSpec, bool) {
	for _, k := range Kinds {
		if k.Kind == kind {
			return k, true
		}
	}
	return KindSpec{}, false
}

// FunctionKinds returns the kinds of the handlers that get a Lambda function
// of their own: every kind but KindHTTP.
func FunctionKinds() []Kind {
	out := make([]Kind, len(Kinds))
	for i, k := range Kinds {
		out[i] = k.Kind
	}
	return out
}

// checkSource checks the source a function of kind k reads from, given by
// name or ARN.
func (k KindSpec) checkSource(src string) error {
	if strings.TrimSpace(src) == "" {
		if k.ValidName == nil {
			return fmt.Errorf("no %s: give the %s's ARN, %s", k.Source, k.Label, k.ARNHint)
		}
		return fmt.Errorf("no %s: give the %s's name or ARN", k.Source, k.Source)
	}
	if !strings.HasPrefix(src, "arn:") {
		if k.ValidName == nil {
			return fmt.Errorf("%s %q: a %s is referenced by its ARN: write %s", k.Source, src, k.Label, k.ARNHint)
		}
		if !k.ValidName(src) {
			return fmt.Errorf("%s name %q is not valid for %s: check the name, or give the ARN", k.Source, src, k.Service)
		}
		return nil
	}
	service, region, account, resource, ok := parseARN(src)
	if !ok || service != k.Service {
		return fmt.Errorf("%s %q is not an ARN of %s: write arn:aws:%s:...", k.Source, src, k.Service, k.Service)
	}
	global := k.Kind == KindS3 // bucket ARNs have neither region nor account
	switch {
	case global && (region != "" || account != "" || !bucketName(resource)):
		return fmt.Errorf("%s %q is not a %s ARN: write %s", k.Source, src, k.Label, k.ARNHint)
	case !strings.HasPrefix(resource, k.ARNResource) || (k.Kind == KindDynamoDB && !strings.Contains(resource, "/stream/")):
		return fmt.Errorf("%s %q is not a %s ARN: write %s", k.Source, src, k.Label, k.ARNHint)
	case !global && (region == "" || account == ""):
		return fmt.Errorf("%s ARN %q lacks its region or account", k.Source, src)
	}
	return nil
}
