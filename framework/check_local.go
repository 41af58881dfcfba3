//go:build !lambda.norpc

package framework

import "github.com/framework-dev/framework/internal/manifest"

// validateManifest checks the app's manifest whole (manifest.Validate):
// served locally, by go run or framework local, the app refuses at start
// what a deploy would refuse.
func validateManifest(m *manifest.Manifest) error { return manifest.Validate(m) }
