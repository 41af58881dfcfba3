package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/wording"
)

// ResourceKind is the kind of an AWS resource the app declares and owns:
// the stage's stack creates it, and the app reaches it through a handle.
type ResourceKind string

// Resource kinds, as they appear in Resource.Kind.
const (
	ResourceTable     ResourceKind = "table"     // a DynamoDB table
	ResourceQueue     ResourceKind = "queue"     // an SQS queue
	ResourceTopic     ResourceKind = "topic"     // an SNS topic
	ResourceBucket    ResourceKind = "bucket"    // an S3 bucket
	ResourceSecret    ResourceKind = "secret"    // a Secrets Manager secret, its value set outside the code
	ResourceParameter ResourceKind = "parameter" // an SSM Parameter Store parameter, its value set outside the code
)

// Access is what a function may do with a declared resource; each becomes
// IAM statements on that resource's ARN only.
type Access string

// Accesses, as they appear in Grant.Access.
const (
	AccessRead      Access = "read"       // table, bucket, secret, parameter
	AccessWrite     Access = "write"      // table, bucket
	AccessReadWrite Access = "read_write" // table, bucket
	AccessSend      Access = "send"       // queue
	AccessConsume   Access = "consume"    // queue
	AccessPublish   Access = "publish"    // topic
	// AccessIdempotency is what a handler made idempotent needs on the
	// table holding its records (get, put and delete an item); the option
	// that makes it idempotent grants it (resource.Idempotent).
	AccessIdempotency Access = "idempotency" // table
)

// Attributes of a deployed resource that the stack hands to the functions
// (see ResourceEnv) and publishes as stack outputs (see ResourceOutput).
const (
	AttrName      = "NAME"       // every kind: the physical name (a queue's name, a secret's or parameter's name)
	AttrARN       = "ARN"        // every kind
	AttrURL       = "URL"        // queue: the queue URL the SDK sends to
	AttrStreamARN = "STREAM_ARN" // table with a stream
)

// UnsetValue is the value the stage's stack gives a declared secret or
// parameter when it creates it: the real value is set outside the code
// (`framework secret set`, the AWS console), and CloudFormation leaves a
// value set that way alone as long as the template does not change it. A
// handle that reads UnsetValue reports that the value is not set yet.
const UnsetValue = "framework:unset"

// ResourceSpec is what one resource kind allows.
type ResourceSpec struct {
	// Accesses are the accesses a grant may give on the kind.
	Accesses []Access
	// Attrs are the attributes the stack hands over (AttrStreamARN only
	// for a table with a stream, the AttrDLQ* ones only for a queue with a
	// dead-letter queue).
	Attrs []string
	// Source is the handler kind that a resource of this kind can feed
	// (OnSQSMessage on a declared queue, ...); "" when none.
	Source Kind
}

// tableAccesses are a table's accesses: a package variable, statically
// initialized, rather than a literal in ResourceKinds, whose init would
// allocate it and link an equality function for it into every binary.
var tableAccesses = []Access{AccessRead, AccessWrite, AccessReadWrite, AccessIdempotency}

// ResourceKinds describes every resource kind.
var ResourceKinds = map[ResourceKind]ResourceSpec{
	ResourceTable:     {Accesses: tableAccesses, Attrs: []string{AttrName, AttrARN, AttrStreamARN}, Source: KindDynamoDB},
	ResourceQueue:     {Accesses: []Access{AccessSend, AccessConsume, AccessRedrive}, Attrs: []string{AttrName, AttrARN, AttrURL, AttrDLQName, AttrDLQURL, AttrDLQARN}, Source: KindSQS},
	ResourceTopic:     {Accesses: []Access{AccessPublish}, Attrs: []string{AttrName, AttrARN}, Source: KindSNS},
	ResourceBucket:    {Accesses: []Access{AccessRead, AccessWrite, AccessReadWrite}, Attrs: []string{AttrName, AttrARN}, Source: KindS3},
	ResourceSecret:    {Accesses: []Access{AccessRead}, Attrs: []string{AttrName, AttrARN}},
	ResourceParameter: {Accesses: []Access{AccessRead}, Attrs: []string{AttrName, AttrARN}},
}

