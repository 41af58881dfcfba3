package localiam

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// motoS3 is moto with the buckets "allowed" and "forbidden", each with an
// object "secret", and a proxy before it whose function "fn" may do
// anything on "allowed" but delete only under tmp/, and nothing on
// "forbidden".
type motoS3 struct {
	moto  *mototest.Server
	proxy *Proxy
	// direct reads moto's state without the proxy.
	direct *s3.Client
	// fn is fn's client through the proxy, as its process builds it from
	// Environ.
	fn  *s3.Client
	env map[string]string
}

func startMotoS3(t *testing.T) *motoS3 {
	t.Helper()
	m := mototest.Start(t)
	ctx := context.Background()
	direct := s3.NewFromConfig(m.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	for _, b := range []string{"allowed", "forbidden"} {
		if _, err := direct.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
		if _, err := direct.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String("secret"), Body: strings.NewReader("secret of " + b)}); err != nil {
			t.Fatal(err)
		}
	}
	pol := StaticPolicies{"fn": {
		{Actions: []string{"s3:Get*", "s3:Put*", "s3:List*"}, Resources: []string{"arn:aws:s3:::allowed", "arn:aws:s3:::allowed/*"}},
		{Actions: []string{"s3:DeleteObject"}, Resources: []string{"arn:aws:s3:::allowed/tmp/*"}},
	}}
	p, err := Start(Options{Target: Target{Upstream: m.URL, Region: mototest.Region, Policies: pol, Env: Env{Account: mototest.AccountID},
		Credentials: func(context.Context) (awscall.Credentials, error) {
			return awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	env := map[string]string{}
	for _, kv := range p.Environ("fn") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg := aws.Config{Region: mototest.Region, BaseEndpoint: aws.String(env["AWS_ENDPOINT_URL"]), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: env["AWS_ACCESS_KEY_ID"], SecretAccessKey: env["AWS_SECRET_ACCESS_KEY"]}, nil
		})}
	return &motoS3{moto: m, proxy: p, direct: direct, env: env,
		fn: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })}
}

