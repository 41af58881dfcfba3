// Command inrepo is a test fixture: a package main inside the framework's own
// module (like examples/kitchensink) that prints a route manifest in manifest
// mode, built by internal/build's tests with the project directory set here.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/framework-dev/framework/internal/manifest"
)

func main() {
	if os.Getenv("FRAMEWORK_MODE") != "manifest" {
		fmt.Fprintln(os.Stderr, "inrepo: only manifest mode is implemented")
		os.Exit(1)
	}
	m := manifest.Manifest{
		Version: manifest.Version,
		App:     "inrepo",
		Routes: []manifest.Route{
			{Path: "/", Methods: []string{"GET"}, Handler: "index", ContentTypes: []string{"application/json"}},
		},
	}
	if err := json.NewEncoder(os.Stdout).Encode(m); err != nil {
		os.Exit(1)
	}
}
