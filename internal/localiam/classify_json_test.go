package localiam

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The JSON services' requests (DynamoDB and its Streams, Secrets Manager,
// SSM) give the action and resource IAM evaluates; what the check cannot
// read with certainty is refused, saying why.
func TestClassifyJSONServices(t *testing.T) {
	const (
		table  = "arn:aws:dynamodb:us-east-1:123456789012:table/"
		stream = "arn:aws:dynamodb:us-east-1:123456789012:table/todos/stream/2026-01-02T03:04:05.678"
		secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:"
		param  = "arn:aws:ssm:us-east-1:123456789012:parameter"
	)
	stmt := func(s string) string {
		b, _ := json.Marshal(map[string]string{"Statement": s})
		return string(b)
	}
	cases := []struct {
		name, service, target, body string
		want                        string // the checks, or the refusal's why (a part of it) after "refused: "
	}{
		// PartiQL: the table (and index) and the action of each statement.
		{"PartiQL SELECT", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos" WHERE id = ?`),
			"dynamodb:PartiQLSelect " + table + "todos"},
		{"PartiQL select, unquoted, lower case", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt("select id, done\n from Todos where id=?"),
			"dynamodb:PartiQLSelect " + table + "Todos"},
		{"PartiQL SELECT on an index", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos"."by-user" WHERE owner = ? ORDER BY at DESC`),
			"dynamodb:PartiQLSelect " + table + "todos/index/by-user"},
		{"PartiQL keywords in strings and quoted names", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT "FROM", "a""b" FROM "todos" WHERE x = 'FROM "secret"' AND y = 'it''s'`),
			"dynamodb:PartiQLSelect " + table + "todos"},
		{"PartiQL INSERT", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`INSERT INTO "todos" VALUE {'id': ?, 'note': 'from the select'}`),
			"dynamodb:PartiQLInsert " + table + "todos"},
		{"PartiQL UPDATE", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`update todos SET done = true WHERE id = ?`),
			"dynamodb:PartiQLUpdate " + table + "todos"},
		{"PartiQL DELETE", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`DELETE FROM "my-table_1" WHERE id = ?`),
			"dynamodb:PartiQLDelete " + table + "my-table_1"},
		{"BatchExecuteStatement", "dynamodb", "DynamoDB_20120810.BatchExecuteStatement",
			`{"Statements":[{"Statement":"SELECT * FROM \"todos\" WHERE id = ?","Parameters":[{"S":"1"}]},{"Statement":"DELETE FROM \"jobs\" WHERE id = ?"}]}`,
			"dynamodb:PartiQLSelect " + table + "todos; dynamodb:PartiQLDelete " + table + "jobs"},
		{"ExecuteTransaction", "dynamodb", "DynamoDB_20120810.ExecuteTransaction",
			`{"TransactStatements":[{"Statement":"INSERT INTO \"todos\" VALUE {'id': ?}"},{"Statement":"UPDATE \"jobs\" SET n = 1 WHERE id = ?"}]}`,
			"dynamodb:PartiQLInsert " + table + "todos; dynamodb:PartiQLUpdate " + table + "jobs"},
		{"PartiQL comment", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos" -- WHERE`), "refused: comment"},
		{"PartiQL block comment", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM /* x */ "secret"`), "refused: comment"},
		{"PartiQL two statements", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos"; DELETE FROM "secret" WHERE id = 1`), `refused: ";"`},
		{"PartiQL nested SELECT", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos" WHERE id IN (SELECT id FROM "secret")`), "refused: nested statement"},
		{"PartiQL SELECT in the projection", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT (SELECT * FROM "secret") FROM "todos"`), "refused: nested statement"},
		{"PartiQL two tables", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos", "secret"`), "refused: only when WHERE or ORDER follows"},
		{"PartiQL unquoted index", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM todos.byUser`), `refused: FROM "table"."index"`},
		{"PartiQL index apart from its table", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos" . "byUser"`), "refused: glued"},
		{"PartiQL index of an INSERT", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`INSERT INTO "todos"."byUser" VALUE {'id': 1}`), "refused: SELECT ... FROM"},
		{"PartiQL dotted table name", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos.byUser"`), "refused: not a table name"},
		{"PartiQL odd table name", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "to dos"`), "refused: not a table name"},
		{"PartiQL EXISTS", "dynamodb", "DynamoDB_20120810.ExecuteTransaction", `{"TransactStatements":[{"Statement":"EXISTS(SELECT * FROM \"secret\" WHERE id = 1)"}]}`,
			"refused: TransactStatements[0]: the check does not model EXISTS"},
		{"PartiQL RETURNING", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`UPDATE "todos" SET n = 1 WHERE id = 1 RETURNING ALL OLD *`), "refused: RETURNING"},
		{"PartiQL Ion literal", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt("INSERT INTO \"todos\" VALUE `{id: 1}`"), "refused: backticks"},
		{"PartiQL unterminated quote", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`SELECT * FROM "todos`), "refused: unterminated"},
		{"PartiQL other statement", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt(`UPSERT INTO "todos" VALUE {'id': 1}`), "refused: not a SELECT"},
		{"PartiQL non-ASCII outside quotes", "dynamodb", "DynamoDB_20120810.ExecuteStatement", stmt("SELECT * FROM\u00a0\"todos\""), "refused: outside quotes"},
		{"PartiQL no statement", "dynamodb", "DynamoDB_20120810.BatchExecuteStatement", `{"Statements":[]}`, "refused: no statement"},
		{"PartiQL a forbidden statement among allowed ones", "dynamodb", "DynamoDB_20120810.BatchExecuteStatement",
			`{"Statements":[{"Statement":"SELECT * FROM \"todos\""},{"Statement":"SELECT * FROM \"todos\"; SELECT * FROM \"secret\""}]}`, `refused: Statements[1]`},

		// Parser differentials: the body is read as the service reads it.
		{"a key in another case beside the parameter", "dynamodb", "DynamoDB_20120810.PutItem", `{"TableName":"other","tablename":"data","Item":{}}`,
			`refused: "tablename" differs only in case from the parameter TableName`},
		{"a lone key in another case", "dynamodb", "DynamoDB_20120810.PutItem", `{"tablename":"todos","Item":{}}`, `refused: spell it TableName`},
		{"a key in another case, nested", "dynamodb", "DynamoDB_20120810.TransactWriteItems", `{"TransactItems":[{"Put":{"tableName":"todos"}}]}`, `refused: spell it TableName`},
		{"a key that folds to the parameter (long s)", "secretsmanager", "secretsmanager.GetSecretValue", `{"\u017fecretId":"other"}`, `refused: spell it SecretId`},
		{"NaN elsewhere in the body", "dynamodb", "DynamoDB_20120810.PutItem", `{"TableName":"todos","Item":{"n":{"N":NaN}}}`, "refused: not valid JSON"},
		{"a key twice", "ssm", "AmazonSSM.GetParameter", `{"Name":"/app/flag","N\u0061me":"/app/other"}`, `refused: holds the key "Name" twice`},
		{"a lone surrogate", "dynamodb", "DynamoDB_20120810.GetItem", `{"TableName":"todos\udc00"}`, "refused: lone low surrogate"},
		{"attributes in case variants", "dynamodb", "DynamoDB_20120810.PutItem", `{"TableName":"todos","Item":{"id":{"S":"1"},"ID":{"S":"2"}}}`,
			"dynamodb:PutItem " + table + "todos"},
		{"a pair of surrogates", "dynamodb", "DynamoDB_20120810.PutItem", `{"TableName":"todos","Item":{"id":{"S":"\ud83d\ude00"}}}`,
			"dynamodb:PutItem " + table + "todos"},
		{"another service's target", "dynamodb", "AmazonSSM.GetParameter", `{"Name":"/app/flag"}`, "refused: not a DynamoDB"},

		// DynamoDB's operations.
		{"UpdateItem returning values", "dynamodb", "DynamoDB_20120810.UpdateItem", `{"TableName":"todos","Key":{},"ReturnValues":"ALL_OLD"}`,
			"dynamodb:UpdateItem " + table + "todos"},
		{"Scan of an index", "dynamodb", "DynamoDB_20120810.Scan", `{"TableName":"todos","IndexName":"byUser"}`, "dynamodb:Scan " + table + "todos/index/byUser"},
		{"TransactGetItems", "dynamodb", "DynamoDB_20120810.TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"todos","Key":{}}}]}`,
			"dynamodb:GetItem " + table + "todos"},
		{"TransactWriteItems Update and ConditionCheck", "dynamodb", "DynamoDB_20120810.TransactWriteItems",
			`{"TransactItems":[{"Update":{"TableName":"todos"}},{"ConditionCheck":{"TableName":"jobs"}},{"Delete":{"TableName":"a1"}}]}`,
			"dynamodb:UpdateItem " + table + "todos; dynamodb:ConditionCheckItem " + table + "jobs; dynamodb:DeleteItem " + table + "a1"},
		{"TransactWriteItems without a table", "dynamodb", "DynamoDB_20120810.TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"todos"}},{"Update":{}}]}`,
			"refused: TransactItems[1]: the request names no table"},
		{"TransactWriteItems of an unknown kind", "dynamodb", "DynamoDB_20120810.TransactWriteItems", `{"TransactItems":[{"Upsert":{"TableName":"secret"}}]}`, `refused: "Upsert"`},
		{"TransactWriteItems of two kinds at once", "dynamodb", "DynamoDB_20120810.TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"todos"},"Delete":{"TableName":"secret"}}]}`,
			"refused: holds 2 actions"},
		{"TransactGetItems with a write", "dynamodb", "DynamoDB_20120810.TransactGetItems", `{"TransactItems":[{"Put":{"TableName":"todos"}}]}`, "refused: does not take"},
		{"a table name the service would not take", "dynamodb", "DynamoDB_20120810.GetItem", `{"TableName":"todos/../secret"}`, "refused: not a DynamoDB table name"},
		{"an unknown operation", "dynamodb", "DynamoDB_20120810.RestoreTableFromBackup", `{"TargetTableName":"secret"}`, "refused: does not model DynamoDB's RestoreTableFromBackup"},
		{"tags of a non-table", "dynamodb", "DynamoDB_20120810.ListTagsOfResource", `{"ResourceArn":"*"}`, "refused: not a DynamoDB table's ARN"},

		// DynamoDB Streams.
		{"ListStreams", "dynamodb", "DynamoDBStreams_20120810.ListStreams", `{"TableName":"todos"}`, "dynamodb:ListStreams *"},
		{"DescribeStream", "dynamodb", "DynamoDBStreams_20120810.DescribeStream", `{"StreamArn":"` + stream + `"}`, "dynamodb:DescribeStream " + stream},
		{"GetShardIterator", "dynamodb", "DynamoDBStreams_20120810.GetShardIterator", `{"StreamArn":"` + stream + `","ShardId":"s","ShardIteratorType":"TRIM_HORIZON"}`,
			"dynamodb:GetShardIterator " + stream},
		{"GetRecords", "dynamodb", "DynamoDBStreams_20120810.GetRecords", `{"ShardIterator":"` + stream + `|1|AAAAAAAAAAEvJp6D+zaQ"}`, "dynamodb:GetRecords " + stream},
		{"GetRecords of an opaque iterator", "dynamodb", "DynamoDBStreams_20120810.GetRecords", `{"ShardIterator":"AAAAAAAAAAEvJp6D+zaQ"}`, "refused: cannot tell which stream"},
		{"GetRecords of an iterator naming a table", "dynamodb", "DynamoDBStreams_20120810.GetRecords", `{"ShardIterator":"` + table + `todos|1|AAAA"}`, "refused: cannot tell which stream"},
		{"DescribeStream of a table", "dynamodb", "DynamoDBStreams_20120810.DescribeStream", `{"StreamArn":"` + table + `todos"}`, "refused: not a DynamoDB stream's ARN"},

		// Secrets Manager.
		{"BatchGetSecretValue", "secretsmanager", "secretsmanager.BatchGetSecretValue", `{"SecretIdList":["app-dev-token","` + secret + `other-XyZ789"]}`,
			"secretsmanager:BatchGetSecretValue *; secretsmanager:GetSecretValue " + secret + "app-dev-token-AbC123; secretsmanager:GetSecretValue " + secret + "other-XyZ789"},
		{"BatchGetSecretValue with Filters", "secretsmanager", "secretsmanager.BatchGetSecretValue", `{"Filters":[{"Key":"name","Values":["app"]}]}`, "refused: Filters"},
		{"BatchGetSecretValue of nothing", "secretsmanager", "secretsmanager.BatchGetSecretValue", `{}`, "refused: names no secret"},
		{"a declared secret by partial ARN", "secretsmanager", "secretsmanager.GetSecretValue", `{"SecretId":"` + secret + `app-dev-token"}`,
			"secretsmanager:GetSecretValue " + secret + "app-dev-token-AbC123"},
		{"an undeclared secret by partial ARN", "secretsmanager", "secretsmanager.GetSecretValue", `{"SecretId":"` + secret + `other"}`,
			"secretsmanager:GetSecretValue " + secret + "other"},
		{"a complete ARN is not resolved", "secretsmanager", "secretsmanager.GetSecretValue", `{"SecretId":"` + secret + `app-dev-token-Zzz999"}`,
			"secretsmanager:GetSecretValue " + secret + "app-dev-token-Zzz999"},
		{"a partial ARN in another account", "secretsmanager", "secretsmanager.GetSecretValue", `{"SecretId":"arn:aws:secretsmanager:us-east-1:999999999999:secret:app-dev-token"}`,
			"secretsmanager:GetSecretValue arn:aws:secretsmanager:us-east-1:999999999999:secret:app-dev-token"},
		{"a secret ARN with a colon in its name", "secretsmanager", "secretsmanager.GetSecretValue", `{"SecretId":"` + secret + `app-dev-token:other"}`, "refused: not a secret's name nor its ARN"},
		{"no secret", "secretsmanager", "secretsmanager.DescribeSecret", `{}`, "refused: names no secret"},
		{"an unknown Secrets Manager operation", "secretsmanager", "secretsmanager.ReplicateSecretToRegions", `{"SecretId":"x"}`, "refused: does not model Secrets Manager's ReplicateSecretToRegions"},

		// SSM.
		{"a parameter's version", "ssm", "AmazonSSM.GetParameter", `{"Name":"/app/flag:3"}`, "ssm:GetParameter " + param + "/app/flag"},
		{"a parameter by ARN and label", "ssm", "AmazonSSM.GetParameter", `{"Name":"` + param + `/app/flag:prod"}`, "ssm:GetParameter " + param + "/app/flag"},
		{"GetParametersByPath, recursive", "ssm", "AmazonSSM.GetParametersByPath", `{"Path":"/app","Recursive":true}`, "ssm:GetParametersByPath " + param + "/app"},
		{"GetParametersByPath of a name", "ssm", "AmazonSSM.GetParametersByPath", `{"Path":"app"}`, "refused: not a parameter path"},
		{"GetParameters of nothing", "ssm", "AmazonSSM.GetParameters", `{"Names":[]}`, "refused: names no parameter"},
		{"two selectors", "ssm", "AmazonSSM.GetParameter", `{"Name":"/app/flag:1:2"}`, "refused: not a parameter's name"},
		{"an unknown SSM operation", "ssm", "AmazonSSM.SendCommand", `{"DocumentName":"x"}`, "refused: does not model SSM's SendCommand"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Classify(jsonReq(tc.target, tc.body), []byte(tc.body), tc.service, testEnv)
			got := checks(c)
			if err != nil {
				var u *Unmodeled
				if !errors.As(err, &u) {
					t.Fatalf("error %v is not an *Unmodeled", err)
				}
				got = "refused: " + u.Why
			}
			want, refused := strings.CutPrefix(tc.want, "refused: ")
			switch {
			case refused && (err == nil || !strings.Contains(got, want)):
				t.Errorf("got %q, want it refused saying %q", got, want)
			case !refused && got != tc.want:
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
