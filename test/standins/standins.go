package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/mototest"
)

// options are the command's flags.
type options struct {
	port, awsPort int    // 0: any free port
	motoPort      int    // moto's own port; 0: any free one
	dir           string // receives the empty shared AWS config files
}

// standins are the running servers.
type standins struct {
	cfnURL, awsURL string
	moto           *mototest.Server // nil when moto is not installed
	motoErr        error            // why there is no moto
	env            map[string]string
	servers        []*http.Server
}

// listen listens on port of 127.0.0.1, saying which flag chooses another.
func listen(port int, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d (%v): is another standins running? choose another port with %s N", port, err, flag)
	}
	return ln, nil
}

// start starts the servers; notices about what is missing go to notice.
func start(o options, notice io.Writer) (*standins, error) {
	cfnLn, err := listen(o.port, "-port")
	if err != nil {
		return nil, err
	}
	awsLn, err := listen(o.awsPort, "-aws-port")
	if err != nil {
		cfnLn.Close()
		return nil, err
	}
	s := &standins{cfnURL: "http://" + cfnLn.Addr().String(), awsURL: "http://" + awsLn.Addr().String()}
	cfn := cfnstandin.New()
	var aws http.Handler
	s.moto, s.motoErr = mototest.Launch(o.motoPort)
	if s.motoErr != nil && o.motoPort != 0 && !mototest.IsNotInstalled(s.motoErr) {
		// A pinned port is one the user relies on: no silent fallback.
		cfnLn.Close()
		awsLn.Close()
		return nil, fmt.Errorf("moto did not start on 127.0.0.1:%d (%v): choose another port with -moto-port N, or 0 for any free one", o.motoPort, s.motoErr)
	}
	if s.motoErr == nil {
		if err := s.moto.LambdaWithoutDocker(); err != nil {
			s.moto.Stop()
			cfnLn.Close()
			awsLn.Close()
			return nil, fmt.Errorf("configure moto's Lambda: %v", err)
		}
		w := newWiring(s.moto, notice)
		cfn.OnCreate, cfn.OnUpdate, cfn.OnDelete = w.create, w.update, w.remove
		aws = newFront(s.moto)
	} else {
		if mototest.IsNotInstalled(s.motoErr) {
			fmt.Fprintf(notice, "standins: %v\n", s.motoErr)
		} else {
			fmt.Fprintf(notice, "standins: moto did not start: %v\n", s.motoErr)
		}
		fmt.Fprintln(notice, "standins: serving CloudFormation, STS and S3 only: deploy, diff, url and destroy work; invoke, logs, deploy --hotswap and --watch, and secret set --stage need moto")
		backend := s3mem.New()
		cfn.OnCreate = func(r cfnstandin.Resource) error {
			if r.Type == "AWS::S3::Bucket" {
				return backend.CreateBucket(r.PhysicalID)
			}
			return nil
		}
		aws = gofakes3.New(backend).Server()
	}
	for _, x := range []struct {
		ln net.Listener
		h  http.Handler
	}{{cfnLn, cfn}, {awsLn, aws}} {
		srv := &http.Server{Handler: x.h}
		s.servers = append(s.servers, srv)
		go func() { _ = srv.Serve(x.ln) }()
	}
	s.env = map[string]string{
		"AWS_ENDPOINT_URL_CLOUDFORMATION": s.cfnURL,
		"AWS_ENDPOINT_URL_STS":            s.cfnURL,
		"AWS_ENDPOINT_URL_S3":             s.awsURL,
		"AWS_ENDPOINT_URL":                "",
		"AWS_ACCESS_KEY_ID":               "AKIASTANDIN",
		"AWS_SECRET_ACCESS_KEY":           "standin-secret",
		"AWS_SESSION_TOKEN":               "",
		"AWS_REGION":                      cfn.Region,
		"AWS_DEFAULT_REGION":              "",
		"AWS_PROFILE":                     "",
		"AWS_CONFIG_FILE":                 filepath.Join(o.dir, "aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE":     filepath.Join(o.dir, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED":       "true",
	}
	if s.moto != nil {
		s.env["AWS_ENDPOINT_URL"] = s.awsURL
	}
	// Empty shared files: the developer's AWS configuration plays no part.
	for _, k := range []string{"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		if err := os.WriteFile(s.env[k], nil, 0o600); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// summary is the line that says what is served where.
func (s *standins) summary() string {
	if s.moto == nil {
		return fmt.Sprintf("standins: CloudFormation and STS on %s, S3 on %s (no moto: no Lambda, CloudWatch Logs, Secrets Manager nor SSM); Ctrl-C stops them", s.cfnURL, s.awsURL)
	}
	return fmt.Sprintf("standins: CloudFormation and STS on %s; Lambda, CloudWatch Logs, Secrets Manager, SSM, S3 and the rest (moto) on %s (moto itself on %s); moto's Lambda runs no code (it echoes the event); Ctrl-C stops them", s.cfnURL, s.awsURL, s.moto.URL)
}

func (s *standins) close() {
	for _, srv := range s.servers {
		srv.Close()
	}
	if s.moto != nil {
		s.moto.Stop()
	}
}

// wiring creates in moto what the CloudFormation stand-in creates, for
// the services moto serves behind the stand-ins.
type wiring struct {
	moto   *mototest.Server
	lambda *lambda.Client
	s3     *s3.Client
	call   awscall.Config
	notice io.Writer

	mu    sync.Mutex
	roles map[string]string // role logical id → ARN in moto
}

func newWiring(m *mototest.Server, notice io.Writer) *wiring {
	cfg := m.Config()
	return &wiring{
		moto:   m,
		lambda: lambda.NewFromConfig(cfg),
		s3:     s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }),
		call: awscall.Config{Region: mototest.Region, Endpoint: m.URL,
			Credentials: awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}},
		roles:  map[string]string{},
		notice: notice,
	}
}

// resolve returns the string a property holds: a literal, or a Fn::Sub of
// the account and region.
func resolve(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["Fn::Sub"].(string); ok {
			return strings.NewReplacer("${AWS::AccountId}", mototest.AccountID, "${AWS::Region}", mototest.Region, "${AWS::URLSuffix}", "amazonaws.com", "${AWS::Partition}", "aws").Replace(s)
		}
	}
	return fmt.Sprint(v)
}

