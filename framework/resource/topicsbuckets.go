package resource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// TopicSpec describes an SNS topic: NewTopic(app, "orders",
// resource.TopicSpec{FIFO: true, ContentBasedDeduplication: true}).
type TopicSpec struct {
	// FIFO makes it a FIFO topic: ordered per message group and
	// deduplicated, its name ending in .fifo; off by default. A publish
	// then needs a MessageGroupId, and a MessageDeduplicationId unless
	// ContentBasedDeduplication is on. SNS delivers a FIFO topic to SQS
	// queues only, so no OnSNSMessage handler can read it (a declaration
	// error). Changing it replaces the topic (a new one, subscriptions
	// made outside the app lost).
	FIFO bool
	// ContentBasedDeduplication (FIFO only) deduplicates messages
	// published without a MessageDeduplicationId by a SHA-256 hash of
	// their body, over SNS's 5-minute window; off by default. Changing it
	// updates the topic in place.
	ContentBasedDeduplication bool
}

// CORSRule is one CORS rule of a bucket: which pages (origins) may call
// it with which methods. For browser uploads to presigned URLs:
//
//	resource.CORSRule{AllowedOrigins: []string{"https://app.example.com"}, AllowedMethods: []string{"PUT", "GET"}, AllowedHeaders: []string{"*"}, MaxAge: time.Hour}
type CORSRule struct {
	// AllowedOrigins are the origins allowed (scheme and host, with at most
	// one *; "*" alone allows any page). Required.
	AllowedOrigins []string
	// AllowedMethods are among GET, PUT, POST, DELETE and HEAD. Required.
	AllowedMethods []string
	// AllowedHeaders are the request headers a page may send (Content-Type,
	// ...; "*" for any); none by default, which refuses a preflight that
	// asks for one.
	AllowedHeaders []string
	// ExposedHeaders are the response headers a page's script may read
	// (ETag, ...); none by default.
	ExposedHeaders []string
	// MaxAge is how long a browser may reuse a preflight's answer, in
	// whole seconds; 0 (the default) leaves it to the browser.
	MaxAge time.Duration
}

// LifecycleRule is one lifecycle rule of a bucket: what S3 deletes, by
// itself, of the objects whose key starts with Prefix. Each of its days
// counts from the object's creation (or the version's becoming
// noncurrent, or the upload's start), and 0 means never.
type LifecycleRule struct {
	// Prefix narrows the rule to the keys starting with it ("tmp/");
	// every object when empty.
	Prefix string
	// ExpireAfterDays deletes an object that many days after it was
	// written. In a versioned bucket the object is only hidden behind a
	// delete marker, its data kept as a noncurrent version.
	ExpireAfterDays int
	// NoncurrentExpireAfterDays (versioned bucket only) deletes a version
	// that many days after a newer one replaced it.
	NoncurrentExpireAfterDays int
	// AbortIncompleteUploadsAfterDays aborts a multipart upload not
	// completed that many days after it started, deleting the parts
	// already uploaded (which are billed, yet in no object).
	AbortIncompleteUploadsAfterDays int
}

// bucketRules are spec's rules as the manifest has them.
func bucketRules(spec BucketSpec) ([]manifest.CORSRule, []manifest.LifecycleRule) {
	var cors []manifest.CORSRule
	for _, c := range spec.CORS {
		cors = append(cors, manifest.CORSRule{AllowedOrigins: c.AllowedOrigins, AllowedMethods: c.AllowedMethods,
			AllowedHeaders: c.AllowedHeaders, ExposedHeaders: c.ExposedHeaders, MaxAgeSeconds: int(c.MaxAge / time.Second)})
	}
	var life []manifest.LifecycleRule
	for _, l := range spec.Lifecycle {
		life = append(life, manifest.LifecycleRule(l))
	}
	return cors, life
}

// PresignPut returns a URL that lets whoever holds it, a browser for
// example, upload the object key into the bucket with an HTTP PUT of its
// bytes, for expiry (1 s to 7 days) from now, without AWS credentials of
// its own. It is signed (SigV4, no SDK) with the function's credentials,
// so the function needs Write on the bucket (Allow), and it stops working
// when they expire: deployed, a Lambda role's last a few hours at most,
// whatever the expiry. A page on another origin needs the bucket's CORS
// rules (BucketSpec.CORS) to allow it. Under `framework local` the URL
// points at the emulator, through the local IAM check, which refuses it
// once expired or altered as S3 does.
func (b *Bucket) PresignPut(ctx context.Context, key string, expiry time.Duration) (string, error) {
	return b.presign(ctx, "PUT", key, expiry)
}

// PresignGet returns a URL that lets whoever holds it download the object
// key with an HTTP GET, for expiry from now; the function needs Read on
// the bucket. See PresignPut.
func (b *Bucket) PresignGet(ctx context.Context, key string, expiry time.Duration) (string, error) {
	return b.presign(ctx, "GET", key, expiry)
}

func (b *Bucket) presign(ctx context.Context, method, key string, expiry time.Duration) (string, error) {
	name := b.attr(manifest.AttrName)
	if name == "" {
		return "", errors.New(b.missing(manifest.AttrName))
	}
	u, err := awscall.FromEnv().PresignS3(ctx, method, name, key, expiry)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", b.kind, b.name, err)
	}
	return u, nil
}
