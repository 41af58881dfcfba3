package deploy

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"

	"github.com/framework-dev/framework/internal/names"
)

// AssetsTemplate returns the template of the assets stack for env: one S3
// bucket named names.AssetsBucketName, encrypted (SSE-S3), public access
// blocked, objects owned by the bucket owner, a lifecycle rule expiring objects
// AssetsExpirationDays after upload and aborting incomplete uploads after
// a day, retained when the stack is deleted, with a bucket policy that
// denies every request not made over TLS.
func AssetsTemplate(env Env) []byte {
	bucket := env.Resolve(names.AssetsBucketName)
	arn := fmt.Sprintf("arn:%s:s3:::%s", env.Partition, bucket)
	t := map[string]any{
		"AWSTemplateFormatVersion": "2010-09-09",
		"Description":              "Assets bucket of the framework CLI: Lambda packages and large templates of the apps deployed to this account and region. Created by the first `framework deploy`.",
		"Resources": map[string]any{
			"AssetsBucket": map[string]any{
				"Type":                "AWS::S3::Bucket",
				"DeletionPolicy":      "Retain",
				"UpdateReplacePolicy": "Retain",
				"Properties": map[string]any{
					"BucketName": bucket,
					"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
						map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
					}},
					"PublicAccessBlockConfiguration": map[string]any{
						"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
					},
					"OwnershipControls": map[string]any{"Rules": []any{map[string]any{"ObjectOwnership": "BucketOwnerEnforced"}}},
					"LifecycleConfiguration": map[string]any{"Rules": []any{map[string]any{
						"Id": "ExpireOldAssets", "Status": "Enabled", "ExpirationInDays": AssetsExpirationDays,
						"AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": 1},
					}}},
				},
			},
			"AssetsBucketPolicy": map[string]any{
				"Type": "AWS::S3::BucketPolicy",
				"Properties": map[string]any{
					"Bucket": map[string]any{"Ref": "AssetsBucket"},
					"PolicyDocument": map[string]any{
						"Version": "2012-10-17",
						"Statement": []any{map[string]any{
							"Sid": "TLSRequestsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
							"Resource":  []any{arn, arn + "/*"},
							"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
						}},
					},
				},
			},
		},
		"Outputs": map[string]any{
			"BucketName": map[string]any{"Value": map[string]any{"Ref": "AssetsBucket"}},
		},
	}
	b, _ := json.MarshalIndent(t, "", " ")
	return b
}

// EnsureAssetsBucket creates the assets stack and its bucket when the
// account and region do not have it yet, saying what it creates. It is a
// no-op (one DescribeStacks call) once the stack exists.
func (e *Engine) EnsureAssetsBucket(ctx context.Context, env Env) error {
	st, err := e.DescribeStack(ctx, names.AssetsStackName)
	if err != nil {
		return err
	}
	hint := "run " + e.command("deploy") + " again once it has finished"
	if st != nil {
		switch {
		case st.Status == "ROLLBACK_COMPLETE":
			e.printf("Stack %s (the assets bucket) failed to be created before: deleting it to create it again.\n", names.AssetsStackName)
			if err := e.deleteStack(ctx, st, hint); err != nil {
				return err
			}
		case !terminal(st.Status) && st.Status != "REVIEW_IN_PROGRESS":
			e.printf("Stack %s (the assets bucket) is %s: waiting for it.\n", names.AssetsStackName, st.Status)
			f := e.newFollower(names.AssetsStackName, st.ID, "", 2, "creation of the assets bucket", hint)
			f.boundary, _ = e.lastEventID(ctx, st.ID)
			status, err := f.wait(ctx)
			if err != nil {
				return err
			}
			if !succeeded(status) {
				return fmt.Errorf("stack %s (the assets bucket) is %s: %s", names.AssetsStackName, status, e.explainStatus(names.AssetsStackName, status))
			}
			return nil
		case succeeded(st.Status) || st.Status == "UPDATE_ROLLBACK_COMPLETE":
			return nil
		case st.Status != "REVIEW_IN_PROGRESS":
			return fmt.Errorf("stack %s (the assets bucket) is %s: %s", names.AssetsStackName, st.Status, e.explainStatus(names.AssetsStackName, st.Status))
		}
	}
	bucket := env.Resolve(names.AssetsBucketName)
	e.printf("First deployment to account %s in %s: creating stack %s with the S3 bucket %s for deployment assets "+
		"(encrypted, public access blocked, TLS-only bucket policy, objects expire %d days after upload). This is done once per account and region.\n",
		env.Account, env.Region, names.AssetsStackName, bucket, AssetsExpirationDays)
	tpl := AssetsTemplate(env)
	cs, err := e.createChangeSet(ctx, changeSetInput{stackName: names.AssetsStackName, template: tpl, create: true, description: "framework assets bucket"})
	if err != nil {
		return err
	}
	if cs.NoChanges {
		return nil
	}
	boundary, err := e.lastEventID(ctx, cs.StackID)
	if err != nil {
		return err
	}
	if _, err := e.CFN.ExecuteChangeSet(ctx, &cloudformation.ExecuteChangeSetInput{ChangeSetName: aws.String(cs.ID), StackName: aws.String(cs.StackID)}); err != nil {
		return fmt.Errorf("create stack %s: %w", names.AssetsStackName, err)
	}
	f := e.newFollower(names.AssetsStackName, cs.StackID, boundary, resourceCount(tpl), "creation of the assets bucket", hint)
	status, err := f.wait(ctx)
	if err != nil {
		return err
	}
	if !succeeded(status) {
		f.report(status)
		return fmt.Errorf("creating the assets bucket %s (stack %s) failed: %w", bucket, names.AssetsStackName, ErrFailed)
	}
	return nil
}
