package frameworktest_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/mototest"
)

// todoApp declares a table and a secret; its route writes an item to the
// table with the AWS SDK's default configuration, as an app does, and
// answers with the secret's value.
func todoApp() (*framework.App, *resource.Table) {
	app := framework.New("todo")
	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	greeting := resource.NewSecret(app, "greeting")
	todos.Allow(resource.ReadWrite)
	greeting.Allow()
	app.Route("/todos/{id}", func(r *framework.Request, id string) (any, error) {
		cfg, err := config.LoadDefaultConfig(r.Context())
		if err != nil {
			return nil, err
		}
		_, err = dynamodb.NewFromConfig(cfg).PutItem(r.Context(), &dynamodb.PutItemInput{TableName: aws.String(todos.Name()),
			Item: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}}})
		if err != nil {
			return nil, err
		}
		v, err := greeting.Value(r.Context())
		return map[string]string{"id": id, "greeting": v}, err
	}, framework.Methods("POST"))
	return app, todos
}

// UseEmulatorAt creates the declared table and secret at the emulator
// (moto) and points the app's resource handles and AWS SDK there; the
// resources are gone when the test ends.
func TestUseEmulatorAt(t *testing.T) {
	moto := mototest.Start(t)
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_PROFILE", "framework-no-such-profile") // the developer's configuration plays no part
	var table string
	t.Run("test", func(t *testing.T) {
		app, todos := todoApp()
		emu := frameworktest.UseEmulatorAt(t, app, moto.URL)
		emu.SetSecret(t, "greeting", "hello")
		table = emu.Name("todos")
		if table == "" || todos.Name() != table {
			t.Fatalf("the table's name is %q, its handle says %q", table, todos.Name())
		}
		resp := frameworktest.New(app).Do("POST", "/todos/42", nil, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(resp.Body), `"greeting":"hello"`) {
			t.Fatalf("POST /todos/42: %d %s, want 200 with the secret's value", resp.StatusCode, resp.Body)
		}
		out, err := dynamodb.NewFromConfig(moto.Config()).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
			Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: "42"}}})
		if err != nil || out.Item == nil {
			t.Fatalf("item 42 is not in the emulator's table %s: %v", table, err)
		}
	})
	if os.Getenv("AWS_ENDPOINT_URL") != "" {
		t.Errorf("AWS_ENDPOINT_URL is still %q after the test", os.Getenv("AWS_ENDPOINT_URL"))
	}
	if _, err := dynamodb.NewFromConfig(moto.Config()).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)}); err == nil {
		t.Errorf("table %s is still at the emulator after the test", table)
	}
}

// Without FRAMEWORK_TEST_AWS_ENDPOINT, UseEmulator skips the test and says
// what to set.
func TestUseEmulatorSkipsWithoutEndpoint(t *testing.T) {
	if os.Getenv("FRAMEWORKTEST_CHILD") == "1" {
		app, _ := todoApp()
		frameworktest.UseEmulator(t, app)
		t.Fatal("UseEmulator returned without an endpoint")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUseEmulatorSkipsWithoutEndpoint$", "-test.v")
	cmd.Env = append(os.Environ(), "FRAMEWORKTEST_CHILD=1", frameworktest.EndpointEnv+"=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	for _, want := range []string{"--- SKIP", frameworktest.EndpointEnv + " is not set", "python3 -m moto.server"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
