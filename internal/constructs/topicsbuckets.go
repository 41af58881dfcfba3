package constructs

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/manifest"
)

// topicFIFO makes the topic of declaration d FIFO when it says so
// (CloudFormation then names it with the .fifo suffix SNS requires).
func topicFIFO(props *awssns.TopicProps, d *manifest.Resource) {
	if !d.FIFO {
		return
	}
	props.Fifo = jsii.Bool(true)
	if d.ContentBasedDeduplication {
		props.ContentBasedDeduplication = jsii.Bool(true)
	}
}

// s3Methods maps a CORS rule's method to CDK's.
var s3Methods = map[string]awss3.HttpMethods{
	"GET": awss3.HttpMethods_GET, "PUT": awss3.HttpMethods_PUT, "POST": awss3.HttpMethods_POST,
	"DELETE": awss3.HttpMethods_DELETE, "HEAD": awss3.HttpMethods_HEAD,
}

// bucketRules gives the bucket of declaration d its CORS rules, lifecycle
// rules and versioning.
func bucketRules(props *awss3.BucketProps, d *manifest.Resource) {
	if d.Versioned {
		props.Versioned = jsii.Bool(true)
	}
	if len(d.CORS) > 0 {
		cors := make([]*awss3.CorsRule, 0, len(d.CORS))
		for _, c := range d.CORS {
			rule := &awss3.CorsRule{AllowedOrigins: jsii.Strings(c.AllowedOrigins...)}
			methods := make([]awss3.HttpMethods, 0, len(c.AllowedMethods))
			for _, m := range c.AllowedMethods {
				methods = append(methods, s3Methods[m])
			}
			rule.AllowedMethods = &methods
			if len(c.AllowedHeaders) > 0 {
				rule.AllowedHeaders = jsii.Strings(c.AllowedHeaders...)
			}
			if len(c.ExposedHeaders) > 0 {
				rule.ExposedHeaders = jsii.Strings(c.ExposedHeaders...)
			}
			if c.MaxAgeSeconds > 0 {
				rule.MaxAge = jsii.Number(float64(c.MaxAgeSeconds))
			}
			cors = append(cors, rule)
		}
		props.Cors = &cors
	}
	if len(d.Lifecycle) > 0 {
		rules := make([]*awss3.LifecycleRule, 0, len(d.Lifecycle))
		for i, l := range d.Lifecycle {
			rule := &awss3.LifecycleRule{Id: jsii.String(fmt.Sprintf("Rule%d", i+1)), Enabled: jsii.Bool(true)}
			if l.Prefix != "" {
				rule.Prefix = jsii.String(l.Prefix)
			}
			if l.ExpireAfterDays > 0 {
				rule.Expiration = awscdk.Duration_Days(jsii.Number(float64(l.ExpireAfterDays)))
			}
			if l.NoncurrentExpireAfterDays > 0 {
				rule.NoncurrentVersionExpiration = awscdk.Duration_Days(jsii.Number(float64(l.NoncurrentExpireAfterDays)))
			}
			if l.AbortIncompleteUploadsAfterDays > 0 {
				rule.AbortIncompleteMultipartUploadAfter = awscdk.Duration_Days(jsii.Number(float64(l.AbortIncompleteUploadsAfterDays)))
			}
			rules = append(rules, rule)
		}
		props.LifecycleRules = &rules
	}
}

// subscriptionFilter sets the filter policy of SNS handler f's
// subscription, when it has one.
func subscriptionFilter(sub *awssns.CfnSubscriptionProps, f *manifest.Function) error {
	if len(f.FilterPolicy) == 0 {
		return nil
	}
	var policy map[string]any
	if err := json.Unmarshal(f.FilterPolicy, &policy); err != nil {
		return fmt.Errorf("%s: filter policy: %w", f.Label(), err)
	}
	sub.FilterPolicy = policy
	scope := f.FilterPolicyScope
	if scope == "" {
		scope = manifest.FilterOnAttributes
	}
	sub.FilterPolicyScope = jsii.String(scope)
	return nil
}
