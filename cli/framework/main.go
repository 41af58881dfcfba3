// Command framework is the CLI of the serverless REST framework for Go.
package main

import (
	"github.com/framework-dev/framework/internal/cli"
	"github.com/framework-dev/framework/internal/nodeshim"
)

func main() {
	nodeshim.Run() // returns unless started as the CDK's Node.js (see cli.Run)
	cli.Run()
}
