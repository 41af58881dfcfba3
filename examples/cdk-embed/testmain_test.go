package main

import (
	"os"
	"testing"

	"github.com/aws/jsii-runtime-go"
)

// TestMain closes the CDK's runtime after the tests: jsii-runtime-go
// unpacks it into the temporary directory when the test binary starts
// (2.2 MB), and leaves it there unless closed, as main does.
func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}
