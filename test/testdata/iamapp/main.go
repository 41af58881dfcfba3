// Command iamapp is the app of the local IAM check's end-to-end test. Each
// handler makes a call its declarations allow, and one they do not: that
// one is made by reflection (as a generic dispatcher would), which the
// policy scan does not see, so that framework local starts the app (a call
// the scan sees beyond a declaration is a start-up error) and only the
// local check shows, before deploy, that the role would refuse it.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"reflect"
	"strings"
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

// dispatch calls client's method op with input, by reflection, and
// returns its error.
func dispatch(ctx context.Context, client any, op string, input any) error {
	out := reflect.ValueOf(client).MethodByName(op).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(input)})
	err, _ := out[1].Interface().(error)
	return err
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
	resource.NewTopic(app, "events")
	audit := resource.NewTable(app, "audit", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	notes.Allow(resource.Read, "read", "work")
	audit.Allow(resource.Write, "work")

	// What the function's environment holds, for the test to check that
	// each function gets its own resources' variables only, and no
	// address of the emulator behind the IAM check.
	app.Route("/env", func(r *framework.Request) ([]string, error) {
		return os.Environ(), nil
	}, framework.Name("env"))

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
		err = dispatch(r.Context(), dynamodb.NewFromConfig(cfg), "DeleteItem", &dynamodb.DeleteItemInput{TableName: aws.String(notes.Name()), Key: key(id)})
		return outcome(err), nil
	}, framework.Methods("DELETE"), framework.Name("remove"))

	app.OnSQSMessage("work", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) error {
		cfg, err := awsConfig()
		if err != nil {
			return err
		}
		for _, m := range ev.Records {
			if m.Body == "env" {
				b, _ := json.Marshal(os.Environ())
				log.Printf("work: env %s", b)
				continue
			}
			_, err := dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(notes.Name()), Key: key(m.Body)})
			log.Printf("work: get %s: %v", m.Body, outcome(err))
			// work has no access to the topic, so it is not given the
			// topic's variables (as deployed): it names the topic itself,
			// from its own queue's ARN (same account and region).
			topicARN := strings.Replace(strings.Replace(jobs.ARN(), ":sqs:", ":sns:", 1), "-jobs", "-events", 1)
			err = dispatch(ctx, sns.NewFromConfig(cfg), "Publish", &sns.PublishInput{TopicArn: aws.String(topicARN), Message: aws.String(m.Body)})
			log.Printf("work: publish %s: %v", m.Body, outcome(err))
		}
		return nil
	})
	app.Run()
}
