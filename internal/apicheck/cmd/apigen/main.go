// Command apigen writes api/<package>.txt, the exported API of each public
// package (go generate ./internal/apicheck). With -release it also
// copies them to api/released/, the API the next changes are checked
// against: run it when a version is released.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/framework-dev/framework/internal/apicheck"
)

func main() {
	root := flag.String("root", ".", "the module's root directory")
	release := flag.Bool("release", false, "also record the API as the released one (api/released/)")
	flag.Parse()
	err := apicheck.Generate(*root)
	if err == nil && *release {
		err = apicheck.Release(*root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apigen:", err)
		os.Exit(1)
	}
}
