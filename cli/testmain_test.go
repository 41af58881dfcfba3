package cli

import (
	"os"
	"testing"

	"github.com/framework-dev/framework/internal/synth"
)

// TestMain closes the CDK's runtime after the tests: jsii-runtime-go
// unpacks it into the temporary directory when the test binary starts
// (2.2 MB), and leaves it there unless closed, as the CLI's Run does.
func TestMain(m *testing.M) {
	code := m.Run()
	synth.Close()
	os.Exit(code)
}
