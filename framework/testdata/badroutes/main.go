// Command badroutes is the app of TestLambdaBuildRefusesBadRoutes
// (lambdabuild_test.go): a route whose path does not parse, and two
// handlers serving GET /things.
package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := framework.New("badroutes")
	h := func(r *framework.Request) (any, error) { return nil, nil }
	app.Route("/a/{id", h)
	app.Route("/things", h, framework.Name("a"))
	app.Route("/things", h, framework.Name("b"))
	app.Run()
}
