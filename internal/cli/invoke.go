package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/remote"
	"github.com/framework-dev/framework/internal/userfile"
)

// InvokeCmd invokes a deployed function, or with --local a handler of a
// local build of the app.
type InvokeCmd struct {
	Name    string `arg:"" help:"Function to invoke: api, the REST API's function (the app's name means it too)."`
	Payload string `placeholder:"FILE|-" aliases:"event" help:"The event to send, a JSON file, or - to read it from standard input (default {}; with --local, a realistic sample event for the handler's kind). --event is the same flag."`
	JSON    bool   `name:"json" help:"Print one JSON object: payload, status_code, function_error, error_type, error_message, log_tail, executed_version."`
	FunctionFlags
	Local       bool   `help:"Run the handler in a local build of the app, through the same Lambda runtime path as deployed, instead of invoking the deployed function (no AWS account needed)."`
	NoIAMCheck  bool   `name:"no-iam-check" help:"With --local: do not check the function's AWS calls against the policy of its deployed role (a call the role would refuse then succeeds locally)."`
	AWSEndpoint string `name:"aws-endpoint" placeholder:"URL" help:"With --local: an AWS emulator (LocalStack, DynamoDB Local, moto) where the app's declared resources are created when missing and its AWS SDK calls go; without it, the deployed stage's resources are used."`
}

// Run invokes the function synchronously: its result on stdout, the tail of
// its log on stderr. A function error is shown with its type and message
// and exits 1; a stage that is not deployed exits 2.
func (c *InvokeCmd) Run(g *Globals, env *Env) error {
	if c.Local {
		return c.runLocal(g, env)
	}
	if c.NoIAMCheck {
		return &ExitError{Code: 2, Err: errors.New("--no-iam-check applies to --local only: a deployed function runs with its role, which AWS checks")}
	}
	ctx, stop := env.Context()
	defer stop()
	payload, err := c.readPayload(env)
	if err != nil {
		return err
	}
	fn, cfg, err := c.deployed(ctx, g, env, c.Name)
	if err != nil {
		return err
	}
	res, err := remote.Invoke(ctx, lambda.NewFromConfig(cfg), fn.FunctionName, payload)
	if gone := (*remote.FunctionGoneError)(nil); errors.As(err, &gone) {
		return fmt.Errorf("invoke function %s: it does not exist (was the stage destroyed outside framework?); run `framework deploy --stage %s`: %w", gone.Function, c.stage(), gone.Err)
	}
	if err != nil {
		return interrupted(ctx, deploy.Unreachable(cfg.Region, err))
	}
	if c.JSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(env.Stdout, "%s\n", b); err != nil {
			return err
		}
	} else {
		if tail := strings.TrimRight(res.LogTail, "\n"); tail != "" {
			fmt.Fprintf(env.Stderr, "%s\n", tail)
		}
		if err := writePayload(env.Stdout, res); err != nil {
			return err
		}
	}
	return functionFailed(res, fmt.Sprintf("function %s (%s)", fn.Name, fn.FunctionName))
}

// writePayload writes the function's result on w, ending in a newline.
func writePayload(w io.Writer, res *remote.Result) error {
	out := string(res.Payload)
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// functionFailed is the exit error of an invocation that ended in a
// function error (exit 1, its type and message), or nil; who names the
// function.
func functionFailed(res *remote.Result, who string) error {
	if res.FunctionError == "" {
		return nil
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("%s failed: %s", who, res.ErrorLine())}
}

// maxPayload is Lambda's limit on the payload of a synchronous
// invocation (6,291,456 bytes).
const maxPayload = 6 << 20

// readPayload reads --payload and checks that it is JSON, as Lambda
// requires. A file must be a regular file (or a symbolic link to one), and
// neither a file nor standard input may hold more than Lambda accepts.
func (c *InvokeCmd) readPayload(env *Env) ([]byte, error) {
	var (
		b    []byte
		err  error
		from = c.Payload
	)
	switch c.Payload {
	case "":
		return []byte("{}"), nil
	case "-":
		from = "standard input"
		b, err = userfile.ReadStream(env.Stdin, from, "a Lambda event", maxPayload)
	default:
		b, err = userfile.Read(c.Payload, "a Lambda event", maxPayload)
	}
	if userfile.IsRefused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read the payload from %s: %w", from, err)
	}
	if err := userfile.CheckJSON(b); err != nil {
		return nil, fmt.Errorf("the payload from %s is not JSON (%v): Lambda takes a JSON event, such as {}", from, err)
	}
	return b, nil
}
