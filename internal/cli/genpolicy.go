package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/policy/scan"
)

// GenPolicyCmd prints the IAM policy generated from the AWS SDK for Go v2
// calls in the app's source: the CloudWatch Logs actions plus one action per
// SDK operation the app's module calls, on every resource, except that the
// calls of a service whose resources the app declares are granted on those
// (policy.Narrow: "${resource:NAME}" stands for a declared resource's ARN);
// the actions that keep "*" nonetheless are listed on stderr. It is all the
// functions' calls together, what deploy writes to .framework/policy.json;
// stderr then says what each function's role holds (perms.Compute), with
// a warning for each call granted on "*" (as synth's). With --explain it
// prints each function's own policy, which its role holds, and why. The scan of the source (package scan)
// runs in the CLI: gen-policy needs neither the synthesis engine nor
// Node.js.
type GenPolicyCmd struct {
	Explain bool `help:"Instead of the policy, print each function's policy (the API's, each event handler's, plain function's and app authorizer's: one role each), with the reasons for each statement: a declaration, a trigger, a call found in the code (file:line), logging."`
	JSON    bool `name:"json" help:"With --explain, print the functions' policies as one JSON object {functions: [{function, kind, handlers, resources, statements: [{sid, effect, actions, resources, reasons: [{kind, pos, resource, access, call, detail}]}]}], undeclared: [{pos, call, action, resource, functions, why, declare}]}. The policy itself is JSON already."`
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
	rep, err := scan.ScanContext(ctx, g.ProjectDir)
	if err != nil {
		return interruptedWhile(ctx, "scanning the app", "no policy was printed", fmt.Errorf("gen-policy: %w", err))
	}
	var m *manifest.Manifest
	if rep.UsesFramework {
		// The declared resources narrow the calls that target them, as
		// deploy does: the route manifest says which they are.
		if m, err = build.Manifest(ctx, g.ProjectDir); err != nil {
			return interruptedWhile(ctx, "building the app", "no policy was printed", fmt.Errorf("gen-policy: %w", err))
		}
	}
	if c.Explain {
		p, cerr := perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls})
		if c.JSON {
			err = writeJSONLine(stdout, p)
		} else {
			_, err = io.WriteString(stdout, explainPolicies(p, m, true))
		}
		if err == nil && cerr != nil {
			err = fmt.Errorf("gen-policy: the app's code goes beyond what it declares (framework synth refuses it):\n%w", cerr)
		}
		return err
	}
	doc := policy.FromCalls(rep.Calls)
	if m != nil {
		var unscoped []policy.Unscoped
		doc, unscoped = policy.Narrow(rep.Calls, m)
		writeUnscoped(env.Stderr, unscoped)
	}
	b, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("gen-policy: %w", err)
	}
	if _, err = stdout.Write(b); err != nil || m == nil {
		return err
	}
	// The document is every function's calls together; each role holds
	// its own function's part, with its declared accesses and logging:
	// say what, and warn of each grant on "*".
	p, _ := perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls})
	io.WriteString(env.Stderr, "What each function's role gets (`framework gen-policy --explain` says why):\n"+explainPolicies(p, m, false))
	writeUndeclared(env.Stderr, p.Undeclared)
	return nil
}

// explainPolicies writes each function's policy, one statement a line
// and one reason a line below it:
//
//	function notify (sns)
//	  Allow sns:Publish on topic "events"
//	    declaration publish "events" (handler "notify")
//	    scan sns.Publish at main.go:42
//
// Without reasons, the statements alone.
func explainPolicies(p *perms.Policies, m *manifest.Manifest, reasons bool) string {
	if m == nil {
		m = &manifest.Manifest{}
	}
	var b strings.Builder
	for i, f := range p.Functions {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "function %s (%s)", f.Function, f.Kind)
		if len(f.Handlers) > 0 {
			fmt.Fprintf(&b, ": routes %s", strings.Join(f.Handlers, ", "))
		}
		b.WriteString("\n")
		for _, s := range f.Statements {
			var res []string
			for _, r := range s.Resources {
				res = append(res, r.Label(m))
			}
			fmt.Fprintf(&b, "  %s %s on %s\n", s.Effect, strings.Join(s.Actions, ", "), strings.Join(res, ", "))
			if !reasons {
				continue
			}
			for _, r := range s.Reasons {
				fmt.Fprintf(&b, "    %s\n", r)
			}
		}
	}
	return b.String()
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
