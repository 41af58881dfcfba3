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
// A resource's name is 1 to 64 letters and digits, starting with a letter
// ("todos", "orderItems"), unique in the app regardless of case. Unlike a
// handler's name it holds no hyphen nor underscore: the stack's logical
// ids and outputs are written with it, and the functions receive the
// resource in environment variables named FRAMEWORK_RES_<NAME>_<ATTR>, the
// name in upper case (FRAMEWORK_RES_ORDERITEMS_NAME), which the handles
// read for you.
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
	"github.com/framework-dev/framework/internal/manifest"
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
	// GlobalIndexes are the table's global secondary indexes (at most
	// 20); adding or removing one keeps the table and its items
	// (framework local does it at the emulator too). A deploy adds or
	// removes one index at a time and cannot change one: rename it to
	// replace it.
	GlobalIndexes []GlobalIndex
	// LocalIndexes are its local secondary indexes (at most 5, on a
	// table with a sort key); adding, changing or removing one replaces
	// the deployed table by a new, empty one (`framework diff` warns).
	LocalIndexes []LocalIndex
	// PointInTimeRecovery keeps continuous backups of the table, to
	// restore it (into a new table) to any second of the last 35 days.
	// By default it is on in the stages that keep their data (those
	// whose name looks like production: prod, production, prd, live, as
	// for keeping resources when the stack is deleted) and off in the
	// others. Turning it off deletes those backups; turning it on starts
	// them from then. The table and its items are unchanged either way.
	PointInTimeRecovery Toggle
	// DeletionProtection makes DynamoDB refuse to delete the table,
	// whoever asks (the console, an SDK call, CloudFormation deleting a
	// stack that does not keep it, or replacing it): turn it off first, in
	// a deploy of its own, to delete or replace the table.
	// Its default is PointInTimeRecovery's: on in the stages that keep
	// their data, off in the others. Changing it leaves the items as they
	// are.
	DeletionProtection Toggle
}

// QueueSpec describes an SQS queue.
type QueueSpec struct {
	// FIFO makes it a FIFO queue: each message is sent with a message
	// group ID (the SDK's MessageGroupId) and a deduplication ID, and is
	// delivered once, in order within its group. A handler it feeds gets
	// each group's messages in order, and a message that fails holds back
	// the rest of its group (not the other groups) until it succeeds or
	// moves to the dead-letter queue; with OnSQSPartialBatch, the messages
	// of a failed message's group that follow it in the batch count as
	// failed too. Its physical name ends in ".fifo". Changing it replaces
	// the queue, and the messages in it are lost.
	FIFO bool
	// ContentBasedDeduplication, for a FIFO queue, deduplicates a message
	// sent without a deduplication ID by the SHA-256 hash of its body:
	// SQS drops a message whose hash it has seen in the last 5 minutes.
	// Without it, every message needs a MessageDeduplicationId. Off by
	// default; changing it applies to the messages sent afterwards.
	ContentBasedDeduplication bool
	// MessageRetention is how long the queue keeps a message that no one
	// deletes, in whole seconds from 1 minute to 14 days; 0 means SQS's
	// default of 4 days. A shorter period applies to the messages already
	// in the queue too: those older than it are deleted. A message moved
	// to the dead-letter queue (kept 14 days) keeps its original enqueue
	// time on a standard queue.
	MessageRetention time.Duration
	// DeliveryDelay hides each new message for that long before its first
	// delivery, in whole seconds up to 15 minutes; 0 (the default) means
	// none. On a standard queue, a change applies to the messages sent
	// afterwards; on a FIFO queue, to the messages already in it too.
	DeliveryDelay time.Duration
	// VisibilityTimeout is how long a received message stays hidden from
	// other consumers, in whole seconds up to 12 hours, and at least the
	// timeout of each handler the queue feeds. 0 means, for a queue
	// feeding handlers, 6 times the longest handler's timeout plus its
	// batching window (360 s with the default 60 s timeout), at least
	// 30 s; for a queue feeding none, SQS's 30 s. The deployed queue and
	// the one framework local creates get the same value. Changing it
	// changes the existing queue in place; its messages stay.
	VisibilityTimeout time.Duration
	// MaxReceiveCount, when above 0, gives the queue a dead-letter queue
	// that a message moves to after that many receives (1 to 1000); a FIFO
	// queue's is FIFO too. It keeps messages 14 days. Queue.DeadLetter
	// names it, to inspect or redrive it (with the Redrive access).
	MaxReceiveCount int
}

