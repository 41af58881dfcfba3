package local

import (
	"context"
	"errors"
	"slices"

	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/localinvoke"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// iamState is the local IAM check of a session (see internal/localiam):
// one proxy, whose target follows the builds.
type iamState struct {
	proxy  *localiam.Proxy
	notice string // the last problem reported, not repeated
}

// NoIAMCheckWarning is the one line `--no-iam-check` prints.
const NoIAMCheckWarning = localinvoke.NoIAMCheckWarning

// startIAM starts the proxy, or says once that the check is off.
func (s *supervisor) startIAM() error {
	if s.o.NoIAMCheck {
		s.event("iam_check_off", map[string]any{"warning": NoIAMCheckWarning}, "%s", NoIAMCheckWarning)
		return nil
	}
	p, err := localiam.Start(localiam.Options{
		Denied: func(d localiam.Denied) {
			s.event("iam_denied", map[string]any{"function": d.Function, "action": d.Action, "resource": d.Resource, "allow": d.Hint}, "%s", d.Line())
		},
		Unauthenticated: func(u localiam.Unauthenticated) {
			s.event("iam_unauthenticated", map[string]any{"function": u.Function, "key": u.KeyID, "service": u.Service, "why": u.Why}, "%s", u.Line())
		},
		Unmodeled: func(fn string, u *localiam.Unmodeled) {
			s.event("iam_unmodeled", map[string]any{"function": fn, "service": u.Service, "operation": u.Operation, "why": u.Why}, "%s", localiam.UnmodeledLine(fn, u))
		},
		NoPolicy: func(fn, why string) {
			s.event("iam_no_policy", map[string]any{"function": fn, "why": why}, "%s", localiam.NoPolicyLine(fn, why))
		},
	})
	if err != nil {
		return err
	}
	s.iam.proxy = p
	return nil
}

// updateIAM points the proxy at the resources res of the build whose
// manifest is m, and checks the calls against the policies its functions'
// deployed roles will have: those the build's scan made (checkPerms), or
// the stage's hand-written policy.
func (s *supervisor) updateIAM(ctx context.Context, m *manifest.Manifest, res *localres.Resources) {
	if s.iam.proxy == nil {
		return
	}
	pols := func(context.Context, *manifest.Manifest) (*perms.Policies, error) {
		if s.perms != nil && s.scanned {
			return s.perms, nil
		}
		var why error
		if s.scanned {
			why = errNotScanned
		}
		return localiam.PoliciesOf(s.dir, s.o.Stage, m, nil, why)
	}
	t, err := localiam.TargetFor(ctx, localiam.Where{Endpoint: s.o.Endpoint, Profile: s.o.Profile, Region: s.o.Region, Policies: pols, WebSocket: s.wsIAM()}, m, res)
	if ctx.Err() != nil {
		return
	}
	s.iam.proxy.SetTarget(t)
	if msg := localiam.Problem(t, err); msg != s.iam.notice {
		s.iam.notice = msg
		// That the code was not scanned is said once already
		// (permission_check_skipped), for both checks.
		if msg != "" && !(s.noScanSaid && onlyNotScanned(err)) {
			s.event("iam_problem", map[string]any{"error": msg}, "%s", msg)
		}
	}
}

// iamEnv is what the process of function gets for its AWS calls to be
// checked: the proxy as the endpoint of every service (also those the
// user's environment names), the function's own credentials, and where
// the resources are behind the proxy, without their address
// (localres.ProxyEndpoints): no variable names the emulator, whose URL
// would take the calls past the check.
func (s *supervisor) iamEnv(function string) []string {
	if s.iam.proxy == nil {
		return nil
	}
	return slices.Concat(localres.ProxyEndpoints(s.env, s.iam.proxy.URL, s.o.Endpoint), s.iam.proxy.Environ(function))
}

// errNotScanned is why the calls go unchecked when the code could not be
// scanned (ErrNoScan): the start-up line permission_check_skipped says so.
var errNotScanned = errors.New("the app's code has not been scanned for its AWS calls (see the line above)")

// onlyNotScanned reports whether err, TargetFor's joined problems, is
// errNotScanned alone.
func onlyNotScanned(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		return len(errs) == 1 && errors.Is(errs[0], errNotScanned)
	}
	return errors.Is(err, errNotScanned)
}
