// Package jsiitest is the TestMain of the test binaries that link the AWS
// CDK's Go bindings.
package jsiitest

import (
	"os"
	"testing"

	"github.com/aws/jsii-runtime-go"
)

// Main runs the tests, then closes the CDK's runtime: jsii-runtime-go
// unpacks it into the temporary directory when the binary starts (2.2 MB),
// whether or not a test uses it, and leaves it there, with the files of
// the Node.js process a test started, unless it is closed.
func Main(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}