// BucketSpec describes an S3 bucket.
type BucketSpec struct {
	// EmptyOnDestroy lets destroying a stage that does not keep its data
	// delete the bucket's objects, and so the bucket. Without it the
	// bucket, objects included, is kept in every stage.
	EmptyOnDestroy bool
	// CORS lists the browser origins and methods allowed to call the
	// bucket directly, as a page uploading to a presigned PUT URL
	// (Bucket.PresignPut) does; none by default, so browsers are refused.
	// Changing the rules replaces them, objects untouched.
	CORS []CORSRule
	// Lifecycle rules expire objects and abort forgotten multipart
	// uploads; none by default, so objects stay until deleted. A rule
	// added applies to the objects already there too (an object older
	// than ExpireAfterDays is deleted within a day or so); one removed
	// stops deleting.
	Lifecycle []LifecycleRule
	// Versioning keeps every version of an object overwritten or
	// deleted; off by default. Turning it on keeps the objects there, and
	// S3 can never turn it off again, only suspend it: removing the option
	// later leaves the bucket versioned as it is (suspend it in the S3
	// console), and the versions kept stay, and are billed, until deleted
	// (a lifecycle rule's NoncurrentExpireAfterDays deletes them).
	Versioning bool
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
	// Redrive: receive, delete and count the messages of the queue's
	// dead-letter queue, and move them back to the queue (SQS's
	// StartMessageMoveTask, or by hand: it may send to the queue). Only on
	// a queue with a dead-letter queue; Consume grants nothing on it.
	Redrive = QueueAccess{manifest.AccessRedrive}
)

// NewTable declares a DynamoDB table named name: 1 to 64 letters and
// digits, starting with a letter, no hyphen (see the package doc), unique
// in the app regardless of case.
func NewTable(app *framework.App, name string, spec TableSpec) *Table {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceTable, PartitionKey: keyOf(spec.PartitionKey), TTLAttribute: spec.TTLAttribute, Stream: string(spec.Stream)}
	if spec.SortKey.Name != "" || spec.SortKey.Type != "" {
		r.SortKey = keyOf(spec.SortKey)
	}
	tableIndexes(&r, &spec)
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

// NewQueue declares an SQS queue named name (letters and digits, as
// NewTable's).
func NewQueue(app *framework.App, name string, spec QueueSpec) *Queue {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceQueue, FIFO: spec.FIFO, VisibilityTimeoutSeconds: int(spec.VisibilityTimeout / time.Second), MaxReceiveCount: spec.MaxReceiveCount,
		ContentBasedDeduplication: spec.ContentBasedDeduplication, MessageRetentionSeconds: int(spec.MessageRetention / time.Second), DeliveryDelaySeconds: int(spec.DeliveryDelay / time.Second)}
	h := declare(app, r)
	if spec.VisibilityTimeout%time.Second != 0 {
		h.refuse("visibility timeout %v is not whole seconds: round it", spec.VisibilityTimeout)
	}
	for _, d := range []struct {
		what string
		v    time.Duration
	}{{"MessageRetention", spec.MessageRetention}, {"DeliveryDelay", spec.DeliveryDelay}} {
		if d.v%time.Second != 0 {
			h.refuse("%s %v is not whole seconds: round it", d.what, d.v)
		}
	}
	q := &Queue{handle: h, deadLetter: r.MaxReceiveCount > 0}
	q.dlq.q = q
	return q
}

// NewTopic declares an SNS topic named name (letters and digits, as
// NewTable's), standard unless a TopicSpec says otherwise (at most one
// spec).
func NewTopic(app *framework.App, name string, spec ...TopicSpec) *Topic {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceTopic}
	if len(spec) > 0 {
		r.FIFO, r.ContentBasedDeduplication = spec[0].FIFO, spec[0].ContentBasedDeduplication
	}
	h := declare(app, r)
	if len(spec) > 1 {
		h.refuse("%d TopicSpecs: give one", len(spec))
	}
	return &Topic{h}
}

// NewBucket declares an S3 bucket named name (letters and digits, as
// NewTable's; its physical name is CloudFormation's, in lower case).
func NewBucket(app *framework.App, name string, spec BucketSpec) *Bucket {
	r := manifest.Resource{Name: name, Kind: manifest.ResourceBucket, EmptyOnDestroy: spec.EmptyOnDestroy, Versioned: spec.Versioning}
	r.CORS, r.Lifecycle = bucketRules(spec)
	h := declare(app, r)
	for i, c := range spec.CORS {
		if c.MaxAge%time.Second != 0 {
			h.refuse("CORS rule %d: max age %v is not whole seconds: round it", i+1, c.MaxAge)
		}
	}
	return &Bucket{h}
}

// NewSecret declares a Secrets Manager secret named name (letters and
// digits, as NewTable's: "apiKey", not "api-key"). The stack
// creates it without a value; set one with `framework secret set NAME
// --stage S` or in the AWS console.
func NewSecret(app *framework.App, name string) *Secret {
	return &Secret{valued{handle: declare(app, manifest.Resource{Name: name, Kind: manifest.ResourceSecret})}}
}

// NewParameter declares an SSM Parameter Store parameter named name
// (letters and digits, as NewTable's). The
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
