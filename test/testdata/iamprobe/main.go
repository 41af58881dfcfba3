// Command iamprobe is the app of the local IAM check's hostile replay
// (test/iam_hostile_test.go). Two functions are each allowed resources
// of their own: the route function (route alpha) a table, a bucket, a
// queue, a topic and a secret, and the queue handler beta another set of
// each. Route alpha makes, from inside its function's process, the calls
// the test asks: the allowed ones with the AWS SDK, and the hostile ones
// as raw HTTP requests it signs itself (SigV4, with the credentials its
// environment gives it), which the policy scan does not see, so that
// framework local starts the app and only the local check stands between
// them and the emulator. It answers what the service answered. The
// WebSocket route echo may manage connections; route alpha may not.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

// Ask is what the test asks route alpha to do.
type Ask struct {
	// Op is "env" (the function's environment), "own" (its resources'
	// names and a presigned URL of its bucket), "allowed" (its allowed
	// calls, with the SDK) or "raw" (Raw, signed as the function).
	Op  string `json:"op"`
	ID  string `json:"id,omitempty"` // the item and object key of "allowed"
	Raw *Raw   `json:"raw,omitempty"`
}

// Raw is one request the function signs with its own credentials.
type Raw struct {
	// Service is the SigV4 signing name.
	Service string `json:"service"`
	Method  string `json:"method"`
	// URL is where the request goes; when it starts with "/", it is a
	// path (and query) at the function's AWS_ENDPOINT_URL.
	URL string `json:"url"`
	// Host, when set, is the Host header (signed as it is sent).
	Host   string            `json:"host,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	Body   string            `json:"body,omitempty"`
}

// Answer is what a service answered a raw request.
type Answer struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   string            `json:"body"`
	Error  string            `json:"error,omitempty"` // no answer
}

// send signs r with the function's credentials and sends it.
func send(ctx context.Context, r Raw) Answer {
	u := r.URL
	if strings.HasPrefix(u, "/") {
		u = strings.TrimRight(os.Getenv("AWS_ENDPOINT_URL"), "/") + u
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, strings.NewReader(r.Body))
	if err != nil {
		return Answer{Error: err.Error()}
	}
	if r.Body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	sum := sha256.Sum256([]byte(r.Body))
	hash := hex.EncodeToString(sum[:])
	if r.Service == "s3" {
		req.Header.Set("X-Amz-Content-Sha256", hash)
	}
	creds := aws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hash, r.Service, region, time.Now()); err != nil {
		return Answer{Error: err.Error()}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Answer{Error: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	a := Answer{Status: resp.StatusCode, Body: string(b), Header: map[string]string{}}
	for _, k := range []string{"Content-Type", "X-Amzn-Errortype", "X-Amzn-Query-Error"} {
		if v := resp.Header.Get(k); v != "" {
			a.Header[k] = v
		}
	}
	return a
}

// environ is the process's environment, the credentials' secret parts
// left out.
func environ() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "AWS_SECRET_ACCESS_KEY" || k == "AWS_SESSION_TOKEN" {
			v = "(set)"
		}
		out[k] = v
	}
	return out
}

// result is the outcome of one allowed call.
func result(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

func key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}
}

// Echo is a WebSocket message of route echo.
type Echo struct {
	Action string `json:"action"`
	Text   string `json:"text"`
}

func main() {
	app := framework.New("iamprobe")
	spec := resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}}
	tableA, tableB := resource.NewTable(app, "tablea", spec), resource.NewTable(app, "tableb", spec)
	bucketA, bucketB := resource.NewBucket(app, "bucketa", resource.BucketSpec{}), resource.NewBucket(app, "bucketb", resource.BucketSpec{})
	queueA, queueB := resource.NewQueue(app, "queuea", resource.QueueSpec{}), resource.NewQueue(app, "queueb", resource.QueueSpec{})
	kick := resource.NewQueue(app, "kick", resource.QueueSpec{})
	topicA, topicB := resource.NewTopic(app, "topica"), resource.NewTopic(app, "topicb")
	secretA, secretB := resource.NewSecret(app, "secreta"), resource.NewSecret(app, "secretb")

	tableA.Allow(resource.ReadWrite, "alpha")
	bucketA.Allow(resource.ReadWrite, "alpha")
	queueA.Allow(resource.Send, "alpha")
	topicA.Allow("alpha")
	secretA.Allow("alpha")

	tableB.Allow(resource.ReadWrite, "beta")
	bucketB.Allow(resource.ReadWrite, "beta")
	queueB.Allow(resource.Send, "beta")
	topicB.Allow("beta")
	secretB.Allow("beta")

	conns := app.Connections()

	app.Route("/alpha", func(r *framework.Request, in Ask) (map[string]any, error) {
		ctx := r.Context()
		switch in.Op {
		case "env":
			return map[string]any{"env": environ()}, nil
		case "own":
			presigned, err := bucketA.PresignGet(ctx, "own.txt", 10*time.Minute)
			return map[string]any{"table": tableA.Name(), "bucket": bucketA.Name(), "queue": queueA.URL(), "topic": topicA.ARN(),
				"secret": secretA.ARN(), "presigned": presigned, "presign_error": result(err)}, nil
		case "raw":
			if in.Raw == nil {
				return nil, framework.BadRequestError{Message: "raw: give the request"}
			}
			return map[string]any{"answer": send(ctx, *in.Raw)}, nil
		case "allowed":
			cfg, err := awsConfig()
			if err != nil {
				return nil, err
			}
			out := map[string]any{}
			db := dynamodb.NewFromConfig(cfg)
			_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tableA.Name()), Item: key(in.ID)})
			out["PutItem"] = result(err)
			got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableA.Name()), Key: key(in.ID)})
			if err == nil && got.Item == nil {
				err = fmt.Errorf("item %s not found after PutItem", in.ID)
			}
			out["GetItem"] = result(err)
			objects := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
			_, err = objects.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucketA.Name()), Key: aws.String(in.ID), Body: strings.NewReader("object " + in.ID)})
			out["PutObject"] = result(err)
			obj, err := objects.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucketA.Name()), Key: aws.String(in.ID)})
			if err == nil {
				b, _ := io.ReadAll(obj.Body)
				obj.Body.Close()
				if string(b) != "object "+in.ID {
					err = fmt.Errorf("GetObject read %q", b)
				}
			}
			out["GetObject"] = result(err)
			_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueA.URL()), MessageBody: aws.String(in.ID)})
			out["SendMessage"] = result(err)
			_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topicA.ARN()), Message: aws.String(in.ID)})
			out["Publish"] = result(err)
			v, err := secretA.Value(ctx)
			if err == nil && v == "" {
				err = fmt.Errorf("empty secret value")
			}
			out["GetSecretValue"] = result(err)
			return out, nil
		}
		return nil, framework.BadRequestError{Message: "unknown op " + in.Op}
	}, framework.Methods("POST"), framework.Name("alpha"))

	// beta makes its allowed calls on each message of the kick queue and
	// writes what they gave, and its environment, on a line each.
	app.OnSQSMessage("beta", kick.Ref(), func(ctx context.Context, ev events.SQSEvent) error {
		cfg, err := awsConfig()
		if err != nil {
			return err
		}
		for _, m := range ev.Records {
			out := map[string]string{}
			_, err := dynamodb.NewFromConfig(cfg).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tableB.Name()), Item: key(m.Body)})
			out["PutItem"] = result(err)
			_, err = s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucketB.Name()), Key: aws.String(m.Body), Body: bytes.NewReader([]byte(m.Body))})
			out["PutObject"] = result(err)
			_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueB.URL()), MessageBody: aws.String(m.Body)})
			out["SendMessage"] = result(err)
			_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topicB.ARN()), Message: aws.String(m.Body)})
			out["Publish"] = result(err)
			_, err = secretB.Value(ctx)
			out["GetSecretValue"] = result(err)
			b, _ := json.Marshal(out)
			log.Printf("beta-calls %s", b)
			b, _ = json.Marshal(environ())
			log.Printf("beta-env %s", b)
		}
		return nil
	})

	// echo answers a message with the connection's id and the management
	// endpoint its function was given, through the connections handle.
	framework.WebSocketRoute(app, "echo", "echo", func(ctx context.Context, r *framework.WebSocketRequest, m Echo) error {
		return conns.SendJSON(ctx, r.ConnectionID, map[string]string{"id": r.ConnectionID, "endpoint": os.Getenv("FRAMEWORK_WEBSOCKET_ENDPOINT"), "text": m.Text})
	})
	app.Run()
}
