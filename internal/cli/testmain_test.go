package cli

import (
	"os"
	"testing"

	"github.com/framework-dev/framework/internal/engine"
	"github.com/framework-dev/framework/internal/jsiitest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/nodeshim"
)

// envTestEngine set to 1 makes this test binary the synthesis engine: the
// commands under test run it (FRAMEWORK_ENGINE names it) as the CLI runs
// cli/framework-synth, so that they synthesize for real without building
// the engine.
const envTestEngine = "FRAMEWORK_CLI_TEST_ENGINE"

func TestMain(m *testing.M) {
	if os.Getenv(envTestEngine) == "1" {
		nodeshim.Run() // when the engine starts Node.js through this binary
		engine.Main()
	}
	if exe, err := os.Executable(); err == nil {
		os.Setenv(names.EnvEngine, exe)
		os.Setenv(envTestEngine, "1")
	}
	jsiitest.Main(m)
}
