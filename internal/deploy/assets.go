package deploy

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/framework-dev/framework/internal/names"
)

// PublishResult counts what publishing did.
type PublishResult struct {
	Uploaded, Skipped int
	Bytes             int64
}

// PublishAssets uploads each file asset to each of its destinations
// (placeholders resolved with env), skipping objects already there.
func (e *Engine) PublishAssets(ctx context.Context, files []FileAsset, env Env) (PublishResult, error) {
	var res PublishResult
	for _, fa := range files {
		for _, d := range fa.Destinations {
			bucket, key := env.Resolve(d.Bucket), env.Resolve(d.Key)
			exists, err := e.objectExists(ctx, bucket, key)
			if err != nil {
				return res, fmt.Errorf("asset %s: %w", fa.DisplayName, err)
			}
			if exists {
				res.Skipped++
				continue
			}
			body, err := assetBytes(fa)
			if err != nil {
				return res, err
			}
			e.printf("Uploading %s (%s) to s3://%s/%s\n", fa.DisplayName, size(len(body)), bucket, key)
			_, err = e.S3.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(key),
				Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
				ContentType: aws.String(contentType(fa)),
			})
			if err != nil {
				return res, fmt.Errorf("upload asset %s to s3://%s/%s: %w", fa.DisplayName, bucket, key, s3Hint(err, bucket))
			}
			res.Uploaded++
			res.Bytes += int64(len(body))
		}
	}
	return res, nil
}

func contentType(fa FileAsset) string {
	switch {
	case fa.Packaging == "zip" || strings.HasSuffix(fa.Path, ".zip"):
		return "application/zip"
	case strings.HasSuffix(fa.Path, ".json"):
		return "application/json"
	}
	return "application/octet-stream"
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// objectExists tells whether s3://bucket/key is there (HeadObject).
func (e *Engine) objectExists(ctx context.Context, bucket, key string) (bool, error) {
	_, err := e.S3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err == nil {
		return true, nil
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusNotFound:
			return false, nil
		case http.StatusForbidden:
			// Without s3:ListBucket a missing object answers 403: upload it.
			return false, nil
		}
	}
	return false, fmt.Errorf("look for s3://%s/%s: %w", bucket, key, err)
}

func s3Hint(err error, bucket string) error {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket" {
		return fmt.Errorf("bucket %s does not exist (the asset manifest names it; deploy creates only %s): %w", bucket, names.AssetsBucketName, err)
	}
	return err
}

// assetBytes returns the bytes to upload: the file, or the directory as a
// deterministic zip.
func assetBytes(fa FileAsset) ([]byte, error) {
	if fa.Packaging == "file" {
		b, err := os.ReadFile(fa.Path)
		if err != nil {
			return nil, fmt.Errorf("read asset %s: %w", fa.DisplayName, err)
		}
		return b, nil
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var paths []string
	err := filepath.WalkDir(fa.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("zip asset %s (%s): %w", fa.DisplayName, fa.Path, err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		rel, _ := filepath.Rel(fa.Path, p)
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("zip asset %s: %w", fa.DisplayName, err)
		}
		h := &zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}
		h.SetMode(info.Mode())
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("zip asset %s: %w", fa.DisplayName, err)
		}
		_, err = io.Copy(w, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("zip asset %s: %w", fa.DisplayName, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// objectURL returns the HTTPS URL CloudFormation reads an object from:
// path style under the S3 client's custom endpoint, else the bucket's
// virtual-hosted address in the region.
func (e *Engine) objectURL(bucket, key string) string {
	o := e.S3.Options()
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		return strings.TrimRight(*o.BaseEndpoint, "/") + "/" + bucket + "/" + key
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(e.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return fmt.Sprintf("https://%s.s3.%s.%s/%s", bucket, e.Region, suffix, key)
}

// uploadTemplate puts a template too large to send inline into the assets
// bucket and returns its URL. The manifest's stackTemplateAssetObjectUrl
// (published with the other assets) is used when there is one.
func (e *Engine) templateURL(ctx context.Context, a *Assembly, env Env) (string, error) {
	if u := env.Resolve(a.TemplateObjectURL); strings.HasPrefix(u, "s3://") {
		bucket, key, _ := strings.Cut(strings.TrimPrefix(u, "s3://"), "/")
		exists, err := e.objectExists(ctx, bucket, key)
		if err != nil {
			return "", err
		}
		if exists {
			return e.objectURL(bucket, key), nil
		}
	}
	sum := sha256.Sum256(a.Template)
	bucket, key := env.Resolve(names.AssetsBucketName), "templates/"+a.StackName+"-"+hex.EncodeToString(sum[:])+".json"
	exists, err := e.objectExists(ctx, bucket, key)
	if err != nil {
		return "", err
	}
	if !exists {
		if _, err := e.S3.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(a.Template),
			ContentLength: aws.Int64(int64(len(a.Template))), ContentType: aws.String("application/json"),
		}); err != nil {
			return "", fmt.Errorf("upload the template of stack %s to s3://%s/%s: %w", a.StackName, bucket, key, s3Hint(err, bucket))
		}
	}
	return e.objectURL(bucket, key), nil
}
