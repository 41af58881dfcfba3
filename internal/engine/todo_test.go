package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthTodoExample synthesizes examples/todo, the app that owns a
// table, a queue, a topic, a bucket and a secret: the stage's stack holds
// each of them, cfn-lint finds no error, and no IAM statement grants an
// action of their services on "*": each names the resources it is for.
func TestSynthTodoExample(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	res, err := Synth(context.Background(), Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "todo"), OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	count := map[string]int{}
	for _, r := range tpl.Resources {
		count[r.Type]++
	}
	// Each queue comes with its dead-letter queue (MaxReceiveCount 3).
	for typ, n := range map[string]int{"AWS::DynamoDB::Table": 1, "AWS::SQS::Queue": 4, "AWS::SNS::Topic": 1, "AWS::S3::Bucket": 1, "AWS::SecretsManager::Secret": 1} {
		if count[typ] != n {
			t.Errorf("%d %s in the stack, want %d", count[typ], typ, n)
		}
	}
	services := []string{"dynamodb:", "sqs:", "sns:", "s3:", "secretsmanager:", "ssm:"}
	checked := 0
	for id, r := range tpl.Resources {
		if r.Type != "AWS::IAM::Policy" {
			continue
		}
		doc, _ := r.Properties["PolicyDocument"].(map[string]any)
		stmts, _ := doc["Statement"].([]any)
		for _, s := range stmts {
			st, _ := s.(map[string]any)
			actions := listOf(st["Action"])
			if !slices.ContainsFunc(actions, func(a string) bool {
				return slices.ContainsFunc(services, func(p string) bool { return strings.HasPrefix(a, p) })
			}) {
				continue
			}
			checked++
			for _, res := range anyList(st["Resource"]) {
				if res == "*" {
					t.Errorf("%s grants %v on \"*\": it must name the declared resource", id, actions)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no IAM statement grants an action on the declared resources: the test checks nothing")
	}
	// The table has its global index, and the functions that may query
	// the table may query its indexes: their statements name the index
	// ARNs (<table arn>/index/*).
	for _, r := range tpl.Resources {
		if r.Type == "AWS::DynamoDB::Table" {
			if b, _ := json.Marshal(r.Properties["GlobalSecondaryIndexes"]); !strings.Contains(string(b), `"IndexName":"byOwner"`) {
				t.Errorf("table's global indexes %s, want byOwner", b)
			}
		}
	}
	indexGrants := 0
	for _, r := range tpl.Resources {
		b, _ := json.Marshal(r.Properties["Policies"])
		if r.Type == "AWS::IAM::Role" && strings.Contains(string(b), `"dynamodb:Query"`) {
			if !strings.Contains(string(b), `"/index/*"`) {
				t.Errorf("a role grants dynamodb:Query but not on the table's indexes: %s", b)
			}
			indexGrants++
		}
	}
	if indexGrants == 0 {
		t.Error("no role may query the table")
	}
	t.Logf("%d IAM statements grant actions on the declared resources' services, none on \"*\"", checked)
	checkTodoTopicsBuckets(t, tpl)
	cfnLint(t, res.TemplatePath)
}

// listOf reads an IAM Action, a string or a list of strings.
func listOf(v any) []string {
	var out []string
	for _, x := range anyList(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// anyList reads a value that IAM allows as one item or a list of them.
func anyList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}
