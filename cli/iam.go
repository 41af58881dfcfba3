package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/manifest"
)

// deployedPolicies is how `framework local` and `invoke --local` learn
// what each function's deployed role will allow, for the local IAM check:
// the stage's settings (a role framework does not manage is not known; a
// hand-written policy with autogen_policy false), the policy scan run in
// the synthesis engine (built first when missing, saying so on progress),
// and perms.Compute, as synth computes the roles.
func deployedPolicies(dir, stage string, progress io.Writer) func(context.Context, *manifest.Manifest) (*perms.Policies, error) {
	if stage == "" {
		stage = names.DefaultStage
	}
	return func(ctx context.Context, m *manifest.Manifest) (*perms.Policies, error) {
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
		if !autogen {
			doc, err := policy.Load(filepath.Join(dir, names.PolicyFile))
			if err != nil {
				return nil, err
			}
			in.HandWritten = doc
		} else {
			rep, err := synthEngine().Scan(ctx, dir, progress)
			if err != nil {
				return nil, fmt.Errorf("scan the app's AWS calls: %w", err)
			}
			in.Calls = rep.Calls
		}
		return perms.Compute(in)
	}
}
