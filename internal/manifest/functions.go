package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Kind is the kind of event a handler answers. Every kind is served
// through one dispatch point, App.Invoke.
type Kind string

// Handler kinds, as they appear in Function.Kind and Invocation.Kind.
const (
	KindHTTP        Kind = "http"        // the REST API's routes, one function for all
	KindSchedule    Kind = "schedule"    // an EventBridge schedule (rate or cron)
	KindSQS         Kind = "sqs"         // messages of an SQS queue
	KindSNS         Kind = "sns"         // messages of an SNS topic
	KindS3          Kind = "s3"          // object events of an S3 bucket
	KindEventBridge Kind = "eventbridge" // EventBridge events matching a pattern
	KindDynamoDB    Kind = "dynamodb"    // records of a DynamoDB stream
	KindKinesis     Kind = "kinesis"     // records of a Kinesis data stream
	KindFunction    Kind = "function"    // a plain function: any JSON in, any JSON out
	KindAuthorizer  Kind = "authorizer"  // an in-app authorizer, which API Gateway calls
)

// Starting positions of a stream's event source mapping.
const (
	StartLatest      = "LATEST"       // only records written after the mapping is created
	StartTrimHorizon = "TRIM_HORIZON" // every record the stream still holds
)

// S3 event types a bucket notification may name (Function.Events).
var s3EventTypes = []string{
	"s3:ObjectCreated:*", "s3:ObjectCreated:Put", "s3:ObjectCreated:Post", "s3:ObjectCreated:Copy", "s3:ObjectCreated:CompleteMultipartUpload",
	"s3:ObjectRemoved:*", "s3:ObjectRemoved:Delete", "s3:ObjectRemoved:DeleteMarkerCreated",
	"s3:ObjectRestore:*", "s3:ObjectRestore:Post", "s3:ObjectRestore:Completed", "s3:ObjectRestore:Delete",
	"s3:ReducedRedundancyLostObject", "s3:Replication:*", "s3:LifecycleExpiration:*", "s3:LifecycleTransition",
	"s3:IntelligentTiering", "s3:ObjectTagging:*", "s3:ObjectAcl:Put",
}

// Function is one event handler or plain function of a Manifest:
// each gets a Lambda function of its own, from the same package as the
// REST API's function.
type Function struct {
	// Name is the handler's name, unique among the app's functions and
	// route handlers: letters, digits, - and _, starting with a letter.
	Name string `json:"name"`
	// Kind is the kind of event it answers.
	Kind Kind `json:"kind"`
	// Description describes the function; it becomes the Lambda function's.
	Description string `json:"description,omitempty"`
	// Schedule is the EventBridge schedule expression (KindSchedule).
	Schedule string `json:"schedule,omitempty"`
	// Source is the queue (KindSQS), topic (KindSNS) or bucket (KindS3),
	// by name or ARN, or the stream's ARN (KindDynamoDB, and KindKinesis,
	// which also takes a stream name).
	Source string `json:"source,omitempty"`
	// SourceResource names the declared resource (Manifest.Resources) that
	// feeds the handler instead of Source: a queue (KindSQS), topic
	// (KindSNS), bucket (KindS3) or a table with a stream (KindDynamoDB).
	SourceResource string `json:"source_resource,omitempty"`
	// Grants are this function's accesses to declared resources.
	Grants []Grant `json:"grants,omitempty"`
	// EventPattern is the EventBridge event pattern (KindEventBridge).
	EventPattern json.RawMessage `json:"event_pattern,omitempty"`
	// FilterPolicy is the subscription filter policy of an SNS handler
	// (KindSNS), a JSON object; FilterPolicyScope is what it matches:
	// FilterOnAttributes or FilterOnBody. None when empty.
	FilterPolicy      json.RawMessage `json:"filter_policy,omitempty"`
	FilterPolicyScope string          `json:"filter_policy_scope,omitempty"`
	// Events are the S3 event types (KindS3), for example "s3:ObjectCreated:*".
	Events []string `json:"events,omitempty"`
	// Prefix and Suffix filter S3 object keys (KindS3).
	Prefix string `json:"prefix,omitempty"`
	Suffix string `json:"suffix,omitempty"`
	// BatchSize is the largest batch of messages or records per invocation
	// (KindSQS, KindDynamoDB, KindKinesis); 0 means the service's default.
	BatchSize int `json:"batch_size,omitempty"`
	// MaxBatchingWindowSeconds is how long the event source gathers records
	// before invoking (KindSQS, KindDynamoDB, KindKinesis).
	MaxBatchingWindowSeconds int `json:"max_batching_window_seconds,omitempty"`
	// StartingPosition is StartLatest or StartTrimHorizon (KindDynamoDB, KindKinesis).
	StartingPosition string `json:"starting_position,omitempty"`
	// ReportBatchItemFailures is true when the handler answers with the
	// items that failed, so that only those are retried (KindSQS,
	// KindDynamoDB, KindKinesis).
	ReportBatchItemFailures bool `json:"report_batch_item_failures,omitempty"`
	// RouteKey is the WebSocket API route the handler answers: $connect,
	// $disconnect, $default or a route key the route selection expression
	// selects (KindWebSocket).
	RouteKey string `json:"route_key,omitempty"`
	// Authorizer names the app authorizer (a KindAuthorizer function)
	// protecting a $connect handler (KindWebSocket).
	Authorizer string `json:"authorizer,omitempty"`
}

