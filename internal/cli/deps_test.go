package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCLILinksNeitherTheCDKNorTheTypeChecker: what a new user compiles
// before `framework local` serves is the CLI; the AWS CDK's bindings and
// the Go type checker behind the policy scan (golang.org/x/tools, go/types)
// are the synthesis engine's, built only when synth, diff, deploy or
// gen-policy first need it.
func TestCLILinksNeitherTheCDKNorTheTypeChecker(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cli/framework").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cli/framework: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/aws/aws-cdk-go/") || strings.HasPrefix(p, "github.com/aws/jsii-runtime-go") ||
			strings.HasPrefix(p, "golang.org/x/tools/") || p == "go/types" {
			t.Errorf("the CLI links %s", p)
		}
	}
}
