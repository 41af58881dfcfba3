package synth

import (
	"os"
	"testing"
)

// TestMain closes the CDK's runtime after the tests: jsii-runtime-go
// unpacks it into the temporary directory when the test binary starts
// (2.2 MB), and leaves it there, and Node.js's files, unless closed.
func TestMain(m *testing.M) {
	code := m.Run()
	Close()
	os.Exit(code)
}
