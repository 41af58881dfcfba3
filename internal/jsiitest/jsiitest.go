// Package jsiitest is the TestMain of the test binaries that link the AWS
// CDK's Go bindings.
package jsiitest

import (
	"os"
	"testing"

	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/nodeshim"
)

// Main runs the tests, then closes the CDK's runtime: jsii-runtime-go
// unpacks it into the temporary directory when the binary starts (2.2 MB),
// whether or not a test uses it, and leaves it there, with the files of
// the Node.js process a test started, unless it is closed.
//
// Started as the Node.js shim (a synthesis with Options.NodeShim, as the
// engine program runs them, starts Node.js through its own executable), the
// binary becomes Node.js instead: without that it would run the tests
// again, each starting one more, without end.
//
// Unless FRAMEWORK_CACHE_DIR is set, the tests' app builds go to a cache
// directory of the run, removed at its end, rather than into the user's.
func Main(m *testing.M) {
	nodeshim.Run()
	var cache string
	if os.Getenv(names.EnvCacheDir) == "" {
		if dir, err := os.MkdirTemp("", "framework-test-cache-"); err == nil {
			cache = dir
			os.Setenv(names.EnvCacheDir, dir)
		}
	}
	code := m.Run()
	jsii.Close()
	if cache != "" {
		os.RemoveAll(cache)
	}
	os.Exit(code)
}
