package resource_test

import (
	"fmt"
	"os"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/frameworktest"
)

// An app declares a table its stage's stack creates, and what its handlers
// may do with it; at run time the table's handle gives its physical name,
// which the stack (or `framework local`) puts in the environment.
func Example() {
	app := framework.New("todo")
	todos := resource.NewTable(app, "todos", resource.TableSpec{
		PartitionKey: resource.Key{Name: "id", Type: resource.String},
	})
	todos.Allow(resource.Read) // every handler may read it
	app.Route("/table", func(r *framework.Request) (string, error) {
		return todos.Name(), nil
	})
	fmt.Println("valid:", app.Validate())

	// What the stage's stack sets for a table named "todos".
	os.Setenv("FRAMEWORK_RES_TODOS_NAME", "todo-dev-todos")
	defer os.Unsetenv("FRAMEWORK_RES_TODOS_NAME")
	resp := frameworktest.New(app).Get("/table", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	// Output:
	// valid: <nil>
	// 200 "todo-dev-todos"
}
