// Package remote reaches the functions of a deployed stage: which Lambda
// function a name designates (from the stage stack's outputs), invoking it
// through the Lambda API (`framework invoke`), and reading its CloudWatch
// Logs (`framework logs`). It uses the AWS SDK for Go v2; the runtime
// (framework/) never imports it.
package remote

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// APIFunction is the name the commands give the REST API's function, the
// one function every stage has.
const APIFunction = "api"

// Function is one deployed function of a stage.
type Function struct {
	// Name is what the user calls it on the command line ("api").
	Name string
	// FunctionName is the Lambda function's name.
	FunctionName string
	// ARN is the Lambda function's ARN, when the stack reports it.
	ARN string
}

// LogGroup is the function's CloudWatch Logs group, the one Lambda writes
// to by default: /aws/lambda/<function name>.
func (f Function) LogGroup() string { return "/aws/lambda/" + f.FunctionName }

// Functions lists the functions of a stage from its stack's outputs: today
// the REST API's function (outputs FunctionName and FunctionArn), named
// APIFunction. This is the one place that maps stack outputs to functions:
// when stages get one function per event handler, their outputs are added
// here and every command that takes a function name follows.
func Functions(outputs map[string]string) []Function {
	var fns []Function
	if fn := outputs[names.OutputFunctionName]; fn != "" {
		fns = append(fns, Function{Name: APIFunction, FunctionName: fn, ARN: outputs[names.OutputFunctionArn]})
	}
	fns = append(fns, handlerFunctions(outputs)...)
	return fns
}

// Resolve returns the function of a stage that name designates: its
// command-line name ("api"), the app's name (the app's API function), or
// the Lambda function's own name. An empty name is the API function.
func Resolve(app, stage string, outputs map[string]string, name string) (Function, error) {
	fns := Functions(outputs)
	if name == "" || name == app {
		name = APIFunction
	}
	for _, f := range fns {
		if f.Name == name || f.FunctionName == name {
			return f, nil
		}
	}
	if len(fns) == 0 {
		return Function{}, fmt.Errorf("stage %s has no deployed function: its stack %s has no %s output; run `framework deploy --stage %s`", stage, names.StackName(app, stage), names.OutputFunctionName, stage)
	}
	known := make([]string, len(fns))
	for i, f := range fns {
		known[i] = f.Name
	}
	slices.Sort(known)
	return Function{}, fmt.Errorf("stage %s has no function %q; its functions are: %s", stage, name, strings.Join(known, ", "))
}
