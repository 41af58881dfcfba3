// Package mototest runs moto (https://github.com/getmoto/moto), an
// independent emulator of AWS services, as a server on 127.0.0.1 for the
// tests of the commands that talk to a deployed stage (`framework logs`,
// `framework invoke`). Tests that need it fail, with what to install, when
// moto is not on the machine: they never skip silently.
//
// What moto does and does not do, as these tests rely on it:
//   - CloudFormation: CreateStack of a plain template creates the resources
//     it supports (IAM roles, Lambda functions, ...) and DescribeStacks
//     returns the stack's outputs. (Its change-set path is partial.)
//   - CloudWatch Logs: log groups, streams, PutLogEvents and
//     FilterLogEvents with startTime/endTime; no Live Tail.
//   - Lambda: functions are created and Invoke answers, but moto runs a
//     function's code only in Docker. Without Docker, after
//     UseLambdaWithoutDocker, Invoke echoes the event (or returns the
//     results queued with QueueLambdaResults) and never reports a function
//     error nor a log tail.
package mototest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	cwltypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/framework-dev/framework/internal/lockedbuf"
)

// Region is the region the helpers and Environ use.
const Region = "us-east-1"

// AccountID is the account moto reports.
const AccountID = "123456789012"

// Server is a running moto server.
type Server struct {
	// URL is the server's endpoint, http://127.0.0.1:PORT.
	URL string

	cmd    *exec.Cmd
	log    *lockedbuf.Buffer
	port   int
	exited chan error // receives cmd's exit
}

// command returns how to start moto's server on this machine, or an error
// saying how to install it.
func command(port int) (*exec.Cmd, error) {
	p := strconv.Itoa(port)
	if path, err := exec.LookPath("moto_server"); err == nil {
		return exec.Command(path, "-H", "127.0.0.1", "-p", p), nil
	}
	for _, py := range []string{"python3", "python"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import moto.server").Run() == nil {
			return exec.Command(path, "-m", "moto.server", "-H", "127.0.0.1", "-p", p), nil
		}
	}
	return nil, fmt.Errorf("moto is not installed (no moto_server on PATH and no python3 module moto.server): these tests run the CLI against moto; install it with `pip install 'moto[server]'` (version 5)")
}

var portMu sync.Mutex

// Start starts a moto server on a free port of 127.0.0.1, waits until it
// answers, and stops it when the test ends. The test fails when moto is not
// installed or does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	var lastErr error
	for try := 0; try < 3; try++ {
		s, err := start()
		if err == nil {
			t.Cleanup(s.stop)
			return s
		}
		lastErr = err
		if _, ok := err.(installError); ok {
			break
		}
	}
	t.Fatalf("mototest: %v", lastErr)
	return nil
}

type installError struct{ error }

// Launch starts a moto server as Start does, on port (0: a free one), for
// a program rather than a test; stop it with Stop. Its error says how to
// install moto when it is missing (IsNotInstalled).
func Launch(port int) (*Server, error) {
	var lastErr error
	for try := 0; try < 3; try++ {
		s, err := startOn(port)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if _, ok := err.(installError); ok || port != 0 {
			break
		}
	}
	return nil, lastErr
}

// IsNotInstalled reports whether err, from Launch, says moto is not
// installed.
func IsNotInstalled(err error) bool {
	_, ok := err.(installError)
	return ok
}

// Stop stops the server.
func (s *Server) Stop() { s.stop() }

// LambdaWithoutDocker is UseLambdaWithoutDocker for a program.
func (s *Server) LambdaWithoutDocker() error {
	return s.postErr("/moto-api/config", map[string]any{"lambda": map[string]any{"use_docker": false}})
}

func start() (*Server, error) { return startOn(0) }

func startOn(port int) (*Server, error) {
	portMu.Lock()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		portMu.Unlock()
		if port != 0 {
			return nil, fmt.Errorf("port %d of 127.0.0.1 is taken: %w", port, err)
		}
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	defer portMu.Unlock()
	return runOn(port, append(os.Environ(), "PYTHONUNBUFFERED=1"))
}

// runOn starts moto on port with the environment env and waits until it
// answers.
func runOn(port int, env []string) (*Server, error) {
	cmd, err := command(port)
	if err != nil {
		return nil, installError{err}
	}
	log := &lockedbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	cmd.Env = env
	if err := spawn(cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	exited := make(chan error, 1)
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, log: log, port: port, exited: exited}
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/moto-api/config")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return s, nil
			}
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("moto server on port %d exited before answering (%v): %s", port, err, s.output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("moto server on port %d did not answer within 60s: %s", port, s.output())
		}
	}
}

func (s *Server) stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Kill kills the server, as a crash would, and waits until it has exited:
// its port then refuses connections. Restart starts it again.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.stop()
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("mototest: the server on port %d did not exit within 30s of SIGKILL", s.port)
	}
}

// Restart starts a killed server again on the same port, with none of its
// former state (as an emulator restarted) and the environment it first
// had (not the test's since), and waits until it answers.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	var err error
	for try := 0; try < 3; try++ {
		var n *Server
		if n, err = runOn(s.port, s.cmd.Env); err == nil {
			s.cmd, s.log, s.exited = n.cmd, n.log, n.exited
			return
		}
	}
	t.Fatalf("mototest: restart on port %d: %v", s.port, err)
}

