// Command framework is the CLI of the serverless REST framework for Go.
package main

import "github.com/framework-dev/framework/cli"

func main() { cli.Run() }
