package constructs

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/jsiitest"
	"github.com/framework-dev/framework/internal/testutil"
)

func TestMain(m *testing.M) { jsiitest.Main(m) }

// hostStack returns a CDK app that synthesizes into a temporary directory
// and its stack Host, for a test to embed the construct in; synth
// synthesizes the app and decodes Host's template into tpl, returning the
// template's bytes.
func hostStack(t *testing.T) (stack awscdk.Stack, synth func(tpl any) []byte) {
	t.Helper()
	out := t.TempDir()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), AnalyticsReporting: jsii.Bool(false)})
	stack = awscdk.NewStack(app, jsii.String("Host"), nil)
	return stack, func(tpl any) []byte {
		t.Helper()
		app.Synth(nil)
		return testutil.ReadJSON(t, filepath.Join(out, "Host.template.json"), tpl)
	}
}