// KeyAttr is a DynamoDB key attribute.
type KeyAttr struct {
	// Name is the attribute's name.
	Name string `json:"name"`
	// Type is "S" (string), "N" (number) or "B" (binary).
	Type string `json:"type"`
}

// Table stream view types (Resource.Stream).
var streamViews = []string{"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"}

// Resource is one resource the app declares. Only the fields of its kind
// may be set.
type Resource struct {
	// Name is the logical name the app gives it: letters and digits,
	// starting with a letter, unique regardless of case. The physical name
	// is CloudFormation's, so two stages never collide.
	Name string `json:"name"`
	// Kind is the resource's kind.
	Kind ResourceKind `json:"kind"`

	// PartitionKey and SortKey are a table's keys (PartitionKey required).
	PartitionKey *KeyAttr `json:"partition_key,omitempty"`
	SortKey      *KeyAttr `json:"sort_key,omitempty"`
	// TTLAttribute names a table's time-to-live attribute.
	TTLAttribute string `json:"ttl_attribute,omitempty"`
	// Stream is a table's stream view type (NEW_IMAGE, OLD_IMAGE,
	// NEW_AND_OLD_IMAGES, KEYS_ONLY); "" for no stream.
	Stream string `json:"stream,omitempty"`
	// GlobalIndexes and LocalIndexes are a table's secondary indexes.
	GlobalIndexes []Index `json:"global_indexes,omitempty"`
	LocalIndexes  []Index `json:"local_indexes,omitempty"`
	// PointInTimeRecovery and DeletionProtection turn a table's
	// point-in-time recovery and deletion protection on or off; nil
	// leaves the stage's default (Resource.TableProtection).
	PointInTimeRecovery *bool `json:"point_in_time_recovery,omitempty"`
	DeletionProtection  *bool `json:"deletion_protection,omitempty"`

	// FIFO makes a queue a FIFO queue, or a topic a FIFO topic.
	FIFO bool `json:"fifo,omitempty"`
	// VisibilityTimeoutSeconds is a queue's visibility timeout; 0 means
	// the default internal/declspec.QueueOf gives: 6 times the longest
	// timeout of the handlers it feeds plus the batching window, at least
	// 30 s (SQS's default, a queue feeding none gets it).
	VisibilityTimeoutSeconds int `json:"visibility_timeout_seconds,omitempty"`
	// MaxReceiveCount, when above 0, gives a queue a dead-letter queue
	// that a message moves to after that many receives.
	MaxReceiveCount int `json:"max_receive_count,omitempty"`
	// ContentBasedDeduplication makes a FIFO queue or topic deduplicate
	// messages sent without a deduplication ID by a SHA-256 hash of their
	// body.
	ContentBasedDeduplication bool `json:"content_based_deduplication,omitempty"`
	// MessageRetentionSeconds is how long a queue keeps a message (60 to
	// 1209600); 0 means SQS's default (4 days).
	MessageRetentionSeconds int `json:"message_retention_seconds,omitempty"`
	// DeliveryDelaySeconds is how long a queue hides a new message before
	// its first delivery (0 to 900).
	DeliveryDelaySeconds int `json:"delivery_delay_seconds,omitempty"`

	// EmptyOnDestroy lets destroying a stage whose bucket is not retained
	// delete the objects in it (the bucket is kept otherwise: CloudFormation
	// cannot delete a bucket that holds objects).
	EmptyOnDestroy bool `json:"empty_on_destroy,omitempty"`
	// CORS are a bucket's CORS rules, for browsers that call it directly
	// (presigned uploads); none when empty.
	CORS []CORSRule `json:"cors,omitempty"`
	// Lifecycle are a bucket's lifecycle rules; none when empty.
	Lifecycle []LifecycleRule `json:"lifecycle,omitempty"`
	// Versioned turns a bucket's versioning on.
	Versioned bool `json:"versioned,omitempty"`
}

