package constructs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestEmbeddedResources: a CDK app embedding the construct reaches the
// app's declared resources as L2 constructs: it grants its own role read
// access to the table, subscribes its own queue to the topic and reads
// the queue's URL.
func TestEmbeddedResources(t *testing.T) {
	zip := filepath.Join(t.TempDir(), "function.zip")
	if err := os.WriteFile(zip, []byte("stand-in package"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, App: "todo",
		Routes: []manifest.Route{{Path: "/", Methods: []string{"GET"}, Handler: "index", ContentTypes: []string{"application/json"}}},
		Resources: []manifest.Resource{
			{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}},
			{Name: "jobs", Kind: manifest.ResourceQueue},
			{Name: "news", Kind: manifest.ResourceTopic},
		}}
	stack, synth := hostStack(t)
	a, err := NewApp(stack, "Todo", &AppProps{Manifest: m, PackageZip: zip})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Resources) != 3 || a.Resources["todos"].Table == nil || a.Resources["jobs"].Queue == nil || a.Resources["news"].Topic == nil {
		t.Fatalf("App.Resources = %v, want the table, queue and topic", a.Resources)
	}
	reader := awsiam.NewRole(stack, jsii.String("Reader"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("ec2.amazonaws.com"), nil)})
	a.Resources["todos"].Table.GrantReadData(reader)
	inbox := awssqs.NewQueue(stack, jsii.String("Inbox"), nil)
	awssns.NewSubscription(stack, jsii.String("InboxNews"), &awssns.SubscriptionProps{
		Topic: a.Resources["news"].Topic, Endpoint: inbox.QueueArn(), Protocol: awssns.SubscriptionProtocol_SQS,
	})
	awscdk.NewCfnOutput(stack, jsii.String("JobsURL"), &awscdk.CfnOutputProps{Value: a.Resources["jobs"].Queue.QueueUrl()})
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
		Outputs map[string]struct{ Value any }
	}
	raw := synth(&tpl)
	var granted, subscribed bool
	for id, r := range tpl.Resources {
		p := fmt.Sprint(r.Properties)
		switch {
		case r.Type == "AWS::IAM::Policy" && strings.HasPrefix(id, "ReaderDefaultPolicy"):
			granted = strings.Contains(p, "dynamodb:GetItem") && strings.Contains(p, "TodoResTodos")
		case r.Type == "AWS::SNS::Subscription" && strings.HasPrefix(id, "InboxNews"):
			subscribed = strings.Contains(p, "TodoResNews")
		}
	}
	if !granted || !subscribed {
		t.Errorf("host grant on the table %v, host subscription to the topic %v:\n%s", granted, subscribed, raw)
	}
	if v := fmt.Sprint(tpl.Outputs["JobsURL"].Value); !strings.Contains(v, "TodoResJobs") {
		t.Errorf("JobsURL output %s, want the declared queue's URL", v)
	}
}
