// Command ordersfn is the function the `framework invoke` end-to-end test
// deploys in its stand-in Lambda: a framework app whose route logs a line,
// so that the invocation's log tail has the function's own output.
package main

import (
	"fmt"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("shop")
	app.Route("/orders/{id}", func(r *framework.Request, id string) (any, error) {
		fmt.Printf("looking up order %s\n", id)
		return map[string]string{"order": id}, nil
	})
	app.Run()
}
