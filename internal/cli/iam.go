package cli

import (
	"context"

	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// deployedPolicies is how `invoke --local` learns what each function's
// deployed role will allow, for the local IAM check: the policy scan
// (localScan), and the stage's settings, as synth computes the roles
// (localiam.PoliciesOf).
func deployedPolicies(dir, stage string) func(context.Context, *manifest.Manifest) (*perms.Policies, error) {
	return func(ctx context.Context, m *manifest.Manifest) (*perms.Policies, error) {
		rep, err := localScan(ctx, dir)
		return localiam.PoliciesOf(dir, stage, m, rep, err)
	}
}
