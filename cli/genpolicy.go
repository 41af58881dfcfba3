package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/framework-dev/framework/internal/policy"
)

// GenPolicyCmd prints the IAM policy generated from the AWS SDK for Go v2
// calls in the app's source: the CloudWatch Logs actions plus one action per
// SDK operation the app's module calls, on every resource. It is the policy
// deploy gives the function's role unless --no-autogen-policy is set.
type GenPolicyCmd struct {
	Explain bool `help:"Instead of the policy, list each IAM action with the source position and SDK operation that needs it."`
}

// Run scans the app in the project directory and prints its policy as JSON.
func (c *GenPolicyCmd) Run(g *Globals, env *Env) error {
	stdout := env.Stdout
	rep, err := policy.Scan(g.ProjectDir)
	if err != nil {
		return fmt.Errorf("gen-policy: %w", err)
	}
	if c.Explain {
		return explainPolicy(stdout, rep)
	}
	b, err := policy.FromCalls(rep.Calls).Marshal()
	if err != nil {
		return fmt.Errorf("gen-policy: %w", err)
	}
	_, err = stdout.Write(b)
	return err
}

// explainPolicy writes one line per action and use:
// "s3:ListBucket  blob/blob.go:15:10  s3.ListObjectsV2 (paginator)".
func explainPolicy(w io.Writer, rep *policy.Report) error {
	var b strings.Builder
	for _, a := range policy.LoggingActions {
		fmt.Fprintf(&b, "%s\t(always: the function writes its logs)\n", a)
	}
	for _, call := range rep.Calls {
		svc := call.Package[strings.LastIndexByte(call.Package, '/')+1:]
		for _, a := range call.Actions {
			fmt.Fprintf(&b, "%s\t%s\t%s.%s (%s)\n", a, call.Pos, svc, call.Operation, call.Via)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
