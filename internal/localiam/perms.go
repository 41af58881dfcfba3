package localiam

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// Deployed are the policies internal/perms computes for the app's
// functions, with the declared resources' ARNs where the app runs (the
// emulator's, or the deployed stage's): what the proxy checks calls
// against, and what it says when it refuses one.
type Deployed struct {
	pols  *perms.Policies
	m     *manifest.Manifest
	attrs map[string]map[string]string
}

// FromPerms returns the policies pols of the app m, whose declared
// resources have the attributes attrs (by resource, then by attribute:
// localres.Resources.Attrs).
func FromPerms(pols *perms.Policies, m *manifest.Manifest, attrs map[string]map[string]string) *Deployed {
	return &Deployed{pols: pols, m: m, attrs: attrs}
}

func (d *Deployed) attr(name, attr string) (string, bool) {
	if fn, ok := perms.LogGroupOf(name); ok {
		// A function's own log group: no Lambda names it locally, so
		// the pattern of a stage's, /aws/lambda/<app>-<stage>-<function>.
		return "arn:*:logs:*:*:log-group:/aws/lambda/" + d.m.App + "-*-" + fn, attr == manifest.AttrARN
	}
	v := d.attrs[name][attr]
	return v, v != ""
}

// Allows implements Policies with perms.FunctionPolicy.Allows.
func (d *Deployed) Allows(function, action, resource string) (bool, bool) {
	f := d.pols.Function(function)
	if f == nil {
		return false, false
	}
	if action == "" {
		return false, true
	}
	return f.Allows(action, resource, d.attr), true
}

// Env is what Classify needs of the app's resources: the account their
// ARNs name, and the declared secrets' ARNs by name.
func (d *Deployed) Env(region string) Env {
	return EnvOf(d.m, d.attrs, region)
}

// EnvOf is Env for the app m whose declared resources have attrs.
func EnvOf(m *manifest.Manifest, attrs map[string]map[string]string, region string) Env {
	e := Env{Region: region, SecretARNs: map[string]string{}}
	for _, r := range m.Resources {
		a := attrs[r.Name]
		if parts := strings.SplitN(a[manifest.AttrARN], ":", 6); len(parts) == 6 && parts[4] != "" && e.Account == "" {
			e.Account = parts[4]
		}
		if r.Kind == manifest.ResourceSecret && a[manifest.AttrName] != "" && a[manifest.AttrARN] != "" {
			e.SecretARNs[a[manifest.AttrName]] = a[manifest.AttrARN]
		}
	}
	return e
}

// Hint says what would let function make the check it was refused: on a
// declared resource, the Allow to add (the narrowest access that grants
// the action, for the function's handler); otherwise where the policy of
// what the app does not declare comes from.
func (d *Deployed) Hint(function string, ch Check) string {
	if ch.Action == policy.ManageConnections {
		return fmt.Sprintf("a function's role gets %s on the app's WebSocket API when the policy scan finds a call of the connections handle (app.Connections) in its code; with a hand-written policy (autogen_policy false), allow it in %s on the API's connections", ch.Action, names.PolicyFile)
	}
	r, label := d.declared(ch.Resource)
	dlq := false
	if r == nil {
		r, label = d.deadLetterOf(ch.Resource)
		dlq = r != nil
	}
	if r == nil {
		return fmt.Sprintf("it is not a resource the app declares, and the policy scan found no call in the code of function %s that grants it (`framework gen-policy --explain` lists what it found)", function)
	}
	access := perms.LeastAccess(r.Kind, ch.Action)
	if dlq {
		access = ""
		if perms.CoversDeadLetter(ch.Action) {
			access = manifest.AccessRedrive
		}
	}
	if access == "" {
		return fmt.Sprintf("no access declared on %s grants %s: a function is given only the accesses of %v", label, ch.Action, manifest.ResourceKinds[r.Kind].Accesses)
	}
	handler := function
	more := ""
	if f := d.pols.Function(function); f != nil && f.Kind == manifest.KindHTTP && function == "api" {
		if len(f.Handlers) == 1 {
			handler = f.Handlers[0]
		} else {
			handler = "HANDLER"
			more = " with HANDLER the route handler making the call"
			if len(f.Handlers) > 0 {
				more += " (" + strings.Join(f.Handlers, ", ") + ")"
			}
		}
	}
	return fmt.Sprintf("to allow it, declare %s on %s%s", perms.AllowHint(r, access, handler), label, more)
}

// declared is the declared resource whose ARN (or stream's, or whose
// objects' or indexes') resource is, and how to name it.
func (d *Deployed) declared(resource string) (*manifest.Resource, string) {
	for i := range d.m.Resources {
		r := &d.m.Resources[i]
		for _, a := range []string{manifest.AttrARN, manifest.AttrStreamARN} {
			arn := d.attrs[r.Name][a]
			if arn == "" {
				continue
			}
			if resource == arn || strings.HasPrefix(resource, arn+"/") && !slices.Contains([]manifest.ResourceKind{manifest.ResourceSecret, manifest.ResourceQueue, manifest.ResourceTopic}, r.Kind) {
				return r, r.Label()
			}
		}
	}
	return nil, ""
}

// deadLetterOf is the declared queue whose dead-letter queue's ARN is
// resource, and how to name that dead-letter queue.
func (d *Deployed) deadLetterOf(resource string) (*manifest.Resource, string) {
	for i := range d.m.Resources {
		r := &d.m.Resources[i]
		if arn := d.attrs[r.Name][manifest.AttrDLQARN]; arn != "" && arn == resource {
			return r, "the dead-letter queue of " + r.Label()
		}
	}
	return nil, ""
}