func (s *Server) output() string {
	return strings.TrimSpace(s.log.String())
}

// Environ returns the environment variables that point the AWS SDK of a
// child process (the CLI) at the server: every service's endpoint, fixed
// credentials and region, and empty shared config files in dir so that the
// developer's own AWS configuration plays no part.
func (s *Server) Environ(dir string) map[string]string {
	cfg, creds := filepath.Join(dir, "aws-config"), filepath.Join(dir, "aws-credentials")
	_ = os.WriteFile(cfg, nil, 0o600)
	_ = os.WriteFile(creds, nil, 0o600)
	return map[string]string{
		"AWS_ENDPOINT_URL":            s.URL,
		"AWS_ACCESS_KEY_ID":           "AKIAMOTOTEST",
		"AWS_SECRET_ACCESS_KEY":       "moto-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  Region,
		"AWS_DEFAULT_REGION":          "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             cfg,
		"AWS_SHARED_CREDENTIALS_FILE": creds,
		"AWS_EC2_METADATA_DISABLED":   "true",
	}
}

// Config returns an SDK configuration for the server.
func (s *Server) Config() aws.Config {
	return aws.Config{
		Region:       Region,
		BaseEndpoint: aws.String(s.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret", Source: "mototest"}, nil
		}),
	}
}

// UseLambdaWithoutDocker switches the server's Lambda to its Docker-free
// backend (moto's "lambda.use_docker": false): Invoke then answers with the
// event itself, or with the results queued by QueueLambdaResults, instead
// of failing to reach Docker. Call it before creating functions: the two
// backends do not share them.
func (s *Server) UseLambdaWithoutDocker(t testing.TB) {
	t.Helper()
	s.post(t, "/moto-api/config", map[string]any{"lambda": map[string]any{"use_docker": false}})
}

// QueueLambdaResults makes the next Invoke calls (Docker-free backend)
// answer with these payloads, in order.
func (s *Server) QueueLambdaResults(t testing.TB, results ...string) {
	t.Helper()
	s.post(t, "/moto-api/static/lambda-simple/response", map[string]any{"results": results, "region": Region, "account_id": AccountID})
}

func (s *Server) post(t testing.TB, path string, body any) {
	t.Helper()
	if err := s.postErr(path, body); err != nil {
		t.Fatalf("mototest: %v", err)
	}
}

func (s *Server) postErr(path string, body any) error {
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %s", path, resp.Status)
	}
	return nil
}

// StageTemplate is a small stage stack for moto: an execution role and a
// Lambda function (its code a placeholder moto never runs), with the
// FunctionName and FunctionArn outputs a deployed stage has.
const StageTemplate = `{
  "Resources": {
    "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": {"Version": "2012-10-17",
      "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}}},
    "Function": {"Type": "AWS::Lambda::Function", "Properties": {"Runtime": "provided.al2023", "Handler": "bootstrap",
      "Role": {"Fn::GetAtt": ["Role", "Arn"]}, "Code": {"ZipFile": "placeholder"}}}
  },
  "Outputs": {
    "FunctionName": {"Value": {"Ref": "Function"}},
    "FunctionArn": {"Value": {"Fn::GetAtt": ["Function", "Arn"]}}
  }
}`

// CreateStack creates the stack name from template with a plain
// CreateStack (moto completes it at once) and returns its outputs.
func (s *Server) CreateStack(t testing.TB, name, template string) map[string]string {
	t.Helper()
	ctx := context.Background()
	c := cloudformation.NewFromConfig(s.Config())
	if _, err := c.CreateStack(ctx, &cloudformation.CreateStackInput{StackName: aws.String(name), TemplateBody: aws.String(template)}); err != nil {
		t.Fatalf("mototest: create stack %s: %v", name, err)
	}
	out, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil || len(out.Stacks) != 1 {
		t.Fatalf("mototest: describe stack %s: %v", name, err)
	}
	outputs := map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return outputs
}

// PutLogEvents writes messages, in order and one millisecond apart from
// start, to a stream of group, creating the group and the stream when
// missing. The test fails when moto refuses.
func (s *Server) PutLogEvents(t testing.TB, group, stream string, start time.Time, messages ...string) {
	t.Helper()
	if err := s.WriteLogEvents(group, stream, start, messages...); err != nil {
		t.Fatalf("mototest: %v", err)
	}
}

// WriteLogEvents is PutLogEvents returning its error, for goroutines other
// than the test's.
func (s *Server) WriteLogEvents(group, stream string, start time.Time, messages ...string) error {
	ctx := context.Background()
	c := cloudwatchlogs.NewFromConfig(s.Config())
	var exists *cwltypes.ResourceAlreadyExistsException
	if _, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(group)}); err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("create log group %s: %w", group, err)
	}
	if _, err := c.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream)}); err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("create log stream %s: %w", stream, err)
	}
	var evs []cwltypes.InputLogEvent
	for i, m := range messages {
		evs = append(evs, cwltypes.InputLogEvent{Message: aws.String(m), Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Millisecond).UnixMilli())})
	}
	if _, err := c.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream), LogEvents: evs}); err != nil {
		return fmt.Errorf("put log events in %s/%s: %w", group, stream, err)
	}
	return nil
}
