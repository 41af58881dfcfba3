package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cfntypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// stageTemplate is a stage stack as `framework deploy` sends it, cut down:
// a role, a function whose code is in the assets bucket, a declared
// secret and parameter, and the outputs the CLI reads.
const stageTemplate = `{
  "Resources": {
    "AppRole": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": {"Version": "2012-10-17",
      "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}}},
    "AppFunction": {"Type": "AWS::Lambda::Function", "Properties": {"Runtime": "provided.al2023", "Handler": "bootstrap",
      "Architectures": ["arm64"], "Role": {"Fn::GetAtt": ["AppRole", "Arn"]},
      "Code": {"S3Bucket": {"Fn::Sub": "assets-${AWS::AccountId}-${AWS::Region}"}, "S3Key": "code.zip"}}},
    "AppResApiKey": {"Type": "AWS::SecretsManager::Secret", "Properties": {"SecretString": "framework:unset"}},
    "AppResFlag": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "String", "Value": "framework:unset"}}
  },
  "Outputs": {
    "FunctionName": {"Value": {"Ref": "AppFunction"}},
    "ParameterName": {"Value": {"Ref": "AppResFlag"}},
    "SecretName": {"Value": {"Fn::Join": ["-", [
      {"Fn::Select": [0, {"Fn::Split": ["-", {"Fn::Select": [6, {"Fn::Split": [":", {"Ref": "AppResApiKey"}]}]}]}]},
      {"Fn::Select": [1, {"Fn::Split": ["-", {"Fn::Select": [6, {"Fn::Split": [":", {"Ref": "AppResApiKey"}]}]}]}]}]]}}
  }
}`

// The environment the stand-ins print reaches, besides CloudFormation,
// a Lambda holding the functions a stack deploys (Invoke answers, and
// writes the invocation's lines to CloudWatch Logs), Secrets Manager and
// SSM holding its secrets and parameters, and S3; a deleted stack's
// function is gone.
func TestStandinsServeTheStageLifecycle(t *testing.T) {
	var notice bytes.Buffer
	s, err := start(options{dir: t.TempDir()}, &notice)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if s.moto == nil {
		t.Fatalf("the stand-ins run without moto (this test needs it): %s", notice.String())
	}
	for k, v := range s.env {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The assets bucket and the function's package, as deploy uploads it.
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	bucket := "assets-" + mototest.AccountID + "-" + mototest.Region
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	var pkg bytes.Buffer
	zw := zip.NewWriter(&pkg)
	f, _ := zw.Create("bootstrap")
	f.Write([]byte("#!/bin/sh\n"))
	zw.Close()
	if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("code.zip"), Body: bytes.NewReader(pkg.Bytes())}); err != nil {
		t.Fatal(err)
	}

	cfn := cloudformation.NewFromConfig(cfg)
	cs, err := cfn.CreateChangeSet(ctx, &cloudformation.CreateChangeSetInput{StackName: aws.String("shop-dev"), ChangeSetName: aws.String("deploy"),
		ChangeSetType: cfntypes.ChangeSetTypeCreate, TemplateBody: aws.String(stageTemplate), Capabilities: []cfntypes.Capability{cfntypes.CapabilityCapabilityIam}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		out, err := cfn.DescribeChangeSet(ctx, &cloudformation.DescribeChangeSetInput{ChangeSetName: cs.Id})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status == cfntypes.ChangeSetStatusCreateComplete {
			break
		}
		if out.Status == cfntypes.ChangeSetStatusFailed {
			t.Fatalf("change set failed: %s", aws.ToString(out.StatusReason))
		}
	}
	if _, err := cfn.ExecuteChangeSet(ctx, &cloudformation.ExecuteChangeSetInput{ChangeSetName: cs.Id}); err != nil {
		t.Fatal(err)
	}
	outputs := waitStack(t, cfn, "shop-dev", cfntypes.StackStatusCreateComplete)

	fn := outputs["FunctionName"]
	lc := lambda.NewFromConfig(cfg)
	if _, err := lc.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(fn)}); err != nil {
		t.Fatalf("function %s, which the stack created, is not in Lambda: %v", fn, err)
	}
	res, err := lc.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(fn), Payload: []byte(`{"ping":1}`), LogType: lambdatypes.LogTypeTail})
	if err != nil {
		t.Fatalf("invoke %s, which the stack created: %v", fn, err)
	}
	tail, _ := base64.StdEncoding.DecodeString(aws.ToString(res.LogResult))
	if string(res.Payload) != `{"ping":1}` || !strings.Contains(string(tail), "START RequestId:") || !strings.Contains(string(tail), noCode) {
		t.Errorf("invoke: payload %s, log tail %q; want the event back and the START and no-code lines", res.Payload, tail)
	}
	logs, err := cloudwatchlogs.NewFromConfig(cfg).FilterLogEvents(ctx, &cloudwatchlogs.FilterLogEventsInput{LogGroupName: aws.String("/aws/lambda/" + fn)})
	if err != nil {
		t.Fatalf("the invocation's log group: %v", err)
	}
	var lines []string
	for _, e := range logs.Events {
		lines = append(lines, aws.ToString(e.Message))
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "START RequestId:") || lines[1] != noCode {
		t.Errorf("log events %q, want START, the no-code line, END, REPORT", lines)
	}

	call := awscall.FromEnv()
	call.Region = cfg.Region
	call.Credentials = awscall.Credentials{AccessKeyID: "AKIASTANDIN", SecretAccessKey: "standin-secret"}
	secret := outputs["SecretName"]
	if err := call.Call(ctx, "secretsmanager", "PutSecretValue", map[string]any{"SecretId": secret, "SecretString": "s3cret"}, nil); err != nil {
		t.Fatalf("set secret %s, which the stack created: %v", secret, err)
	}
	param := outputs["ParameterName"]
	if err := call.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": param, "Value": "on", "Overwrite": true}, nil); err != nil {
		t.Fatalf("set parameter %s, which the stack created: %v", param, err)
	}
	var got struct{ Parameter struct{ Version int64 } }
	if err := call.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": param}, &got); err != nil || got.Parameter.Version != 2 {
		t.Errorf("parameter %s: version %d, %v; want 2 (created by the stack, then set)", param, got.Parameter.Version, err)
	}

	if _, err := cfn.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String("shop-dev")}); err != nil {
		t.Fatal(err)
	}
	waitStack(t, cfn, "shop-dev", cfntypes.StackStatusDeleteComplete)
	if _, err := lc.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(fn)}); err == nil {
		t.Errorf("function %s is still in Lambda after its stack was deleted", fn)
	}
}

