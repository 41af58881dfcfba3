package localres

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/framework-dev/framework/internal/manifest"
)

// topicAttributes are the CreateTopic attributes of declared topic d.
func topicAttributes(d *manifest.Resource) map[string]string {
	if !d.FIFO {
		return nil
	}
	attrs := map[string]string{"FifoTopic": "true"}
	if d.ContentBasedDeduplication {
		attrs["ContentBasedDeduplication"] = "true"
	}
	return attrs
}

// subscriptionAttributes are the Subscribe attributes of the local queue
// of SNS handler f: its filter policy, so that the emulator filters as SNS
// does deployed; nil without one.
func subscriptionAttributes(f *manifest.Function) map[string]string {
	if len(f.FilterPolicy) == 0 {
		return nil
	}
	scope := f.FilterPolicyScope
	if scope == "" {
		scope = manifest.FilterOnAttributes
	}
	return map[string]string{"FilterPolicyScope": scope, "FilterPolicy": string(f.FilterPolicy)}
}

// withAttributes adds attrs to an SNS query form as Attributes.entry.N.
func withAttributes(form url.Values, attrs map[string]string) url.Values {
	n := 0
	// The scope first: SNS checks the policy against it.
	for _, k := range []string{"FilterPolicyScope", "FifoTopic"} {
		if v, ok := attrs[k]; ok {
			n++
			form.Set("Attributes.entry."+strconv.Itoa(n)+".key", k)
			form.Set("Attributes.entry."+strconv.Itoa(n)+".value", v)
		}
	}
	for k, v := range attrs {
		if k == "FilterPolicyScope" || k == "FifoTopic" {
			continue
		}
		n++
		form.Set("Attributes.entry."+strconv.Itoa(n)+".key", k)
		form.Set("Attributes.entry."+strconv.Itoa(n)+".value", v)
	}
	return form
}

// createTopic creates the SNS topic named name with attrs (or finds it:
// SNS's CreateTopic is idempotent) and returns its ARN.
func (c *Client) createTopic(ctx context.Context, name string, attrs map[string]string) (string, error) {
	var out struct {
		ARN string `xml:"CreateTopicResult>TopicArn"`
	}
	err := c.sns(ctx, withAttributes(url.Values{"Action": {"CreateTopic"}, "Name": {name}}, attrs), &out)
	return out.ARN, err
}

// subscribe subscribes the queue queueARN to the topic topicARN with the
// subscription attributes attrs (SNS's Subscribe is idempotent, and sets
// the attributes of a subscription already there). Without attributes, a
// filter policy an earlier run set on the subscription is removed (set to
// {}, SNS's "no policy").
func (c *Client) subscribe(ctx context.Context, topicARN, queueARN string, attrs map[string]string) error {
	var out struct {
		ARN string `xml:"SubscribeResult>SubscriptionArn"`
	}
	err := c.sns(ctx, withAttributes(url.Values{"Action": {"Subscribe"}, "TopicArn": {topicARN}, "Protocol": {"sqs"}, "Endpoint": {queueARN}}, attrs), &out)
	if err != nil || attrs != nil || out.ARN == "" {
		return err
	}
	var got struct {
		Entries []struct {
			Key   string `xml:"key"`
			Value string `xml:"value"`
		} `xml:"GetSubscriptionAttributesResult>Attributes>entry"`
	}
	if err := c.sns(ctx, url.Values{"Action": {"GetSubscriptionAttributes"}, "SubscriptionArn": {out.ARN}}, &got); err != nil {
		return nil // an emulator that cannot say has set no filter either
	}
	for _, e := range got.Entries {
		if e.Key == "FilterPolicy" && e.Value != "" && e.Value != "{}" {
			return c.sns(ctx, url.Values{"Action": {"SetSubscriptionAttributes"}, "SubscriptionArn": {out.ARN},
				"AttributeName": {"FilterPolicy"}, "AttributeValue": {"{}"}}, nil)
		}
	}
	return nil
}

// applyBucketRules gives the emulator's bucket name the CORS rules,
// lifecycle rules and versioning declaration d gives it deployed. Rules
// are put on each start, so that changed ones apply; a bucket declared
// without rules is left as it is, and versioning is never suspended (as
// the stack does not).
func (c *Client) applyBucketRules(ctx context.Context, name string, d *manifest.Resource) error {
	if len(d.CORS) == 0 && len(d.Lifecycle) == 0 && !d.Versioned {
		return nil
	}
	s := c.s3Client()
	if d.Versioned {
		if _, err := s.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
			VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled}}); err != nil {
			return fmt.Errorf("turn versioning on: %w", err)
		}
	}
	if len(d.CORS) > 0 {
		var rules []s3types.CORSRule
		for _, r := range d.CORS {
			rule := s3types.CORSRule{AllowedOrigins: r.AllowedOrigins, AllowedMethods: r.AllowedMethods,
				AllowedHeaders: r.AllowedHeaders, ExposeHeaders: r.ExposedHeaders}
			if r.MaxAgeSeconds > 0 {
				rule.MaxAgeSeconds = aws.Int32(int32(r.MaxAgeSeconds))
			}
			rules = append(rules, rule)
		}
		if _, err := s.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(name),
			CORSConfiguration: &s3types.CORSConfiguration{CORSRules: rules}}); err != nil {
			return fmt.Errorf("set the CORS rules: %w", err)
		}
	}
	if len(d.Lifecycle) > 0 {
		var rules []s3types.LifecycleRule
		for i, l := range d.Lifecycle {
			rule := s3types.LifecycleRule{ID: aws.String(fmt.Sprintf("Rule%d", i+1)), Status: s3types.ExpirationStatusEnabled,
				Filter: &s3types.LifecycleRuleFilter{Prefix: aws.String(l.Prefix)}}
			if l.ExpireAfterDays > 0 {
				rule.Expiration = &s3types.LifecycleExpiration{Days: aws.Int32(int32(l.ExpireAfterDays))}
			}
			if l.NoncurrentExpireAfterDays > 0 {
				rule.NoncurrentVersionExpiration = &s3types.NoncurrentVersionExpiration{NoncurrentDays: aws.Int32(int32(l.NoncurrentExpireAfterDays))}
			}
			if l.AbortIncompleteUploadsAfterDays > 0 {
				rule.AbortIncompleteMultipartUpload = &s3types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(int32(l.AbortIncompleteUploadsAfterDays))}
			}
			rules = append(rules, rule)
		}
		if _, err := s.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String(name),
			LifecycleConfiguration: &s3types.BucketLifecycleConfiguration{Rules: rules}}); err != nil {
			return fmt.Errorf("set the lifecycle rules: %w", err)
		}
	}
	return nil
}
