package remote

import (
	"maps"
	"slices"

	"github.com/framework-dev/framework/internal/names"
)

// handlerFunctions lists the functions of a stage's event handlers and
// plain functions, one stack output each (names.FunctionOutput), sorted
// by handler name.
func handlerFunctions(outputs map[string]string) []Function {
	var fns []Function
	for _, key := range slices.Sorted(maps.Keys(outputs)) {
		if name, ok := names.FunctionFromOutput(key); ok && outputs[key] != "" {
			fns = append(fns, Function{Name: name, FunctionName: outputs[key]})
		}
	}
	slices.SortStableFunc(fns, func(a, b Function) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return fns
}
