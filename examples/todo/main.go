// Command todo is a TODO API that owns its resources: a DynamoDB table
// holding the items, a queue of items to mark done with its consumer, a
// FIFO queue of each item's history, a topic, a bucket of attachments and
// the API key as a secret. The stage's
// stack creates them all and grants each handler only what it declares.
package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

// NewTodo is the body of POST /todos.
type NewTodo struct {
	Title string `json:"title"`
	// Owner, when given, lists the item under GET /owners/{owner}/todos.
	Owner string `json:"owner,omitempty"`
}

// Todo is an item of the list.
type Todo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
	Owner string `json:"owner,omitempty"`
}

// Upload is where to PUT an attachment.
type Upload struct {
	URL string `json:"url"`
}

// awsConfig is the AWS SDK's configuration, loaded on first use from the
// environment (the function's role when deployed; AWS_ENDPOINT_URL for an
// emulator).
var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

func db() (*dynamodb.Client, error) {
	cfg, err := awsConfig()
	return dynamodb.NewFromConfig(cfg), err
}

func newApp() *framework.App {
	app := framework.New("todo")

	todos := resource.NewTable(app, "todos", resource.TableSpec{
		PartitionKey: resource.Key{Name: "id", Type: resource.String},
		Stream:       resource.NewImage,
		// The items of an owner, for GET /owners/{owner}/todos (items
		// without an owner are not in the index).
		GlobalIndexes: []resource.GlobalIndex{{Name: "byOwner", PartitionKey: resource.Key{Name: "owner", Type: resource.String}}},
	})
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{MaxReceiveCount: 3, VisibilityTimeout: time.Minute})
	// Each item's history, in order per item: its id is the message group.
	history := resource.NewQueue(app, "history", resource.QueueSpec{FIFO: true, ContentBasedDeduplication: true, MaxReceiveCount: 3, MessageRetention: 24 * time.Hour})
	topic := resource.NewTopic(app, "events")
	// Browsers upload attachments straight to the bucket (PUT to a
	// presigned URL); uploads never completed are cleaned up after a day.
	files := resource.NewBucket(app, "files", resource.BucketSpec{EmptyOnDestroy: true,
		CORS:      []resource.CORSRule{{AllowedOrigins: []string{"http://localhost:3000"}, AllowedMethods: []string{"PUT", "GET"}, AllowedHeaders: []string{"*"}, MaxAge: time.Hour}},
		Lifecycle: []resource.LifecycleRule{{Prefix: "attachments/", ExpireAfterDays: 90, AbortIncompleteUploadsAfterDays: 1}},
	})
	apiKey := resource.NewSecret(app, "apiKey")

	todos.Allow(resource.ReadWrite, "add", "done")
	todos.Allow(resource.Read, "get", "byOwner")
	apiKey.Allow("add")
	jobs.Allow(resource.Send, "add")
	topic.Allow("done")
	history.Allow(resource.Send, "done")
	files.Allow(resource.Read, "attachments")
	files.Allow(resource.Write, "attach")

	app.Route("/todos", func(r *framework.Request, in NewTodo) (Todo, error) {
		if strings.TrimSpace(in.Title) == "" {
			return Todo{}, framework.BadRequestError{Message: "give the item a title"}
		}
		t := Todo{ID: newID(), Title: in.Title, Owner: in.Owner}
		return t, put(r.Context(), todos.Name(), t)
	}, framework.Methods("POST"), framework.Name("add"), framework.Status(201), framework.WithMiddleware(requireKey(apiKey)))

	app.Route("/todos/{id}", func(r *framework.Request, id string) (Todo, error) {
		return get(r.Context(), todos.Name(), id)
	}, framework.Name("get"))

	app.Route("/owners/{owner}/todos", func(r *framework.Request, owner string) ([]Todo, error) {
		return byOwner(r.Context(), todos.Name(), owner)
	}, framework.Name("byOwner"))

	// The queue's messages are ids of items to mark done, each announced
	// on the topic; an unknown id fails that message alone, which goes back
	// to the queue (and to the dead-letter queue after 3 receives).
	app.OnSQSPartialBatch("done", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var res events.SQSEventResponse
		for _, m := range ev.Records {
			if err := markDone(ctx, todos.Name(), topic.ARN(), history.URL(), strings.TrimSpace(m.Body)); err != nil {
				log.Printf("message %s: %v", m.MessageId, err)
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return res, nil
	})

	// An item's history, in the order it happened: a failed message holds
	// back the later ones of its item, never the other items'.
	app.OnSQSPartialBatch("history", history.Ref(), func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		for _, m := range ev.Records {
			log.Printf("item %s: %s", m.Attributes["MessageGroupId"], m.Body)
		}
		return events.SQSEventResponse{}, nil
	})

	// Every change of an item, from the table's stream.
	app.OnDynamoDBRecord("audit", todos.Stream(), func(ctx context.Context, ev events.DynamoDBEvent) error {
		for _, r := range ev.Records {
			log.Printf("%s %v", r.EventName, r.Change.Keys["id"].String())
		}
		return nil
	})

	// Only the "done" events of the topic (a subscription filter policy
	// on the message attribute kind).
	app.OnSNSMessage("notify", topic.Ref(), func(ctx context.Context, ev events.SNSEvent) error {
		for _, r := range ev.Records {
			log.Printf("event %q: %s", r.SNS.Subject, r.SNS.Message)
		}
		return nil
	}, framework.SNSFilter(map[string]any{"kind": []any{"done"}}))

	app.OnS3Event("attachments", files.Ref(), func(ctx context.Context, ev events.S3Event) error {
		for _, r := range ev.Records {
			log.Printf("attachment %s (%d bytes) in %s", r.S3.Object.Key, r.S3.Object.Size, files.Name())
		}
		return nil
	}, framework.S3Filter("attachments/", ""))

	// A URL the browser PUTs the attachment's bytes to, for 15 minutes.
	app.Route("/todos/{id}/attachment", func(r *framework.Request, id string) (Upload, error) {
		u, err := files.PresignPut(r.Context(), "attachments/"+id, 15*time.Minute)
		return Upload{URL: u}, err
	}, framework.Methods("POST"), framework.Name("attach"))
	return app
}