// waitStack polls the stack (the stand-in moves it on one step per call)
// until it reaches status, and returns its outputs.
func waitStack(t *testing.T, cfn *cloudformation.Client, name string, status cfntypes.StackStatus) map[string]string {
	t.Helper()
	for {
		out, err := cfn.DescribeStacks(context.Background(), &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		st := out.Stacks[0]
		if st.StackStatus == status {
			outputs := map[string]string{}
			for _, o := range st.Outputs {
				outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
			}
			return outputs
		}
		if s := string(st.StackStatus); strings.HasSuffix(s, "FAILED") || strings.Contains(s, "ROLLBACK") {
			t.Fatalf("stack %s: %s: %s", name, s, aws.ToString(st.StackStatusReason))
		}
	}
}

// A port in use is refused with the flag that chooses another.
func TestStandinsPortTaken(t *testing.T) {
	var notice bytes.Buffer
	s, err := start(options{dir: t.TempDir()}, &notice)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	port := 0
	fmt.Sscanf(s.cfnURL[strings.LastIndexByte(s.cfnURL, ':')+1:], "%d", &port)
	if _, err := start(options{port: port, dir: t.TempDir()}, &notice); err == nil || !strings.Contains(err.Error(), "-port N") {
		t.Errorf("a taken port: %v, want an error naming -port", err)
	}
}

// Without moto the stand-ins say so, and what works without it, and serve
// CloudFormation, STS and S3.
func TestStandinsWithoutMoto(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // neither moto_server nor python3
	var notice bytes.Buffer
	s, err := start(options{dir: t.TempDir()}, &notice)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	for _, want := range []string{"moto is not installed", "pip install", "invoke, logs, deploy --hotswap and --watch, and secret set --stage need moto"} {
		if !strings.Contains(notice.String(), want) {
			t.Errorf("notice lacks %q:\n%s", want, notice.String())
		}
	}
	if s.env["AWS_ENDPOINT_URL"] != "" || !strings.Contains(s.summary(), "no moto") {
		t.Errorf("without moto: AWS_ENDPOINT_URL %q, summary %q", s.env["AWS_ENDPOINT_URL"], s.summary())
	}
	for k, v := range s.env {
		t.Setenv(k, v)
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := s3c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("assets")}); err != nil {
		t.Errorf("S3 without moto: %v", err)
	}
}