// code returns the S3 location of a function's package.
func code(r cfnstandin.Resource) (bucket, key string) {
	m, _ := r.Properties["Code"].(map[string]any)
	return resolve(m["S3Bucket"]), resolve(m["S3Key"])
}

// secretName is the name of the secret whose ARN the stand-in made up
// (…:secret:NAME-XXXXXX): the name the stack's outputs give it.
func secretName(arn string) string {
	name := arn[strings.LastIndex(arn, ":")+1:]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i]
	}
	return name
}

func (w *wiring) create(r cfnstandin.Resource) error {
	ctx := context.Background()
	switch r.Type {
	case "AWS::S3::Bucket":
		_, err := w.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(r.PhysicalID)})
		return err
	case "AWS::IAM::Role":
		doc, _ := json.Marshal(r.Properties["AssumeRolePolicyDocument"])
		if err := w.moto.CreateRole(r.PhysicalID, string(doc)); err != nil {
			return err
		}
		w.mu.Lock()
		w.roles[r.LogicalID] = "arn:aws:iam::" + mototest.AccountID + ":role/" + r.PhysicalID
		w.mu.Unlock()
	case "AWS::Lambda::Function":
		role, err := w.role(r.Properties["Role"])
		if err != nil {
			return err
		}
		bucket, key := code(r)
		arch := []lambdatypes.Architecture{lambdatypes.ArchitectureX8664}
		if a, _ := r.Properties["Architectures"].([]any); len(a) == 1 && a[0] == "arm64" {
			arch = []lambdatypes.Architecture{lambdatypes.ArchitectureArm64}
		}
		_, err = w.lambda.CreateFunction(ctx, &lambda.CreateFunctionInput{
			FunctionName: aws.String(r.PhysicalID), Role: aws.String(role), Runtime: lambdatypes.RuntimeProvidedal2023,
			Handler: aws.String("bootstrap"), Architectures: arch,
			Code: &lambdatypes.FunctionCode{S3Bucket: aws.String(bucket), S3Key: aws.String(key)},
		})
		return err
	case "AWS::SecretsManager::Secret":
		value, _ := r.Properties["SecretString"].(string)
		if value == "" {
			value = "-"
		}
		return w.call.Call(ctx, "secretsmanager", "CreateSecret", map[string]any{"Name": secretName(r.PhysicalID), "SecretString": value}, nil)
	case "AWS::SSM::Parameter":
		value, _ := r.Properties["Value"].(string)
		return w.call.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": r.PhysicalID, "Value": value, "Type": "String", "Overwrite": true}, nil)
	}
	return nil
}

// role returns the ARN of a function's Role property: a role of the stack
// (Fn::GetAtt) or an imported one, created in moto when missing (moto's
// Lambda takes only a role it has).
func (w *wiring) role(v any) (string, error) {
	if m, ok := v.(map[string]any); ok {
		if ga, ok := m["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			w.mu.Lock()
			arn := w.roles[fmt.Sprint(ga[0])]
			w.mu.Unlock()
			if arn != "" {
				return arn, nil
			}
		}
	}
	arn := resolve(v)
	if !strings.HasPrefix(arn, "arn:") {
		arn = "arn:aws:iam::" + mototest.AccountID + ":role/standins-imported"
	}
	name := arn[strings.LastIndex(arn, "/")+1:]
	err := w.moto.CreateRole(name, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)
	if err != nil && !strings.Contains(err.Error(), "EntityAlreadyExists") {
		return "", err
	}
	return "arn:aws:iam::" + mototest.AccountID + ":role/" + name, nil
}

func (w *wiring) update(r cfnstandin.Resource) error {
	if r.Type != "AWS::Lambda::Function" {
		return nil
	}
	bucket, key := code(r)
	_, err := w.lambda.UpdateFunctionCode(context.Background(), &lambda.UpdateFunctionCodeInput{FunctionName: aws.String(r.PhysicalID), S3Bucket: aws.String(bucket), S3Key: aws.String(key)})
	return err
}

// remove deletes from moto what a stack deletion deletes (buckets stay,
// as their objects would stop CloudFormation).
func (w *wiring) remove(r cfnstandin.Resource) {
	ctx := context.Background()
	var err error
	switch r.Type {
	case "AWS::Lambda::Function":
		_, err = w.lambda.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String(r.PhysicalID)})
	case "AWS::SecretsManager::Secret":
		err = w.call.Call(ctx, "secretsmanager", "DeleteSecret", map[string]any{"SecretId": secretName(r.PhysicalID), "ForceDeleteWithoutRecovery": true}, nil)
	case "AWS::SSM::Parameter":
		err = w.call.Call(ctx, "ssm", "DeleteParameter", map[string]any{"Name": r.PhysicalID}, nil)
	}
	var nf *lambdatypes.ResourceNotFoundException
	if err != nil && !errors.As(err, &nf) && !awscall.IsCode(err, "ResourceNotFoundException") && !awscall.IsCode(err, "ParameterNotFound") {
		fmt.Fprintf(w.notice, "standins: delete %s %s in moto: %v\n", r.Type, r.PhysicalID, err)
	}
}
