package framework

import "github.com/framework-dev/framework/internal/manifest"

// HandlerKind is the kind of event a handler answers: KindHTTP for the
// routes, one of the event kinds for the handlers registered with the On
// methods, KindFunction for a plain function.
type HandlerKind = manifest.Kind

// Handler kinds.
const (
	KindHTTP        = manifest.KindHTTP        // the REST API's routes, one function for all
	KindSchedule    = manifest.KindSchedule    // an EventBridge schedule (rate or cron)
	KindSQS         = manifest.KindSQS         // messages of an SQS queue
	KindSNS         = manifest.KindSNS         // messages of an SNS topic
	KindS3          = manifest.KindS3          // object events of an S3 bucket
	KindEventBridge = manifest.KindEventBridge // EventBridge events matching a pattern
	KindDynamoDB    = manifest.KindDynamoDB    // records of a DynamoDB stream
	KindKinesis     = manifest.KindKinesis     // records of a Kinesis data stream
	KindFunction    = manifest.KindFunction    // a plain function: any JSON in, any JSON out
	KindAuthorizer  = manifest.KindAuthorizer  // an AppAuthorizer, which API Gateway calls

	// KindAll selects every kind in App.UseFor: the routes and every
	// event handler and plain function.
	KindAll HandlerKind = "all"
)

// Starting positions of a stream handler (StartingPosition).
const (
	StartLatest      = manifest.StartLatest      // only records written after the mapping is created
	StartTrimHorizon = manifest.StartTrimHorizon // every record the stream still holds
)