// Label names a function in error messages.
func (f *Function) Label() string {
	if f.Kind == "" {
		return fmt.Sprintf("function %q", f.Name)
	}
	return fmt.Sprintf("%s handler %q", f.Kind, f.Name)
}

// validateFunctions checks the functions of m as AWS and the runtime need
// them; every problem names the function.
func (m *Manifest) validateFunctions() []error {
	var errs []error
	seen := map[string]bool{}
	handlers := map[string]bool{}
	for _, r := range m.Routes {
		handlers[r.Handler] = true
	}
	for i := range m.Functions {
		f := &m.Functions[i]
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{f.Label()}, args...)...))
		}
		switch {
		case !functionName(f.Name):
			bad("the name must be 1 to 64 letters, digits, - and _, starting with a letter: rename it")
		case strings.EqualFold(f.Name, "api"):
			bad("the name %q is the REST API's function: choose another", f.Name)
		case seen[strings.ToLower(f.Name)]:
			bad("two functions are named %q (names are unique regardless of case): rename one", f.Name)
		case handlers[f.Name]:
			bad("a route handler is also named %q: names are unique across routes and functions; rename one (routes take the Name option)", f.Name)
		}
		seen[strings.ToLower(f.Name)] = true
		spec, ok := SpecOf(f.Kind)
		if !ok {
			bad("unknown kind %q: use one of %v", f.Kind, FunctionKinds())
			continue
		}
		if spec.Source != "" && f.SourceResource == "" {
			if err := spec.checkSource(f.Source); err != nil {
				bad("%w", err)
			}
		}
		if spec.MaxBatch > 0 {
			if f.BatchSize < 0 || f.BatchSize > spec.MaxBatch {
				bad("batch size %d is out of range: use 1 to %d (0 means the default)", f.BatchSize, spec.MaxBatch)
			}
			if f.MaxBatchingWindowSeconds < 0 || f.MaxBatchingWindowSeconds > 300 {
				bad("maximum batching window %d s is out of range: use 0 to 300 seconds", f.MaxBatchingWindowSeconds)
			}
		}
		if spec.Stream && f.StartingPosition != StartLatest && f.StartingPosition != StartTrimHorizon {
			bad("starting position %q: use %s or %s", f.StartingPosition, StartLatest, StartTrimHorizon)
		}
		// What is particular to one kind.
		switch f.Kind {
		case KindSchedule:
			if err := CheckSchedule(f.Schedule); err != nil {
				bad("%w", err)
			}
		case KindSQS:
			if f.BatchSize > 10 && f.MaxBatchingWindowSeconds == 0 {
				bad("batch size %d needs a maximum batching window of at least 1 second (SQS sends more than 10 messages only while it waits): add MaxBatchingWindow", f.BatchSize)
			}
			if strings.HasSuffix(f.Source, ".fifo") && f.BatchSize > 10 {
				bad("batch size %d is too large for a FIFO queue: use 1 to 10", f.BatchSize)
			}
		case KindS3:
			if len(f.Events) == 0 {
				bad("no S3 event types: name at least one, for example s3:ObjectCreated:*")
			}
			for _, e := range f.Events {
				if !slices.Contains(s3EventTypes, e) {
					bad("S3 event type %q is unknown: use one of %s", e, strings.Join(s3EventTypes, ", "))
				}
			}
		case KindEventBridge:
			var pat map[string]any
			if len(f.EventPattern) == 0 || json.Unmarshal(f.EventPattern, &pat) != nil || len(pat) == 0 {
				bad("the event pattern is empty or not a JSON object: give at least one field to match, for example {\"source\": [\"my.app\"]}")
			}
		}
		var topic *Resource
		if f.SourceResource != "" {
			topic = m.Resource(f.SourceResource)
		}
		validateSNSFunction(f, topic, bad)
	}
	return errs
}
