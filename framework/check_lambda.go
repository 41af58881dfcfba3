//go:build lambda.norpc

package framework

import "github.com/framework-dev/framework/internal/manifest"

// validateManifest checks, in a function built for Lambda, the route table
// it serves (manifest.ValidateRoutes): a route whose path does not parse, or
// two routes serving one method of a path, are refused at start-up as
// elsewhere. The rest of manifest.Validate (functions, schedules, filter
// policies, authorizers, resources) describes what the deployment creates:
// the CLI checks it in every manifest an app prints before it synthesizes
// or serves anything (internal/build), and it is left out of this build,
// which is then about 145 KB smaller (examples/hello) and starts sooner.
func validateManifest(m *manifest.Manifest) error { return manifest.ValidateRoutes(m) }