// Grant gives access to a declared resource.
type Grant struct {
	// Resource is the declared resource's Name.
	Resource string `json:"resource"`
	// Access is what the function may do with it.
	Access Access `json:"access"`
}

// Label names a resource in error messages.
func (r *Resource) Label() string { return fmt.Sprintf("%s %q", r.Kind, r.Name) }

// ResourceEnv is the environment variable that carries attribute attr of
// the declared resource named name to a function:
// FRAMEWORK_RES_<NAME IN UPPER CASE>_<attr>, for example
// FRAMEWORK_RES_TODOS_NAME.
func ResourceEnv(name, attr string) string {
	return "FRAMEWORK_RES_" + strings.ToUpper(name) + "_" + attr
}

// ResourceOutput is the key of the stack output that publishes attribute
// attr of the declared resource named name, for `framework local --stage`
// and other readers of a deployed stage: "Res" + name + the attribute in
// camel case, for example ResTodosName or ResTodosStreamArn.
func ResourceOutput(name, attr string) string {
	var b strings.Builder
	b.WriteString("Res")
	b.WriteString(strings.ToUpper(name[:1]) + name[1:])
	for part := range strings.SplitSeq(attr, "_") {
		b.WriteString(part[:1] + strings.ToLower(part[1:]))
	}
	return b.String()
}

// Resource returns the declared resource named name (regardless of case), or nil.
func (m *Manifest) Resource(name string) *Resource {
	for i := range m.Resources {
		if strings.EqualFold(m.Resources[i].Name, name) {
			return &m.Resources[i]
		}
	}
	return nil
}

