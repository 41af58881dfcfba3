package localres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// Remove deletes, at the emulator, the resources Resolve created there for
// m's declarations (a bucket with its objects, a queue with the dead-letter
// queue made for it), for tests that start each run afresh. A resource
// already gone is not an error; the others are joined. It refuses to run
// without an emulator: a deployed stage's resources belong to its stack.
func (r *Resources) Remove(ctx context.Context, m *manifest.Manifest) error {
	if r == nil || r.Client == nil {
		return nil
	}
	c := r.Client
	if c.endpoint == "" {
		return errors.New("remove declared resources: only an emulator's resources are removed, never a deployed stage's")
	}
	var errs []error
	for i := range m.Resources {
		d := &m.Resources[i]
		attrs := r.Attrs[d.Name]
		if attrs[manifest.AttrName] == "" {
			continue
		}
		if err := c.remove(ctx, d, attrs); err != nil {
			errs = append(errs, fmt.Errorf("remove %s (%s) at %s: %w", d.Label(), attrs[manifest.AttrName], c.endpoint, err))
		}
	}
	return errors.Join(errs...)
}

// gone reports whether err says the resource does not exist.
func gone(err error) bool {
	var ae *awscall.Error
	if !errors.As(err, &ae) {
		return false
	}
	return strings.Contains(ae.Code, "NotFound") || strings.Contains(ae.Code, "NonExistent") || ae.Code == "QueueDoesNotExist"
}

func (c *Client) remove(ctx context.Context, d *manifest.Resource, attrs map[string]string) error {
	name := attrs[manifest.AttrName]
	var err error
	switch d.Kind {
	case manifest.ResourceTable:
		err = c.Call(ctx, "dynamodb", "DeleteTable", map[string]any{"TableName": name}, nil)
	case manifest.ResourceQueue:
		err = c.Call(ctx, "sqs", "DeleteQueue", map[string]any{"QueueUrl": attrs[manifest.AttrURL]}, nil)
		if err == nil && d.MaxReceiveCount > 0 {
			dlq := strings.TrimSuffix(name, ".fifo") + "-dlq"
			if d.FIFO {
				dlq += ".fifo"
			}
			var out struct{ QueueUrl string }
			if err = c.Call(ctx, "sqs", "GetQueueUrl", map[string]any{"QueueName": dlq}, &out); err == nil {
				err = c.Call(ctx, "sqs", "DeleteQueue", map[string]any{"QueueUrl": out.QueueUrl}, nil)
			}
		}
	case manifest.ResourceTopic:
		err = c.sns(ctx, url.Values{"Action": {"DeleteTopic"}, "TopicArn": {attrs[manifest.AttrARN]}}, nil)
	case manifest.ResourceBucket:
		return c.removeBucket(ctx, name)
	case manifest.ResourceSecret:
		err = c.Call(ctx, "secretsmanager", "DeleteSecret", map[string]any{"SecretId": name, "ForceDeleteWithoutRecovery": true}, nil)
	case manifest.ResourceParameter:
		err = c.Call(ctx, "ssm", "DeleteParameter", map[string]any{"Name": name}, nil)
	}
	if gone(err) {
		return nil
	}
	return err
}

// removeBucket empties the bucket (every object version) and deletes it.
func (c *Client) removeBucket(ctx context.Context, name string) error {
	s := c.s3Client()
	in := &s3.ListObjectVersionsInput{Bucket: aws.String(name)}
	for {
		out, err := s.ListObjectVersions(ctx, in)
		if err != nil {
			if noSuchBucket(err) {
				return nil
			}
			return err
		}
		var ids []s3types.ObjectIdentifier
		for _, v := range out.Versions {
			ids = append(ids, s3types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		for _, v := range out.DeleteMarkers {
			ids = append(ids, s3types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
		}
		if len(ids) > 0 {
			if _, err := s.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(name), Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}}); err != nil {
				return err
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		in.KeyMarker, in.VersionIdMarker = out.NextKeyMarker, out.NextVersionIdMarker
	}
	_, err := s.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)})
	if noSuchBucket(err) {
		return nil
	}
	return err
}

// noSuchBucket reports whether err is S3's NoSuchBucket (a modeled
// error for some operations, only a code for others).
func noSuchBucket(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket"
}