// raw sends a request signed as fn, in a shape the SDK does not make.
func (m *motoS3) raw(t *testing.T, method, path, host string, body []byte, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, m.env["AWS_ENDPOINT_URL"]+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	hash := hexSHA(body)
	req.Header.Set("X-Amz-Content-Sha256", hash)
	awscall.SignHash(req, hash, awscall.Credentials{AccessKeyID: m.env["AWS_ACCESS_KEY_ID"], SecretAccessKey: m.env["AWS_SECRET_ACCESS_KEY"]}, mototest.Region, "s3", time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// object is the content of bucket/key in moto, "" when there is none.
func (m *motoS3) object(t *testing.T, bucket, key string) string {
	t.Helper()
	out, err := m.direct.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		if errorCode(err) == "NoSuchKey" {
			return ""
		}
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

// Bucket subresources are checked as the IAM actions AWS documents: the
// function's own bucket takes a policy and tags, the other refuses both
// and moto's copy of it keeps none.
func TestMotoS3BucketSubresources(t *testing.T) {
	m := startMotoS3(t)
	ctx := context.Background()
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}`
	tags := &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}}
	if _, err := m.fn.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("allowed"), Policy: aws.String(strings.ReplaceAll(policy, "%s", "allowed"))}); err != nil {
		t.Fatalf("PutBucketPolicy on the function's bucket: %v", err)
	}
	if _, err := m.fn.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String("allowed"), Tagging: tags}); err != nil {
		t.Fatalf("PutBucketTagging on the function's bucket: %v", err)
	}
	if out, err := m.direct.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("allowed")}); err != nil || len(out.TagSet) != 1 {
		t.Errorf("moto's tags of allowed: %v, %v; want the one put through the proxy", out, err)
	}

	_, err := m.fn.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("forbidden"), Policy: aws.String(strings.ReplaceAll(policy, "%s", "forbidden"))})
	if code := errorCode(err); code != "AccessDenied" || !strings.Contains(err.Error(), "s3:PutBucketPolicy") {
		t.Errorf("PutBucketPolicy on another bucket: %v, want AccessDenied naming s3:PutBucketPolicy", err)
	}
	_, err = m.fn.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String("forbidden"), ACL: s3types.BucketCannedACLPublicRead})
	if code := errorCode(err); code != "AccessDenied" || !strings.Contains(err.Error(), "s3:PutBucketAcl") {
		t.Errorf("PutBucketAcl on another bucket: %v, want AccessDenied naming s3:PutBucketAcl", err)
	}
	_, err = m.fn.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String("forbidden"), Tagging: tags})
	if code := errorCode(err); code != "AccessDenied" {
		t.Errorf("PutBucketTagging on another bucket: %v, want AccessDenied", err)
	}
	if _, err := m.direct.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String("forbidden")}); errorCode(err) != "NoSuchBucketPolicy" {
		t.Errorf("moto's policy of forbidden: %v, want none", err)
	}
	acl, err := m.direct.GetBucketAcl(ctx, &s3.GetBucketAclInput{Bucket: aws.String("forbidden")})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range acl.Grants {
		if g.Grantee != nil && g.Grantee.URI != nil && strings.Contains(*g.Grantee.URI, "AllUsers") {
			t.Errorf("forbidden was made public: %v", *g.Grantee.URI)
		}
	}
	if _, err := m.direct.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("forbidden")}); errorCode(err) != "NoSuchTagSet" {
		t.Errorf("moto's tags of forbidden: %v, want none", err)
	}
}

// A Host naming the function's bucket with a path naming another acts on
// the Host's bucket, as S3 reads it (the path is the key): the proxy sends
// on what it checked, so the other bucket is neither read nor written.
func TestMotoS3HostAndPathBucket(t *testing.T) {
	m := startMotoS3(t)
	status, body := m.raw(t, "PUT", "/forbidden/planted", "allowed.s3.localhost", []byte("planted"))
	if status != 200 {
		t.Fatalf("PUT through the virtual host of allowed: %d %s", status, body)
	}
	if got := m.object(t, "forbidden", "planted"); got != "" {
		t.Errorf("forbidden/planted holds %q: the path's bucket was written", got)
	}
	if got := m.object(t, "allowed", "forbidden/planted"); got != "planted" {
		t.Errorf("allowed/forbidden/planted holds %q, want the object put", got)
	}
	status, body = m.raw(t, "GET", "/forbidden/secret", "allowed.s3.localhost", nil)
	if strings.Contains(body, "secret of forbidden") || status != 404 {
		t.Errorf("GET of /forbidden/secret through allowed's host: %d %q, want allowed's NoSuchKey", status, body)
	}
	// The SDK's own virtual-host request reaches the bucket it names.
	status, body = m.raw(t, "GET", "/secret", "allowed.s3.localhost", nil)
	if status != 200 || body != "secret of allowed" {
		t.Errorf("GET of allowed's secret by virtual host: %d %q", status, body)
	}
}

// DeleteObjects as the SDK sends it is checked key by key: a batch that
// names a key the function may not delete is refused whole; copies from
// another bucket are refused; what the role allows still works.
func TestMotoS3DeleteObjectsAndCopy(t *testing.T) {
	m := startMotoS3(t)
	ctx := context.Background()
	if _, err := m.fn.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("allowed"), Key: aws.String("tmp/a"), Body: strings.NewReader("a")}); err != nil {
		t.Fatal(err)
	}
	del := func(keys ...string) error {
		var ids []s3types.ObjectIdentifier
		for _, k := range keys {
			ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(k)})
		}
		_, err := m.fn.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("allowed"), Delete: &s3types.Delete{Objects: ids}})
		return err
	}
	if err := del("tmp/a", "secret"); errorCode(err) != "AccessDenied" {
		t.Errorf("DeleteObjects of tmp/a and secret: %v, want AccessDenied", err)
	}
	if m.object(t, "allowed", "secret") == "" || m.object(t, "allowed", "tmp/a") == "" {
		t.Error("a refused DeleteObjects deleted objects")
	}
	if err := del("tmp/a"); err != nil {
		t.Errorf("DeleteObjects of tmp/a: %v", err)
	}
	if m.object(t, "allowed", "tmp/a") != "" {
		t.Error("tmp/a is still there")
	}

	_, err := m.fn.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("allowed"), Key: aws.String("copy"), CopySource: aws.String("forbidden/secret")})
	if code := errorCode(err); code != "AccessDenied" || !strings.Contains(err.Error(), "arn:aws:s3:::forbidden/secret") {
		t.Errorf("CopyObject from forbidden: %v, want AccessDenied naming the source", err)
	}
	if got := m.object(t, "allowed", "copy"); got != "" {
		t.Errorf("allowed/copy holds %q after a refused copy", got)
	}
	if _, err := m.fn.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("allowed"), Key: aws.String("copy"), CopySource: aws.String("allowed/secret")}); err != nil {
		t.Errorf("CopyObject within allowed: %v", err)
	}
}
