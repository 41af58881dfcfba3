// Command framework-synth is the synthesis engine of the framework CLI: the
// one program of the framework that links the AWS CDK. `framework synth`,
// `diff` and `deploy` build it once into the user's cache directory and run
// it for each synthesis; users do not run it themselves.
package main

import (
	"github.com/framework-dev/framework/internal/engine"
	"github.com/framework-dev/framework/internal/nodeshim"
)

func main() {
	nodeshim.Run() // returns unless started as the CDK's Node.js
	engine.Main()
}
