package localiam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// PoliciesOf computes the policies the deployed roles of app m, the
// project in dir, will have in stage, as synth computes them: from the
// hand-written .framework/policy.json when the stage has autogen_policy
// false, else from the policy scan's report rep (nil when the code was not
// scanned, scanErr saying why). A stage with manage_role false runs with a
// role framework does not know: an error says so. A call beyond a
// declaration is a *perms.CeilingError, with the policies.
func PoliciesOf(dir, stage string, m *manifest.Manifest, rep *policy.Report, scanErr error) (*perms.Policies, error) {
	if stage == "" {
		stage = names.DefaultStage
	}
	in := perms.Input{Manifest: m}
	autogen := config.DefaultAutogenPolicy
	f, err := config.Load(dir)
	switch {
	case err == nil:
		st, err := f.Stage(stage)
		if err != nil {
			return nil, err
		}
		if !st.ManageRole {
			return nil, fmt.Errorf("stage %s runs with role %s (manage_role false), whose policy framework does not know", stage, st.RoleID)
		}
		autogen, in.XRay = st.AutogenPolicy, st.XRay
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	switch {
	case !autogen:
		doc, err := policy.Load(filepath.Join(dir, names.PolicyFile))
		if err != nil {
			return nil, err
		}
		in.HandWritten = doc
	case rep == nil && scanErr == nil:
		return nil, errors.New("the app's code was not scanned for its AWS calls")
	case rep == nil:
		return nil, scanErr
	default:
		in.Calls = rep.Calls
	}
	return perms.Compute(in)
}

// CeilingRefusal returns the error that refuses to run an app whose code
// goes beyond what it declares, err being what PoliciesOf or
// perms.Compute returned: nil when err holds no *perms.CeilingError. It
// says what framework local says at start-up, and invoke --local before
// running the handler: each call, its file:line and the Allow to add.
func CeilingRefusal(err error) error {
	var ce *perms.CeilingError
	if !errors.As(err, &ce) {
		return nil
	}
	return fmt.Errorf("the app's code goes beyond what it declares:\n%w\n(framework synth and deploy refuse the app for the same reason)", err)
}
