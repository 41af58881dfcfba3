// Command sharedcode shares code between routes in the ways Go allows: a
// closure in a variable, a method value, a closure returned by a
// function. Each route is held to its own declarations.
package main

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

// reader's read serves routes c and d as a method value.
type reader struct{ token *resource.Secret }

func (h *reader) read(r *framework.Request) (string, error) { return h.token.Value(r.Context()) }

// publisher returns a closure publishing to t.
func publisher(t *resource.Topic) func(context.Context) error {
	return func(ctx context.Context) error {
		cfg, err := awsConfig()
		if err != nil {
			return err
		}
		_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(t.ARN()), Message: aws.String("hi")})
		return err
	}
}

func main() {
	app := framework.New("sharedcode")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	jobs.Allow(resource.Send, "a")
	token := resource.NewSecret(app, "token")
	token.Allow("c")
	events := resource.NewTopic(app, "events") // allowed to no one

	// A closure shared by routes a and b: only a may send.
	send := func(ctx context.Context) error {
		cfg, err := awsConfig()
		if err != nil {
			return err
		}
		_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobs.URL()), MessageBody: aws.String("job")})
		return err
	}
	app.Route("/a", func(r *framework.Request) (string, error) { return "sent", send(r.Context()) }, framework.Name("a"))
	app.Route("/b", func(r *framework.Request) (string, error) { return "sent", send(r.Context()) }, framework.Name("b"))

	// A method value, in a variable and as is: only c may read the token.
	h := &reader{token: token}
	read := h.read
	app.Route("/c", read, framework.Name("c"))
	app.Route("/d", h.read, framework.Name("d"))

	// A closure returned by a function, shared by routes x and y, neither
	// of which may publish.
	publish := publisher(events)
	app.Route("/x", func(r *framework.Request) (string, error) { return "published", publish(r.Context()) }, framework.Name("x"))
	app.Route("/y", func(r *framework.Request) (string, error) { return "published", publish(r.Context()) }, framework.Name("y"))

	// A function that shares none of it.
	framework.LambdaFunction(app, "worker", func(ctx context.Context, _ struct{}) (int, error) { return 0, nil })
	app.Run()
}
