// A queue's access given to a table: the compiler refuses it.
package main

import (
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("wrong")
	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	todos.Allow(resource.Send)
	app.Run()
}
