// A plain function without an error result: it must not compile.
package main

import (
	"context"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("wrong")
	framework.LambdaFunction(app, "count", func(ctx context.Context, in []string) int { return len(in) })
	app.Run()
}