// validateResources checks the declared resources, the grants (app-wide,
// per route and per function) and the functions fed by a declared
// resource; every problem names the declaration.
func (m *Manifest) validateResources() []error {
	var errs []error
	seen := map[string]bool{}
	for i := range m.Resources {
		r := &m.Resources[i]
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{r.Label()}, args...)...))
		}
		if _, ok := ResourceKinds[r.Kind]; !ok {
			bad("unknown resource kind: use one of table, queue, topic, bucket, secret, parameter")
			continue
		}
		switch {
		case !resourceName(r.Name):
			bad("%s", resourceNameRule(r.Name))
		case seen[strings.ToLower(r.Name)]:
			bad("two resources are named %q (names are unique regardless of case): rename one", r.Name)
		}
		seen[strings.ToLower(r.Name)] = true
		isTable, isQueue := r.Kind == ResourceTable, r.Kind == ResourceQueue
		if !isTable && (r.PartitionKey != nil || r.SortKey != nil || r.TTLAttribute != "" || r.Stream != "") {
			bad("keys, a TTL attribute and a stream belong to tables only: remove them")
		}
		if o := r.tableOnly(); o != "" && !isTable {
			bad("only a table takes %s: remove them from the declaration", o)
		}
		if r.FIFO && !isQueue && r.Kind != ResourceTopic {
			bad("only a queue or a topic can be FIFO: remove the FIFO option")
		}
		if !isQueue && (r.VisibilityTimeoutSeconds != 0 || r.MaxReceiveCount != 0) {
			bad("a visibility timeout and a dead-letter queue belong to queues only: remove them")
		}
		errs = append(errs, r.validateQueueOptions()...)
		if r.EmptyOnDestroy && r.Kind != ResourceBucket {
			bad("only a bucket can be emptied on destroy: remove the option")
		}
		validateTopicBucket(r, bad)
		if isTable {
			if r.PartitionKey == nil {
				bad("a table needs a partition key")
			}
			for _, k := range []*KeyAttr{r.PartitionKey, r.SortKey} {
				if k != nil && (k.Name == "" || !slices.Contains([]string{"S", "N", "B"}, k.Type)) {
					bad("key %q: give the attribute a name and a type of S (string), N (number) or B (binary)", k.Name)
				}
			}
			if r.Stream != "" && !slices.Contains(streamViews, r.Stream) {
				bad("stream view %q: use one of %s", r.Stream, strings.Join(streamViews, ", "))
			}
			r.validateTable(bad)
		}
		if isQueue {
			if r.VisibilityTimeoutSeconds < 0 || r.VisibilityTimeoutSeconds > 43200 {
				bad("visibility timeout %d s is out of range: use 0 to 43200 seconds (0 for the default)", r.VisibilityTimeoutSeconds)
			}
			if r.MaxReceiveCount < 0 || r.MaxReceiveCount > 1000 {
				bad("max receive count %d is out of range: use 1 to 1000 (0 means no dead-letter queue)", r.MaxReceiveCount)
			}
		}
	}
	checkGrants := func(who string, grants []Grant) {
		for _, g := range grants {
			r := m.Resource(g.Resource)
			if r == nil {
				errs = append(errs, fmt.Errorf("%s: access %q to resource %q, which the app does not declare: declare it, or fix the name", who, g.Access, g.Resource))
				continue
			}
			if spec, ok := ResourceKinds[r.Kind]; ok && !slices.Contains(spec.Accesses, g.Access) {
				errs = append(errs, fmt.Errorf("%s: access %q on %s: a %s allows %v", who, g.Access, r.Label(), r.Kind, spec.Accesses))
			} else if err := validateRedrive(who, g, r); err != nil {
				errs = append(errs, err)
			}
		}
	}
	checkGrants("the app", m.Grants)
	for i := range m.Routes {
		checkGrants(m.Routes[i].methodsLabel(), m.Routes[i].Grants)
	}
	for i := range m.Functions {
		f := &m.Functions[i]
		checkGrants(f.Label(), f.Grants)
		if f.SourceResource == "" {
			continue
		}
		r := m.Resource(f.SourceResource)
		switch {
		case r == nil:
			errs = append(errs, fmt.Errorf("%s: its source is resource %q, which the app does not declare", f.Label(), f.SourceResource))
		case ResourceKinds[r.Kind].Source != f.Kind:
			errs = append(errs, fmt.Errorf("%s: its source %s cannot feed %s handler", f.Label(), r.Label(), wording.A(string(f.Kind))))
		case r.Kind == ResourceTable && r.Stream == "":
			errs = append(errs, fmt.Errorf("%s: %s has no stream: declare the table with a stream", f.Label(), r.Label()))
		case f.Source != "":
			errs = append(errs, fmt.Errorf("%s: both a source name %q and the declared %s: give one", f.Label(), f.Source, r.Label()))
		}
	}
	return errs
}

// resourceNameRule says why name is not a resource name and what to
// rename it to. Unlike a handler's name, a resource's holds no hyphen nor
// underscore: it is written as it is into the stack's logical ids and
// outputs (letters and digits only) and, in upper case, into the
// environment variables FRAMEWORK_RES_<NAME>_<ATTR>, where a hyphen is not
// allowed and an underscore would make two names one variable.
func resourceNameRule(name string) string {
	msg := fmt.Sprintf("the name %q must be 1 to 64 letters and digits, starting with a letter: unlike a handler's name it holds no hyphen nor underscore, since it names the stack's resources and outputs and, in upper case, the environment variables FRAMEWORK_RES_<NAME>_<ATTR> that carry the resource to the functions", name)
	if s := suggestResourceName(name); s != "" && s != name {
		return msg + fmt.Sprintf("; rename it, for example to %q", s)
	}
	return msg + "; rename it"
}

// suggestResourceName writes name in camel case, its letters and digits
// only (order-items, order_items → orderItems); "" when none is left or
// it does not start with a letter.
func suggestResourceName(name string) string {
	var b strings.Builder
	upper := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case !alnum.has(c):
			upper = b.Len() > 0
		case upper && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			upper = false
		default:
			b.WriteByte(c)
			upper = false
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	if !resourceName(s) {
		return ""
	}
	return s
}
