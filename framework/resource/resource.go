// Package resource declares the AWS resources an app owns: DynamoDB
// tables, SQS queues, SNS topics, S3 buckets, Secrets Manager secrets and
// SSM parameters. The stage's stack creates each one (CloudFormation
// names it, so two stages never collide), grants the functions exactly the
// accesses the app declares, and hands every function each resource's
// name, ARN and URL in its environment, which the handles read at run
// time:
//
//	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
//	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{MaxReceiveCount: 3})
//	todos.Allow(resource.ReadWrite)          // every function of the app
//	jobs.Allow(resource.Consume, "worker")   // only the handler named worker
//	app.OnSQSPartialBatch("worker", jobs.Ref(), work)
//	...
//	client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(todos.Name()), ...})
//
// Declarations are checked when the app starts, with its routes and
// handlers (App.Validate): two resources with one name, an access granted
// to a handler the app does not declare, a table's Stream() feeding a
// handler when the table has no stream, a resource of one app used by
// another, are declaration errors naming the declaration.
//
// Outside Lambda, `framework local --stage S` gives the handles the
// deployed stage's resources, and `framework local --aws-endpoint URL`
// those of an emulator (moto, LocalStack).
package resource

import (
	"fmt"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/manifest"
)

// KeyType is the type of a table's key attribute.
type KeyType string

// Key attribute types.
const (
	String KeyType = "S"
	Number KeyType = "N"
	Binary KeyType = "B"
)

// Key is a table's key attribute.
type Key struct {
	Name string
	Type KeyType
}

// StreamView is what a table's stream records hold of a changed item.
type StreamView string

// Stream views.
const (
	NewImage        StreamView = "NEW_IMAGE"          // the item after the change
	OldImage        StreamView = "OLD_IMAGE"          // the item before it
	NewAndOldImages StreamView = "NEW_AND_OLD_IMAGES" // both
	KeysOnly        StreamView = "KEYS_ONLY"          // its key attributes only
)

// TableSpec describes a DynamoDB table (billed per request).
type TableSpec struct {
	// PartitionKey is required.
	PartitionKey Key
	// SortKey is optional: none when its Name is empty.
	SortKey Key
	// TTLAttribute names the attribute holding each item's expiry time
	// (seconds since the epoch); none when empty.
	TTLAttribute string
	// Stream turns the table's stream on, with that view; Table.Stream
	// feeds it to a handler.
	Stream StreamView
}

// QueueSpec describes an SQS queue.
type QueueSpec struct {
	// FIFO makes it a FIFO queue (exactly-once, ordered per group).
	FIFO bool
	// VisibilityTimeout is how long a received message stays hidden from
	// other consumers, in whole seconds up to 12 hours; 0 means 30 s.
	VisibilityTimeout time.Duration
	// MaxReceiveCount, when above 0, gives the queue a dead-letter queue
	// that a message moves to after that many receives (1 to 1000).
	MaxReceiveCount int
}

// BucketSpec describes an S3 bucket.
type BucketSpec struct {
	// EmptyOnDestroy lets destroying a stage that does not keep its data
	// delete the bucket's objects, and so the bucket. Without it the
	// bucket, objects included, is kept in every stage.
	EmptyOnDestroy bool
}

// DataAccess is an access to a table or a bucket.
type DataAccess struct{ a manifest.Access }

// Accesses to a table or a bucket.
var (
	Read      = DataAccess{manifest.AccessRead}      // get, query and scan items; get and list objects
	Write     = DataAccess{manifest.AccessWrite}     // put, update and delete items or objects
	ReadWrite = DataAccess{manifest.AccessReadWrite} // both
)

// QueueAccess is an access to a queue.
type QueueAccess struct{ a manifest.Access }

// Accesses to a queue.
var (
	Send    = QueueAccess{manifest.AccessSend}    // send messages
	Consume = QueueAccess{manifest.AccessConsume} // receive and delete messages (a handler the queue feeds has it already)
)

// NewTable declares a DynamoDB table named name (letters and digits,
// starting with a letter, unique in the app regardless of case).
func NewTable(app *framework.App, name string, spec TableSpec) *Table {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceTable, PartitionKey: keyOf(spec.PartitionKey), TTLAttribute: spec.TTLAttribute, Stream: string(spec.Stream)}
	if spec.SortKey.Name != "" || spec.SortKey.Type != "" {
		r.SortKey = keyOf(spec.SortKey)
	}
	h := declare(app, r)
	h.noStream = r.Stream == ""
	return &Table{h}
}

func keyOf(k Key) *manifest.KeyAttr {
	if k.Name == "" && k.Type == "" {
		return nil
	}
	return &manifest.KeyAttr{Name: k.Name, Type: string(k.Type)}
}

