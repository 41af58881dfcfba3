// Package eventsample builds realistic events of every kind a handler
// answers, in the shapes AWS delivers them: `framework invoke --local`
// sends one when no event is given, and frameworktest builds its events
// with them. Sources given by name are placed in Region and Account.
package eventsample

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/manifest"
)

// Region and Account are where sample sources live when a handler names
// its source without an ARN.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// Time is the time every sample event carries, so that samples are stable.
var Time = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// ARN returns the ARN of a source given by name or ARN, for service
// ("sqs", "sns", "kinesis"; "s3" gives arn:aws:s3:::NAME).
func ARN(service, source string) string {
	switch {
	case strings.HasPrefix(source, "arn:"):
		return source
	case service == "s3":
		return "arn:aws:s3:::" + source
	case service == "kinesis":
		return fmt.Sprintf("arn:aws:kinesis:%s:%s:stream/%s", Region, Account, source)
	}
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s", service, Region, Account, source)
}

// resourceName is the last part of an ARN, or the name itself.
func resourceName(source string) string {
	if i := strings.LastIndexAny(source, ":/"); strings.HasPrefix(source, "arn:") && i >= 0 {
		return source[i+1:]
	}
	return source
}

// Schedule is the "Scheduled Event" EventBridge sends a schedule's target.
func Schedule(rule string) events.EventBridgeEvent {
	return events.EventBridgeEvent{
		Version: "0", ID: "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: Account, Time: Time, Region: Region,
		Resources: []string{fmt.Sprintf("arn:aws:events:%s:%s:rule/%s", Region, Account, rule)},
		Detail:    json.RawMessage("{}"),
	}
}

// EventBridge is an event on the default bus with the given source,
// detail type and detail (JSON).
func EventBridge(source, detailType string, detail json.RawMessage) events.EventBridgeEvent {
	if len(detail) == 0 {
		detail = json.RawMessage("{}")
	}
	return events.EventBridgeEvent{
		Version: "0", ID: "6a7e8feb-b491-4cf7-a9f1-bf3703467718", DetailType: detailType, Source: source,
		AccountID: Account, Time: Time, Region: Region, Resources: []string{}, Detail: detail,
	}
}

// SQS is a batch of messages of queue (name or ARN), one per body; message
// i (from 1) has MessageId "message-i".
func SQS(queue string, bodies ...string) events.SQSEvent {
	arn := ARN("sqs", queue)
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(bodies))}
	for i, b := range bodies {
		ev.Records[i] = events.SQSMessage{
			MessageId: fmt.Sprintf("message-%d", i+1), ReceiptHandle: fmt.Sprintf("AQEB-receipt-%d", i+1), Body: b,
			Attributes: map[string]string{
				"ApproximateReceiveCount": "1", "SentTimestamp": fmt.Sprint(Time.UnixMilli()),
				"SenderId": "AIDAIENQZJOLO23YVJ4VO", "ApproximateFirstReceiveTimestamp": fmt.Sprint(Time.UnixMilli() + 5),
			},
			MessageAttributes: map[string]events.SQSMessageAttribute{},
			EventSource:       "aws:sqs", EventSourceARN: arn, AWSRegion: Region,
		}
	}
	return ev
}

// SNS is a notification of topic (name or ARN) carrying message.
func SNS(topic, subject, message string) events.SNSEvent {
	arn := ARN("sns", topic)
	return events.SNSEvent{Records: []events.SNSEventRecord{{
		EventVersion: "1.0", EventSource: "aws:sns",
		EventSubscriptionArn: arn + ":2bcfbf39-05c3-41de-beaa-fcfcc21c8f55",
		SNS: events.SNSEntity{
			Type: "Notification", MessageID: "95df01b4-ee98-5cb9-9903-4c221d41eb5e", TopicArn: arn,
			Subject: subject, Message: message, Timestamp: Time, SignatureVersion: "1",
			Signature: "EXAMPLE", SigningCertURL: "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem",
			UnsubscribeURL:    "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=" + arn + ":2bcfbf39-05c3-41de-beaa-fcfcc21c8f55",
			MessageAttributes: map[string]any{},
		},
	}}}
}

// S3 is one object event (eventName such as "ObjectCreated:Put") of key in
// bucket (name or ARN).
func S3(bucket, eventName, key string, size int64) events.S3Event {
	name := resourceName(bucket)
	return events.S3Event{Records: []events.S3EventRecord{{
		EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: Region, EventTime: Time, EventName: eventName,
		PrincipalID:       events.S3UserIdentity{PrincipalID: "AWS:AIDAINPONIXQXHT3IKHL2"},
		RequestParameters: events.S3RequestParameters{SourceIPAddress: "205.255.255.255"},
		ResponseElements:  map[string]string{"x-amz-request-id": "D82B88E5F771F645", "x-amz-id-2": "vlR7PnpV2Ce81l0PRw6jlUpck7Jo5ZsQjryTjKlc5aLWGVHPZLj5NeC6qMa0emYBDXOo6QBU0Wo="},
		S3: events.S3Entity{
			SchemaVersion: "1.0", ConfigurationID: "framework-notification",
			Bucket: events.S3Bucket{Name: name, OwnerIdentity: events.S3UserIdentity{PrincipalID: "A3I5XTEXAMAI3E"}, Arn: "arn:aws:s3:::" + name},
			Object: events.S3Object{Key: key, Size: size, URLDecodedKey: key, ETag: "d41d8cd98f00b204e9800998ecf8427e", Sequencer: "0055AED6DCD90281E5"},
		},
	}}}
}

