package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOfficialCDKSynth runs the official CDK CLI (`cdk synth`) from the
// repository root, where cdk.json runs this app, and checks the template it
// writes: the app's own table, the embedded function with the table's name
// in its environment and access to the table, and the REST API.
func TestOfficialCDKSynth(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cdk := filepath.Join(root, "test", ".cdk-cli", "node_modules", ".bin", "cdk")
	if _, err := os.Stat(cdk); err != nil {
		t.Skipf("the official CDK CLI is not installed at %s: run `make test-deps` (it installs aws-cdk into test/.cdk-cli)", cdk)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cdk, "synth", "--output", out, "--no-notices", "--no-version-reporting", "--quiet")
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20",
		"CDK_DISABLE_CLI_TELEMETRY=true",
		"FRAMEWORK_CACHE_DIR="+t.TempDir(),
	)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cdk synth: %v\n%s", err, stderr.String())
	}

	raw, err := os.ReadFile(filepath.Join(out, StackName+".template.json"))
	if err != nil {
		t.Fatalf("cdk synth wrote no template for %s: %v\n%s", StackName, err, stderr.String())
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	byType := map[string][]string{}
	for id, r := range tpl.Resources {
		byType[r.Type] = append(byType[r.Type], id)
	}
	for typ, n := range map[string]int{
		"AWS::DynamoDB::Table": 1, "AWS::Lambda::Function": 1, "AWS::ApiGateway::RestApi": 1,
		"AWS::ApiGateway::Stage": 1, "AWS::IAM::Role": 1, "AWS::Lambda::Permission": 1,
	} {
		if len(byType[typ]) != n {
			t.Errorf("%d resources of type %s, want %d (all: %v)", len(byType[typ]), typ, n, byType)
		}
	}
	if len(byType["AWS::DynamoDB::Table"]) != 1 || len(byType["AWS::Lambda::Function"]) != 1 {
		t.FailNow()
	}
	table := byType["AWS::DynamoDB::Table"][0]

	fn := tpl.Resources[byType["AWS::Lambda::Function"][0]].Properties
	env, _ := fn["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	ref, _ := vars[TableEnv].(map[string]any)
	if ref["Ref"] != table {
		t.Errorf("function environment %v, want %s = {Ref: %s}", env, TableEnv, table)
	}
	if fn["Runtime"] != "provided.al2023" || fn["Handler"] != "bootstrap" {
		t.Errorf("function runtime %v handler %v", fn["Runtime"], fn["Handler"])
	}

	// The host app's grant lands on the construct's role.
	granted := false
	for _, id := range byType["AWS::IAM::Policy"] {
		doc, _ := json.Marshal(tpl.Resources[id].Properties)
		if strings.Contains(string(doc), "dynamodb:PutItem") && strings.Contains(string(doc), table) {
			granted = true
		}
	}
	if !granted {
		t.Errorf("no IAM policy grants the function read/write on %s", table)
	}

	api := tpl.Resources[byType["AWS::ApiGateway::RestApi"][0]].Properties
	body, _ := api["Body"].(map[string]any)
	paths, _ := body["paths"].(map[string]any)
	for _, p := range []string{"/", "/users/{name}", "/binary", "/cors"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("REST API body lacks the kitchensink path %s", p)
		}
	}
}
