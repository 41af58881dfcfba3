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
	JSON    bool `name:"json" help:"With --explain, print the list as one JSON array of {action, position, service, operation, via} (position empty for the logging actions every function needs). The policy itself is JSON already."`
}

// Run scans the app in the project directory and prints its policy as JSON.
func (c *GenPolicyCmd) Run(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	stdout := env.Stdout
	ctx, stop := env.Context()
	defer stop()
	// The policy is stdout: the progress line goes to stderr. Type-checking
	// the source compiles what Go's build cache lacks, as a build does.
	fmt.Fprintln(env.Stderr, build.StartLine("the app"))
	rep, err := synthEngine().Scan(ctx, g.ProjectDir, env.Stderr)
	if err != nil {
		return interruptedWhile(ctx, "scanning the app", "no policy was printed", fmt.Errorf("gen-policy: %w", err))
	}
	if c.Explain && c.JSON {
		return writeJSONLine(stdout, explanation(rep))
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
			return interruptedWhile(ctx, "building the app", "no policy was printed", fmt.Errorf("gen-policy: %w", err))
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
	for _, u := range explanation(rep) {
		if u.Position == "" {
			fmt.Fprintf(&b, "%s\t(%s)\n", u.Action, u.Via)
		} else {
			fmt.Fprintf(&b, "%s\t%s\t%s.%s (%s)\n", u.Action, u.Position, u.Service, u.Operation, u.Via)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// actionUse is one action and one use of it, for gen-policy --explain --json.
type actionUse struct {
	Action    string `json:"action"`
	Position  string `json:"position"`
	Service   string `json:"service,omitempty"`
	Operation string `json:"operation,omitempty"`
	Via       string `json:"via"`
}

// explanation lists what explainPolicy prints, as values.
func explanation(rep *policy.Report) []actionUse {
	uses := []actionUse{}
	for _, a := range policy.LoggingActions {
		uses = append(uses, actionUse{Action: a, Via: "always: the function writes its logs"})
	}
	for _, call := range rep.Calls {
		svc := call.Package[strings.LastIndexByte(call.Package, '/')+1:]
		for _, a := range call.Actions {
			uses = append(uses, actionUse{Action: a, Position: call.Pos, Service: svc, Operation: call.Operation, Via: call.Via})
		}
	}
	return uses
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