// requireKey answers 401 unless the request's X-Api-Key is the secret's
// value.
func requireKey(apiKey *resource.Secret) framework.Middleware {
	return func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		want, err := apiKey.Value(c.Context())
		if err != nil {
			return nil, err
		}
		if subtle.ConstantTimeCompare([]byte(c.Request.Headers.Get("X-Api-Key")), []byte(want)) != 1 {
			return nil, framework.UnauthorizedError{Message: "send the API key in X-Api-Key"}
		}
		return next(c)
	}
}

func put(ctx context.Context, table string, t Todo) error {
	client, err := db()
	if err != nil {
		return err
	}
	item := map[string]types.AttributeValue{
		"id":    &types.AttributeValueMemberS{Value: t.ID},
		"title": &types.AttributeValueMemberS{Value: t.Title},
		"done":  &types.AttributeValueMemberBOOL{Value: t.Done},
	}
	if t.Owner != "" {
		item["owner"] = &types.AttributeValueMemberS{Value: t.Owner}
	}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

func get(ctx context.Context, table, id string) (Todo, error) {
	client, err := db()
	if err != nil {
		return Todo{}, err
	}
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: id},
	}})
	if err != nil {
		return Todo{}, err
	}
	if out.Item == nil {
		return Todo{}, framework.NotFoundError{Message: fmt.Sprintf("no item %q", id)}
	}
	return todoOf(out.Item), nil
}

func markDone(ctx context.Context, table, topic, history, id string) error {
	cfg, err := awsConfig()
	if err != nil {
		return err
	}
	_, err = dynamodb.NewFromConfig(cfg).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(table),
		Key:                 map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}},
		UpdateExpression:    aws.String("SET done = :t"),
		ConditionExpression: aws.String("attribute_exists(id)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberBOOL{Value: true},
		},
	})
	if err != nil {
		return err
	}
	_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Subject: aws.String("done"), Message: aws.String(id),
		MessageAttributes: map[string]snstypes.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("done")}}})
	if err != nil {
		return err
	}
	_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(history), MessageGroupId: aws.String(id), MessageBody: aws.String("done")})
	return err
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func main() { newApp().Run() }