// DynamoDB is one INSERT record of stream (its ARN) with a string key "id".
func DynamoDB(stream, id string) events.DynamoDBEvent {
	return events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		AWSRegion: Region, EventID: "c4ca4238a0b923820dcc509a6f75849b", EventName: "INSERT", EventSource: "aws:dynamodb",
		EventVersion: "1.1", EventSourceArn: stream,
		Change: events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: Time},
			Keys:                        map[string]events.DynamoDBAttributeValue{"id": events.NewStringAttribute(id)},
			NewImage:                    map[string]events.DynamoDBAttributeValue{"id": events.NewStringAttribute(id), "status": events.NewStringAttribute("placed")},
			SequenceNumber:              "4421584500000000017450439091", SizeBytes: 26, StreamViewType: "NEW_AND_OLD_IMAGES",
		},
	}}}
}

// Kinesis is a batch of records of stream (name or ARN), one per data;
// record i (from 1) has the sequence number "4959033207...0i".
func Kinesis(stream string, data ...[]byte) events.KinesisEvent {
	arn := ARN("kinesis", stream)
	ev := events.KinesisEvent{Records: make([]events.KinesisEventRecord, len(data))}
	for i, d := range data {
		ev.Records[i] = events.KinesisEventRecord{
			AwsRegion: Region, EventID: fmt.Sprintf("shardId-000000000000:%s", KinesisSequence(i+1)), EventName: "aws:kinesis:record",
			EventSource: "aws:kinesis", EventSourceArn: arn, EventVersion: "1.0",
			InvokeIdentityArn: fmt.Sprintf("arn:aws:iam::%s:role/lambda-role", Account),
			Kinesis: events.KinesisRecord{
				ApproximateArrivalTimestamp: events.SecondsEpochTime{Time: Time}, Data: d, PartitionKey: "1",
				SequenceNumber: KinesisSequence(i + 1), KinesisSchemaVersion: "1.0",
			},
		}
	}
	return ev
}

// KinesisSequence is the sequence number of the i-th record (from 1) of a
// Kinesis sample.
func KinesisSequence(i int) string {
	return fmt.Sprintf("49590338271490256608559692538361571095921575989136588%03d", i)
}

// For returns a realistic event for the handler f describes, JSON: what
// its source would send it.
func For(f manifest.Function) ([]byte, error) {
	f.Source = Source(f)
	var ev any
	switch f.Kind {
	case framework.KindSchedule:
		ev = Schedule(f.Name)
	case framework.KindEventBridge:
		var pat map[string]any
		_ = json.Unmarshal(f.EventPattern, &pat)
		source, detailType := first(pat["source"], "my.app"), first(pat["detail-type"], "Sample")
		ev = EventBridge(source, detailType, json.RawMessage(`{"sample": true}`))
	case framework.KindSQS:
		ev = SQS(f.Source, `{"sample": 1}`, `{"sample": 2}`)
	case framework.KindSNS:
		ev = SNS(f.Source, "Sample", `{"sample": true}`)
	case framework.KindS3:
		name := "ObjectCreated:Put"
		if len(f.Events) > 0 && !strings.HasSuffix(f.Events[0], "*") {
			name = strings.TrimPrefix(f.Events[0], "s3:")
		} else if len(f.Events) > 0 && strings.HasPrefix(f.Events[0], "s3:ObjectRemoved") {
			name = "ObjectRemoved:Delete"
		}
		ev = S3(f.Source, name, f.Prefix+"sample"+f.Suffix, 1024)
	case framework.KindDynamoDB:
		ev = DynamoDB(f.Source, "sample-1")
	case framework.KindKinesis:
		ev = Kinesis(f.Source, []byte(`{"sample": 1}`), []byte(`{"sample": 2}`))
	case framework.KindFunction:
		return []byte("{}"), nil
	case framework.KindAuthorizer:
		ev = events.APIGatewayCustomAuthorizerRequest{
			Type: "TOKEN", AuthorizationToken: "sample-token",
			MethodArn: fmt.Sprintf("arn:aws:execute-api:%s:%s:sample/api/GET/", Region, Account),
		}
	case manifest.KindWebSocket:
		ev = WebSocket(f.RouteKey, manifest.DefaultRouteSelection)
	case framework.KindHTTP, "":
		return nil, fmt.Errorf("no sample event for the REST API's function: give an API Gateway proxy event with --event, or call the route with `framework local`")
	default:
		return nil, fmt.Errorf("no sample event for kind %q", f.Kind)
	}
	return json.MarshalIndent(ev, "", "  ")
}

// first returns the first string of a pattern's value list, or def.
func first(v any, def string) string {
	if l, ok := v.([]any); ok && len(l) > 0 {
		if s, ok := l[0].(string); ok {
			return s
		}
	}
	return def
}

// Source is the queue, topic, bucket or stream that feeds f: its Source,
// or the ARN of the declared resource feeding it, the one the environment
// gives (the stack's, or framework local's) or else one made from the
// resource's name.
func Source(f manifest.Function) string {
	if f.Source != "" || f.SourceResource == "" {
		return f.Source
	}
	attr := manifest.AttrARN
	if f.Kind == manifest.KindDynamoDB {
		attr = manifest.AttrStreamARN
	}
	if arn := os.Getenv(manifest.ResourceEnv(f.SourceResource, attr)); arn != "" {
		return arn
	}
	switch f.Kind {
	case manifest.KindDynamoDB:
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/stream/2026-01-01T00:00:00.000", Region, Account, f.SourceResource)
	case manifest.KindS3:
		return ARN("s3", strings.ToLower(f.SourceResource))
	}
	return f.SourceResource
}
