// Command ceiling goes beyond what it declares, twice: its route reads a
// secret it was not allowed, and its importer writes to a bucket it may
// only read. framework synth and framework local refuse it.
package main

import (
	"context"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("ceiling")
	adminToken := resource.NewSecret(app, "adminToken")
	imports := resource.NewBucket(app, "imports", resource.BucketSpec{})
	imports.Allow(resource.Read, "importCsv")

	app.Route("/admin", func(r *framework.Request) (string, error) {
		return adminToken.Value(r.Context())
	}, framework.Name("admin"))

	app.OnS3Event("importCsv", imports.Ref(), func(ctx context.Context, ev events.S3Event) error {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return err
		}
		_, err = s3.NewFromConfig(cfg).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(imports.Name()), Key: aws.String("done"), Body: strings.NewReader("ok")})
		return err
	})
	app.Run()
}
