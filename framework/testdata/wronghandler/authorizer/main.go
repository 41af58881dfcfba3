// An app authorizer whose Func returns a bool instead of an AuthResult: it
// must not compile.
package main

import (
	"context"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("wrong")
	gate := framework.AppAuthorizer{Name: "gate", Func: func(ctx context.Context, in framework.AuthRequest) (bool, error) { return true, nil }}
	app.Route("/", func(*framework.Request) (any, error) { return nil, nil }, framework.WithAuthorizer(gate))
	app.Run()
}
