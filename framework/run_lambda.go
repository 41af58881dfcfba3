//go:build lambda.norpc

package framework

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// parseArgs parses the one flag of Run that applies to a function built
// for Lambda, --framework-manifest (-framework-manifest, =true or =false,
// as package flag reads it), without package flag: it and --port (local
// serving) are left out of that build.
func (a *App) parseArgs(args []string, stderr io.Writer) (manifest bool, port int, ok bool) {
	for _, arg := range args {
		if len(arg) < 2 || arg[0] != '-' || arg == "--" {
			break // flags end at the first non-flag argument, or at --
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
		if name != "framework-manifest" {
			fmt.Fprintf(stderr, "%s: %s: the Lambda build (-tags lambda.norpc) takes one flag, --framework-manifest\n", a.Name, arg)
			return false, 0, false
		}
		manifest = true
		if hasValue {
			b, err := strconv.ParseBool(value)
			if err != nil {
				fmt.Fprintf(stderr, "%s: %s: the value is not a boolean\n", a.Name, arg)
				return false, 0, false
			}
			manifest = b
		}
	}
	return manifest, 0, true
}

// runLocal refuses to serve HTTP in a function built for Lambda (-tags
// lambda.norpc, as framework deploy builds it): the local server is left
// out of that build, which is then smaller and starts sooner.
func (a *App) runLocal(port int, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "%s: this binary is built for AWS Lambda (-tags lambda.norpc) and serves only there, where %s is set; to serve HTTP locally, run framework local, or build without the tag\n", a.Name, names.EnvLambdaRuntimeAPI)
	return 2
}
