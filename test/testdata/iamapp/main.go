// Command iamapp is the app of the local IAM check's end-to-end test. Each
// handler makes a call its declarations allow, and one they do not: that
// one goes through an interface of the app's own (as a store kept
// swappable for tests would), which the policy scan does not follow, so
// only the local check shows, before deploy, that the role would refuse
// it.
package main

import (
	"context"
	"log"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

// deleter and publisher are the app's seams for tests.
type deleter interface {
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

type publisher interface {
	Publish(context.Context, *sns.PublishInput, ...func(*sns.Options)) (*sns.PublishOutput, error)
}

func key(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}
}

// outcome is what a route answers: the call's error, if any.
func outcome(err error) map[string]any {
	if err != nil {
		return map[string]any{"ok": false, "error": err.Error()}
	}
	return map[string]any{"ok": true}
}

func main() {
	app := framework.New("iamapp")
	notes := resource.NewTable(app, "notes", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	topic := resource.NewTopic(app, "events")
	notes.Allow(resource.Read, "read", "work")

	app.Route("/notes/{id}", func(r *framework.Request, id string) (map[string]any, error) {
		cfg, err := awsConfig()
		if err != nil {
			return nil, err
		}
		_, err = dynamodb.NewFromConfig(cfg).GetItem(r.Context(), &dynamodb.GetItemInput{TableName: aws.String(notes.Name()), Key: key(id)})
		return outcome(err), nil
	}, framework.Name("read"))

	app.Route("/notes/{id}", func(r *framework.Request, id string) (map[string]any, error) {
		cfg, err := awsConfig()
		if err != nil {
			return nil, err
		}
		var d deleter = dynamodb.NewFromConfig(cfg)
		_, err = d.DeleteItem(r.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(notes.Name()), Key: key(id)})
		return outcome(err), nil
	}, framework.Methods("DELETE"), framework.Name("remove"))

	app.OnSQSMessage("work", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) error {
		cfg, err := awsConfig()
		if err != nil {
			return err
		}
		for _, m := range ev.Records {
			_, err := dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(notes.Name()), Key: key(m.Body)})
			log.Printf("work: get %s: %v", m.Body, outcome(err))
			var p publisher = sns.NewFromConfig(cfg)
			_, err = p.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic.ARN()), Message: aws.String(m.Body)})
			log.Printf("work: publish %s: %v", m.Body, outcome(err))
		}
		return nil
	})
	app.Run()
}