// NewQueue declares an SQS queue named name.
func NewQueue(app *framework.App, name string, spec QueueSpec) *Queue {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceQueue, FIFO: spec.FIFO, VisibilityTimeoutSeconds: int(spec.VisibilityTimeout / time.Second), MaxReceiveCount: spec.MaxReceiveCount}
	h := declare(app, r)
	if spec.VisibilityTimeout%time.Second != 0 {
		h.refuse("visibility timeout %v is not whole seconds: round it", spec.VisibilityTimeout)
	}
	return &Queue{h}
}

// NewTopic declares an SNS topic named name. It is a standard topic: SNS
// FIFO topics are not offered, so there is no option to ask for one.
func NewTopic(app *framework.App, name string) *Topic {
	return &Topic{declare(app, manifest.Resource{Name: name, Kind: manifest.ResourceTopic})}
}

// NewBucket declares an S3 bucket named name (its physical name is
// CloudFormation's, in lower case).
func NewBucket(app *framework.App, name string, spec BucketSpec) *Bucket {
	return &Bucket{declare(app, manifest.Resource{Name: name, Kind: manifest.ResourceBucket, EmptyOnDestroy: spec.EmptyOnDestroy})}
}

// NewSecret declares a Secrets Manager secret named name. The stack
// creates it without a value; set one with `framework secret set NAME
// --stage S` or in the AWS console.
func NewSecret(app *framework.App, name string) *Secret {
	return &Secret{valued{handle: declare(app, manifest.Resource{Name: name, Kind: manifest.ResourceSecret})}}
}

// NewParameter declares an SSM Parameter Store parameter named name. The
// stack creates it without a value; set one with `framework secret set
// NAME --stage S` or in the AWS console.
func NewParameter(app *framework.App, name string) *Parameter {
	return &Parameter{valued{handle: declare(app, manifest.Resource{Name: name, Kind: manifest.ResourceParameter})}}
}

// declare declares r on app, from the app's code two frames up.
func declare(app *framework.App, r manifest.Resource) *handle {
	h := &handle{app: apphook.Of(app), name: r.Name, kind: r.Kind, where: apphook.Caller(2), decl: r}
	h.app.DeclareResource(r, h.where)
	return h
}

// Allow gives the handlers named (route handlers, event handlers, plain
// functions), or every function of the app when none is named, access to
// the table.
func (t *Table) Allow(access DataAccess, handlers ...string) { t.allow(access.a, handlers) }

// Allow gives the handlers named, or every function when none is, access
// to the queue.
func (q *Queue) Allow(access QueueAccess, handlers ...string) { q.allow(access.a, handlers) }

// Allow lets the handlers named, or every function when none is, publish
// to the topic.
func (t *Topic) Allow(handlers ...string) { t.allow(manifest.AccessPublish, handlers) }

// Allow gives the handlers named, or every function when none is, access
// to the bucket.
func (b *Bucket) Allow(access DataAccess, handlers ...string) { b.allow(access.a, handlers) }

// Allow lets the handlers named, or every function when none is, read the
// secret.
func (s *Secret) Allow(handlers ...string) { s.allow(manifest.AccessRead, handlers) }

// Allow lets the handlers named, or every function when none is, read the
// parameter.
func (p *Parameter) Allow(handlers ...string) { p.allow(manifest.AccessRead, handlers) }

// allow grants access, written in the app's code two frames up.
func (h *handle) allow(access manifest.Access, handlers []string) {
	where := apphook.Caller(2)
	if access == "" {
		h.refuse("access granted at %s is the zero value: use one of the package's accesses (resource.Read, resource.Send, ...)", where)
		return
	}
	h.app.Grant(manifest.Grant{Resource: h.name, Access: access}, handlers, where)
}

// refuse records a declaration error about the resource.
func (h *handle) refuse(format string, args ...any) {
	h.app.Refuse(fmt.Errorf("%s %q (declared at %s): "+format, append([]any{h.kind, h.name, h.where}, args...)...))
}

// Ref is the queue as the source of an event handler:
// app.OnSQSMessage("worker", jobs.Ref(), handler).
func (q *Queue) Ref() string { return apphook.SourcePrefix + q.name }

// Ref is the topic as the source of an event handler:
// app.OnSNSMessage("fanout", events.Ref(), handler).
func (t *Topic) Ref() string { return apphook.SourcePrefix + t.name }

// Ref is the bucket as the source of an event handler:
// app.OnS3Event("thumbnails", files.Ref(), handler).
func (b *Bucket) Ref() string { return apphook.SourcePrefix + b.name }

// Stream is the table's stream as the source of an event handler:
// app.OnDynamoDBRecord("audit", todos.Stream(), handler). A table declared
// without a stream (TableSpec.Stream) is a declaration error there.
func (t *Table) Stream() string { return apphook.SourcePrefix + t.name }
