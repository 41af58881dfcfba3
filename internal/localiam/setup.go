package localiam

import (
	"context"
	"errors"
	"os"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// Where says where an app run locally has its resources and how its
// functions' policies are computed.
type Where struct {
	// Endpoint is the emulator's URL (--aws-endpoint); "" for the
	// deployed stage's account, with Profile and Region.
	Endpoint, Profile, Region string
	// Policies computes the policies the functions' deployed roles will
	// have for the app's manifest (a *perms.CeilingError comes with the
	// policies); nil leaves the calls unchecked.
	Policies func(ctx context.Context, m *manifest.Manifest) (*perms.Policies, error)
	// WebSocket is the app's local WebSocket API (nil: none runs).
	WebSocket *WebSocket
}

// TargetFor is the proxy's target for the app m whose declared resources
// are res: the emulator or AWS, the credentials res's client signs with,
// and the policies w computes. The errors say what is not checked, or a
// call beyond a declaration (perms.CeilingError) that will be refused.
func TargetFor(ctx context.Context, w Where, m *manifest.Manifest, res *localres.Resources) (Target, error) {
	t := Target{Upstream: w.Endpoint}
	var problems []error
	var client *localres.Client
	if res != nil {
		client = res.Client
	}
	if client == nil {
		// An app that makes no AWS call needs no credentials: a missing
		// one is said when a call is made.
		var err error
		if client, err = localres.NewClient(ctx, localres.Options{Endpoint: w.Endpoint, Profile: w.Profile, Region: w.Region}); err != nil {
			t.Region = w.Region
			t.Credentials = func(context.Context) (awscall.Credentials, error) { return awscall.Credentials{}, err }
		}
	}
	if client != nil {
		t.Region, t.Credentials = client.Region(), client.Credentials
	}
	if w.Endpoint == "" {
		// The deployed stage is where the CLI's own calls go: AWS, or
		// the endpoints its environment or profile names.
		if client != nil {
			t.Upstream = client.BaseEndpoint()
		}
		t.Endpoints = ServiceEndpoints(os.Environ())
	}
	var attrs map[string]map[string]string
	if res != nil {
		attrs = res.Attrs
	}
	t.Env = EnvOf(m, attrs, t.Region)
	attrs = withWebSocket(&t, attrs, w.WebSocket)
	if w.Policies == nil {
		err := errors.Join(append(problems, errors.New("no policies to check the calls against"))...)
		t.NoPolicies = err.Error()
		return t, err
	}
	pols, err := w.Policies(ctx, m)
	if err != nil {
		problems = append(problems, err)
	}
	if pols != nil {
		d := FromPerms(pols, m, attrs)
		t.Policies, t.Hint = d, d.Hint
	} else {
		t.NoPolicies = "there are no policies to check them against"
		if err := errors.Join(problems...); err != nil {
			t.NoPolicies += ": " + err.Error()
		}
	}
	return t, errors.Join(problems...)
}

// Problem is the line that says what TargetFor's error means for the
// calls: "" for none.
func Problem(t Target, err error) string {
	switch {
	case err == nil:
		return ""
	case t.Policies == nil:
		return "IAM: the functions' AWS calls are refused, as there are no policies to check them against: " + err.Error() +
			" (the check fails closed; --no-iam-check lets every call through unchecked)"
	}
	return "IAM: " + err.Error()
}
