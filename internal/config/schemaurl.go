package config

import (
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// SchemaPath is where the framework's repository publishes the JSON Schema
// of the configuration file (generated from Keys by internal/gendocs).
const SchemaPath = "docs/config.schema.json"

// schemaBase is the raw-file URL of the framework's repository; a ref
// (tag or branch) and SchemaPath follow it.
const schemaBase = "https://raw.githubusercontent.com/framework-dev/framework/"

// SchemaURL returns the "$schema" of a new project's configuration: the
// schema of the framework release version (a tag such as "v0.3.0"), or
// the main branch's for a version that is no release (empty, a
// development or pseudo-version, a build with metadata).
func SchemaURL(version string) string {
	ref := "main"
	if semver.IsValid(version) && semver.Build(version) == "" && !module.IsPseudoVersion(version) && !strings.HasSuffix(semver.Prerelease(version), "-dev") {
		ref = version
	}
	return schemaBase + ref + "/" + SchemaPath
}
