package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCLILinksNotTheCDK: what a new user compiles before `framework local`
// serves is the CLI; the AWS CDK's bindings are the synthesis engine's,
// built only when synth, diff or deploy first need it. The policy scan
// (golang.org/x/tools, go/types) is the CLI's own: `framework local`
// checks the calls with it from the first run (see package scan).
func TestCLILinksNotTheCDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cli/framework").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cli/framework: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/aws/aws-cdk-go/") || strings.HasPrefix(p, "github.com/aws/jsii-runtime-go") {
			t.Errorf("the CLI links %s", p)
		}
	}
}
