package constructs_test

import (
	"log"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/constructs"
)

// Embedding an app in a CDK app of your own: a table of the host stack,
// which the app's API function may read and write and whose name it gets
// in its environment. (This example only compiles: synthesis runs the
// CDK through Node.js, too slow for go test.)
func Example() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Shop"), nil)
	table := awsdynamodb.NewTable(stack, jsii.String("Orders"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("id"), Type: awsdynamodb.AttributeType_STRING},
	})

	api, err := constructs.NewApp(stack, "Shop", &constructs.AppProps{ProjectDir: "./shop", Stage: "prod", Progress: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	table.GrantReadWriteData(api.Function)
	api.Function.AddEnvironment(jsii.String("ORDERS_TABLE"), table.TableName(), nil)
	awscdk.NewCfnOutput(stack, jsii.String("URL"), &awscdk.CfnOutputProps{Value: api.EndpointURL()})
	app.Synth(nil)
}
