package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/policy"
)

// GenPolicyCmd prints the IAM policy generated from the AWS SDK for Go v2
// calls in the app's source: the CloudWatch Logs actions plus one action per
// SDK operation the app's module calls, on every resource, except that the
// calls of a service whose resources the app declares are granted on those
// (policy.Narrow: "${resource:NAME}" stands for a declared resource's ARN);
// the actions that keep "*" nonetheless are listed on stderr. It is the
// policy deploy gives the function's role unless --no-autogen-policy is set.
// The scan of the source runs in the synthesis engine, which holds the Go
// type checker it needs: the first gen-policy builds the engine when
// synth, diff or deploy have not yet, saying so on stderr.
type GenPolicyCmd struct {
	Explain bool `help:"Instead of the policy, list each IAM action with the source position and SDK operation that needs it."`
}

// Run scans the app in the project directory and prints its policy as JSON.
func (c *GenPolicyCmd) Run(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	stdout := env.Stdout
	ctx, stop := env.Context()
	defer stop()
	rep, err := synthEngine().Scan(ctx, g.ProjectDir, env.Stderr)
	if err != nil {
		return interrupted(ctx, fmt.Errorf("gen-policy: %w", err))
	}
	if c.Explain {
		return explainPolicy(stdout, rep)
	}
	doc := policy.FromCalls(rep.Calls)
	if rep.UsesFramework {
		// The declared resources narrow the calls that target them, as
		// deploy does: the route manifest says which they are.
		m, err := build.Manifest(ctx, g.ProjectDir)
		if err != nil {
			return fmt.Errorf("gen-policy: %w", err)
		}
		var unscoped []policy.Unscoped
		doc, unscoped = policy.Narrow(rep.Calls, m)
		writeUnscoped(env.Stderr, unscoped)
	}
	b, err := doc.Marshal()
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

// writeUnscoped lists, one line each, the actions that keep Resource "*"
// although the app declares resources of their service.
func writeUnscoped(w io.Writer, unscoped []policy.Unscoped) {
	if len(unscoped) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("These actions keep \"Resource\": \"*\" although the app declares resources of their service (the target is not known to be one of them):\n")
	for _, u := range unscoped {
		fmt.Fprintf(&b, "  %s: %s\n", u.Action, u.Why)
	}
	io.WriteString(w, b.String())
}
