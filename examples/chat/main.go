// Command chat is a chat room over a WebSocket API: a client connects
// with ?name=, its connection is kept in a declared DynamoDB table, and a
// message ({"action":"sendmessage","text":"..."}) or a POST /broadcast
// reaches every connected client through the connections handle.
package main

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

// Say is a client's message, routed by its action.
type Say struct {
	Action string `json:"action"`
	Text   string `json:"text"`
}

// Post is the body of POST /broadcast.
type Post struct {
	Text string `json:"text"`
}

// Line is what every client receives.
type Line struct {
	From string `json:"from"`
	Text string `json:"text"`
}

// Sent is the answer of POST /broadcast: how many clients got the line.
type Sent struct {
	Sent int `json:"sent"`
}

// awsConfig is the AWS SDK's configuration, loaded on first use.
var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

func db() (*dynamodb.Client, error) {
	cfg, err := awsConfig()
	return dynamodb.NewFromConfig(cfg), err
}

func newApp() *framework.App {
	app := framework.New("chat")
	room := resource.NewTable(app, "connections", resource.TableSpec{
		PartitionKey: resource.Key{Name: "id", Type: resource.String},
	})
	room.Allow(resource.Write, "connect", "disconnect")
	room.Allow(resource.ReadWrite, "say", "broadcast")
	conns := app.Connections()

	app.OnWebSocketConnect("connect", func(ctx context.Context, r *framework.WebSocketRequest) error {
		name := strings.TrimSpace(r.QueryParams.Get("name"))
		if name == "" {
			return framework.BadRequestError{Message: "connect with ?name=YOUR_NAME"}
		}
		client, err := db()
		if err != nil {
			return err
		}
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(room.Name()), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: r.ConnectionID}, "name": &types.AttributeValueMemberS{Value: name},
		}})
		return err
	})

	app.OnWebSocketDisconnect("disconnect", func(ctx context.Context, r *framework.WebSocketRequest) error {
		return forget(ctx, room.Name(), r.ConnectionID)
	})

	framework.WebSocketRoute(app, "say", "sendmessage", func(ctx context.Context, r *framework.WebSocketRequest, m Say) error {
		_, err := broadcast(ctx, conns, room.Name(), Line{From: r.ConnectionID, Text: m.Text})
		return err
	})

	app.Route("/broadcast", func(r *framework.Request, p Post) (Sent, error) {
		if strings.TrimSpace(p.Text) == "" {
			return Sent{}, framework.BadRequestError{Message: "give the line a text"}
		}
		n, err := broadcast(r.Context(), conns, room.Name(), Line{From: "server", Text: p.Text})
		return Sent{Sent: n}, err
	}, framework.Methods("POST"), framework.Name("broadcast"), framework.WithCORS(framework.CORSConfig{AllowOrigin: "*"}))
	return app
}

// broadcast sends line to every connection of the room, forgets those
// that are gone, and returns how many got it.
func broadcast(ctx context.Context, conns *framework.Connections, table string, line Line) (int, error) {
	client, err := db()
	if err != nil {
		return 0, err
	}
	out, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, item := range out.Items {
		id, _ := item["id"].(*types.AttributeValueMemberS)
		if id == nil {
			continue
		}
		err := conns.SendJSON(ctx, id.Value, line)
		switch {
		case errors.Is(err, framework.ErrConnectionGone):
			if err := forget(ctx, table, id.Value); err != nil {
				return sent, err
			}
		case err != nil:
			return sent, err
		default:
			sent++
		}
	}
	return sent, nil
}

func forget(ctx context.Context, table, id string) error {
	client, err := db()
	if err != nil {
		return err
	}
	_, err = client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: id},
	}})
	return err
}

func main() { newApp().Run() }
