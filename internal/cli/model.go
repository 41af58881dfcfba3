package cli

import "github.com/alecthomas/kong"

// cliName and cliDescription head the CLI's help and its reference.
const (
	cliName        = "framework"
	cliDescription = "A serverless REST framework for Go: routes on Go functions, served locally and deployed to API Gateway and Lambda."
)

// Model returns the command tree as kong parses it: every command, its
// aliases, arguments and flags with their help, defaults and environment
// variables. internal/gendocs generates the CLI reference (docs/cli.md)
// from it. The version reads VERSION, so that the reference does not
// change from build to build.
func Model() (*kong.Application, error) {
	v := vars()
	v["version"] = "VERSION"
	parser, err := kong.New(&CLI{}, kong.Name(cliName), kong.Description(cliDescription), v)
	if err != nil {
		return nil, err
	}
	return parser.Model, nil
}
