// Command cdk-embed is an ordinary AWS CDK app with a stack of its own that
// embeds the framework's construct: a DynamoDB table, and the kitchensink
// example app (REST API, function, role) whose function may read and write
// the table and finds its name in the ORDERS_TABLE environment variable.
//
// The official CDK CLI runs it through cdk.json at the repository root:
//
//	cdk synth        # from the repository root
//
// KITCHENSINK_DIR overrides where the kitchensink project is
// (default examples/kitchensink under the current directory).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/constructs"
)

// StackName is the name of the example's stack.
const StackName = "KitchensinkEmbed"

// TableEnv is the environment variable that carries the table's name to the function.
const TableEnv = "ORDERS_TABLE"

func main() {
	defer jsii.Close()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cdk-embed:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := os.Getenv("KITCHENSINK_DIR")
	if dir == "" {
		dir = filepath.Join("examples", "kitchensink")
	}
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String(StackName), &awscdk.StackProps{
		Description: jsii.String("An existing CDK app: a table, and the kitchensink API embedded with the framework's construct"),
	})

	table := awsdynamodb.NewTable(stack, jsii.String("Orders"), &awsdynamodb.TableProps{
		PartitionKey:  &awsdynamodb.Attribute{Name: jsii.String("id"), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:   awsdynamodb.BillingMode_PAY_PER_REQUEST,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})

	api, err := constructs.NewApp(stack, "Kitchensink", &constructs.AppProps{
		ProjectDir: dir,
		Stage:      "dev",
		Progress:   os.Stderr,
	})
	if err != nil {
		return err
	}
	table.GrantReadWriteData(api.Function)
	api.Function.AddEnvironment(jsii.String(TableEnv), table.TableName(), nil)

	// The REST API adds its own Endpoint output (its URL).
	awscdk.NewCfnOutput(stack, jsii.String("TableName"), &awscdk.CfnOutputProps{Value: table.TableName()})
	app.Synth(nil)
	return nil
}
