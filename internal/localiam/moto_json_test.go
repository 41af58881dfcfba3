package localiam

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// motoProxy is a proxy in front of moto checking function api's calls
// against stmts, with the function's clients (configured from Environ)
// and moto's own (to read its state around the proxy).
type motoProxy struct {
	moto   *mototest.Server
	proxy  *Proxy
	rec    *recorder
	ddb    *dynamodb.Client // api's, through the proxy
	call   awscall.Config   // api's, through the proxy
	direct *dynamodb.Client // moto's, around the proxy
	moto2  awscall.Config   // moto's, around the proxy
}

func startMotoProxy(t *testing.T, stmts []Statement, env Env) *motoProxy {
	t.Helper()
	moto := mototest.Start(t)
	motoCreds := awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}
	env.Region, env.Account = mototest.Region, mototest.AccountID
	rec := &recorder{}
	p, err := Start(Options{Target: Target{Upstream: moto.URL, Region: mototest.Region, Env: env,
		Policies:    StaticPolicies{"api": stmts},
		Credentials: func(context.Context) (awscall.Credentials, error) { return motoCreds, nil }},
		Denied: func(d Denied) { rec.mu.Lock(); rec.denied = append(rec.denied, d); rec.mu.Unlock() },
		Unmodeled: func(fn string, u *Unmodeled) {
			rec.mu.Lock()
			rec.unmodeled = append(rec.unmodeled, fn+" "+u.Service+" "+u.Operation+": "+u.Why)
			rec.mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return &motoProxy{moto: moto, proxy: p, rec: rec,
		ddb: dynamodb.NewFromConfig(sdkConfig(p, "api")),
		call: awscall.Config{Region: mototest.Region, Endpoint: envOf(p, "api", "AWS_ENDPOINT_URL"),
			Credentials: awscall.Credentials{AccessKeyID: envOf(p, "api", "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, "api", "AWS_SECRET_ACCESS_KEY")}},
		direct: dynamodb.NewFromConfig(moto.Config()),
		moto2:  awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: motoCreds},
	}
}

// checked fails the test when a call was refused as unmodelled: every call
// these tests make is one the check models.
func (m *motoProxy) checked(t *testing.T) {
	t.Helper()
	m.rec.mu.Lock()
	defer m.rec.mu.Unlock()
	if len(m.rec.unmodeled) > 0 {
		t.Errorf("calls refused as unmodelled: %q", m.rec.unmodeled)
	}
}

func denied(err error) bool {
	return errorCode(err) == "AccessDeniedException" || awscall.IsCode(err, "AccessDeniedException")
}

const motoTable = "arn:aws:dynamodb:us-east-1:123456789012:table/"

// createTable creates table name in moto (key id, an index byOwner on
// owner, a stream of new images) with items, and returns its stream's ARN.
func createTable(t *testing.T, c *dynamodb.Client, name string, items ...map[string]string) string {
	t.Helper()
	ctx := context.Background()
	s := func(v string) *string { return aws.String(v) }
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: s(name), BillingMode: ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: s("id"), AttributeType: ddbtypes.ScalarAttributeTypeS}, {AttributeName: s("owner"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: s("id"), KeyType: ddbtypes.KeyTypeHash}},
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{{IndexName: s("byOwner"), KeySchema: []ddbtypes.KeySchemaElement{{AttributeName: s("owner"), KeyType: ddbtypes.KeyTypeHash}},
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}}},
		StreamSpecification: &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewImage}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		item := map[string]ddbtypes.AttributeValue{}
		for k, v := range it {
			item[k] = &ddbtypes.AttributeValueMemberS{Value: v}
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: s(name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

// itemAttr is attribute attr of table's item id in moto ("" when there is
// no such item, or it lacks attr).
func itemAttr(t *testing.T, c *dynamodb.Client, table, id, attr string) string {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberS{Value: id}}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := out.Item[attr].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// PartiQL through the proxy: statements on the table (and index) the
// role allows reach moto; one on another table gets AccessDeniedException,
// alone, in a batch or in a transaction, and moto's tables are unchanged.
func TestMotoPartiQL(t *testing.T) {
	m := startMotoProxy(t, []Statement{{
		Actions:   []string{"dynamodb:PartiQLSelect", "dynamodb:PartiQLInsert", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete"},
		Resources: []string{motoTable + "todos", motoTable + "todos/index/*"},
	}}, Env{})
	createTable(t, m.direct, "todos", map[string]string{"id": "1", "owner": "ann", "note": "todo"})
	createTable(t, m.direct, "secret", map[string]string{"id": "s1", "owner": "root", "v": "hidden"})
	ctx := context.Background()
	exec := func(stmt string) (*dynamodb.ExecuteStatementOutput, error) {
		return m.ddb.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)})
	}
	tx := func(stmts ...string) error {
		var in []ddbtypes.ParameterizedStatement
		for _, s := range stmts {
			in = append(in, ddbtypes.ParameterizedStatement{Statement: aws.String(s)})
		}
		_, err := m.ddb.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: in})
		return err
	}

	// Allowed.
	out, err := exec(`SELECT * FROM "todos" WHERE id = '1'`)
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("allowed SELECT: %v (%d items), want the item", err, len(out.Items))
	}
	if _, err := exec(`INSERT INTO todos VALUE {'id': '2', 'owner': 'bob'}`); err != nil {
		t.Fatalf("allowed INSERT: %v", err)
	}
	if got := itemAttr(t, m.direct, "todos", "2", "owner"); got != "bob" {
		t.Errorf("after the allowed INSERT, moto's todos/2 has owner %q, want bob", got)
	}
	if err := tx(`UPDATE "todos" SET note = 'done' WHERE id = '1'`); err != nil {
		t.Fatalf("allowed ExecuteTransaction: %v", err)
	}
	if got := itemAttr(t, m.direct, "todos", "1", "note"); got != "done" {
		t.Errorf("after the allowed transaction, moto's todos/1 has note %q, want done", got)
	}
	// moto 5.2's PartiQL does not find "table"."index" (it answers
	// ResourceNotFoundException): the allowed call reaches it all the same.
	if _, err := exec(`SELECT * FROM "todos"."byOwner" WHERE owner = 'ann'`); denied(err) {
		t.Errorf("allowed SELECT on the index: %v, want it sent to moto", err)
	}

	// Refused, and moto unchanged.
	if out, err := exec(`SELECT * FROM "secret"`); !denied(err) {
		t.Errorf("SELECT of the forbidden table: %v (%d items), want AccessDeniedException", err, len(out.Items))
	}
	if _, err := exec(`SELECT * FROM "secret"."byOwner" WHERE owner = 'root'`); !denied(err) {
		t.Errorf("SELECT on the forbidden table's index: %v, want AccessDeniedException", err)
	}
	if _, err := exec(`insert into secret value {'id': 'planted', 'owner': 'x'}`); !denied(err) {
		t.Errorf("INSERT into the forbidden table: %v, want AccessDeniedException", err)
	}
	_, err = m.ddb.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []ddbtypes.BatchStatementRequest{
		{Statement: aws.String(`INSERT INTO "todos" VALUE {'id': '3', 'owner': 'x'}`)},
		{Statement: aws.String(`INSERT INTO "secret" VALUE {'id': 'planted', 'owner': 'x'}`)},
	}})
	if !denied(err) {
		t.Errorf("BatchExecuteStatement with a forbidden statement: %v, want AccessDeniedException", err)
	}
	if err := tx(`UPDATE "secret" SET v = 'changed' WHERE id = 's1'`); !denied(err) {
		t.Errorf("ExecuteTransaction updating the forbidden table: %v, want AccessDeniedException", err)
	}
	if _, err := exec(`DELETE FROM "secret" WHERE id = 's1'`); !denied(err) {
		t.Errorf("DELETE from the forbidden table: %v, want AccessDeniedException", err)
	}
	if got := itemAttr(t, m.direct, "secret", "planted", "owner"); got != "" {
		t.Errorf("moto's secret table got the planted item")
	}
	if got := itemAttr(t, m.direct, "todos", "3", "owner"); got != "" {
		t.Errorf("moto's todos got the batch's allowed statement: the batch went through")
	}
	if got := itemAttr(t, m.direct, "secret", "s1", "v"); got != "hidden" {
		t.Errorf("moto's secret/s1 has v %q, want it unchanged (hidden)", got)
	}
	m.checked(t)
	lines := strings.Join(m.rec.deniedLines(), "\n")
	for _, want := range []string{"PartiQLSelect on " + motoTable + "secret:", "PartiQLSelect on " + motoTable + "secret/index/byOwner:",
		"PartiQLInsert on " + motoTable + "secret:", "PartiQLUpdate on " + motoTable + "secret:", "PartiQLDelete on " + motoTable + "secret:"} {
		if !strings.Contains(lines, "may not dynamodb:"+want) {
			t.Errorf("denied lines %q, want one naming dynamodb:%s", lines, strings.TrimSuffix(want, ":"))
		}
	}
}

// DynamoDB Streams reads through the proxy: the role's own stream is
// listed, described and read; another table's stream gets
// AccessDeniedException for GetShardIterator, and for GetRecords with an
// iterator of that stream (got around the proxy), whose records stay
// unread.
func TestMotoDynamoDBStreams(t *testing.T) {
	m := startMotoProxy(t, []Statement{
		{Actions: []string{"dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"}, Resources: []string{motoTable + "todos/stream/*"}},
		{Actions: []string{"dynamodb:ListStreams"}, Resources: []string{"*"}},
	}, Env{})
	own := createTable(t, m.direct, "todos", map[string]string{"id": "1", "owner": "ann"})
	other := createTable(t, m.direct, "secret", map[string]string{"id": "s1", "owner": "root", "v": "hidden"})
	ctx := context.Background()

	var list struct{ Streams []struct{ StreamArn string } }
	if err := m.call.Call(ctx, "dynamodbstreams", "ListStreams", map[string]any{}, &list); err != nil || len(list.Streams) != 2 {
		t.Fatalf("ListStreams: %v (%v), want both streams", err, list.Streams)
	}
	iterator := func(c awscall.Config, stream string) (string, error) {
		var d struct {
			StreamDescription struct{ Shards []struct{ ShardId string } }
		}
		if err := m.moto2.Call(ctx, "dynamodbstreams", "DescribeStream", map[string]string{"StreamArn": stream}, &d); err != nil || len(d.StreamDescription.Shards) == 0 {
			t.Fatalf("DescribeStream in moto: %v %v", err, d)
		}
		var it struct{ ShardIterator string }
		err := c.Call(ctx, "dynamodbstreams", "GetShardIterator", map[string]string{"StreamArn": stream, "ShardId": d.StreamDescription.Shards[0].ShardId, "ShardIteratorType": "TRIM_HORIZON"}, &it)
		return it.ShardIterator, err
	}
	type records struct {
		Records []struct {
			Dynamodb struct{ NewImage map[string]map[string]string }
		}
	}

	// Allowed: the own stream.
	if err := m.call.Call(ctx, "dynamodbstreams", "DescribeStream", map[string]string{"StreamArn": own}, nil); err != nil {
		t.Fatalf("DescribeStream of the own stream: %v", err)
	}
	it, err := iterator(m.call, own)
	if err != nil {
		t.Fatalf("GetShardIterator of the own stream: %v", err)
	}
	var got records
	if err := m.call.Call(ctx, "dynamodbstreams", "GetRecords", map[string]string{"ShardIterator": it}, &got); err != nil {
		t.Fatalf("GetRecords of the own stream (iterator %q): %v", it, err)
	}
	if len(got.Records) != 1 || got.Records[0].Dynamodb.NewImage["owner"]["S"] != "ann" {
		t.Errorf("own stream's records %+v, want the item put", got.Records)
	}

	// Refused: the other table's stream.
	if err := m.call.Call(ctx, "dynamodbstreams", "DescribeStream", map[string]string{"StreamArn": other}, nil); !denied(err) {
		t.Errorf("DescribeStream of another table's stream: %v, want AccessDeniedException", err)
	}
	if _, err := iterator(m.call, other); !denied(err) {
		t.Errorf("GetShardIterator of another table's stream: %v, want AccessDeniedException", err)
	}
	stolen, err := iterator(m.moto2, other)
	if err != nil {
		t.Fatal(err)
	}
	got = records{}
	if err := m.call.Call(ctx, "dynamodbstreams", "GetRecords", map[string]string{"ShardIterator": stolen}, &got); !denied(err) || len(got.Records) > 0 {
		t.Errorf("GetRecords with another stream's iterator: %v (%d records), want AccessDeniedException", err, len(got.Records))
	}
	// The iterator is unused: moto still gives its records to moto's own
	// client, which the proxy never forwarded the refused call to.
	got = records{}
	if err := m.moto2.Call(ctx, "dynamodbstreams", "GetRecords", map[string]string{"ShardIterator": stolen}, &got); err != nil || len(got.Records) != 1 {
		t.Errorf("moto's GetRecords of the other stream: %v (%d records)", err, len(got.Records))
	}
	m.checked(t)
}

// Secrets Manager through the proxy: the declared secret is read by name,
// by partial ARN and in BatchGetSecretValue; another secret, by partial
// ARN or in a batch with the declared one, gets AccessDeniedException, its
// value is not returned, and a write to it changes nothing in moto.
func TestMotoSecrets(t *testing.T) {
	moto2 := func(m *motoProxy, op string, in, out any) {
		t.Helper()
		if err := m.moto2.Call(context.Background(), "secretsmanager", op, in, out); err != nil {
			t.Fatal(err)
		}
	}
	// The declared secret's ARN is known once moto made it: the proxy's
	// Env is set after.
	m := startMotoProxy(t, nil, Env{})
	var own, other struct{ ARN string }
	moto2(m, "CreateSecret", map[string]string{"Name": "app-token", "SecretString": "app-value"}, &own)
	moto2(m, "CreateSecret", map[string]string{"Name": "other-token", "SecretString": "other-value"}, &other)
	m.proxy.SetTarget(Target{Upstream: m.moto.URL, Region: mototest.Region,
		Env: Env{Region: mototest.Region, Account: mototest.AccountID, SecretARNs: map[string]string{"app-token": own.ARN}},
		Policies: StaticPolicies{"api": {
			{Actions: []string{"secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue"}, Resources: []string{own.ARN}},
			{Actions: []string{"secretsmanager:BatchGetSecretValue"}, Resources: []string{"*"}},
		}},
		Credentials: func(context.Context) (awscall.Credentials, error) {
			return awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}, nil
		}})
	ctx := context.Background()
	partial := func(arn string) string { return arn[:len(arn)-7] }
	value := func(id string) (string, error) {
		var v struct{ SecretString string }
		err := m.call.Call(ctx, "secretsmanager", "GetSecretValue", map[string]string{"SecretId": id}, &v)
		return v.SecretString, err
	}

	// Allowed.
	for _, id := range []string{"app-token", own.ARN, partial(own.ARN)} {
		if v, err := value(id); err != nil || v != "app-value" {
			t.Errorf("GetSecretValue of the declared secret as %q: %q, %v", id, v, err)
		}
	}
	var batch struct {
		SecretValues []struct{ Name, SecretString string }
	}
	if err := m.call.Call(ctx, "secretsmanager", "BatchGetSecretValue", map[string]any{"SecretIdList": []string{"app-token"}}, &batch); err != nil ||
		len(batch.SecretValues) != 1 || batch.SecretValues[0].SecretString != "app-value" {
		t.Errorf("BatchGetSecretValue of the declared secret: %v %+v", err, batch.SecretValues)
	}

	// Refused.
	for _, id := range []string{"other-token", other.ARN, partial(other.ARN)} {
		if v, err := value(id); !denied(err) || v != "" {
			t.Errorf("GetSecretValue of another secret as %q: %q, %v, want AccessDeniedException", id, v, err)
		}
	}
	batch.SecretValues = nil
	err := m.call.Call(ctx, "secretsmanager", "BatchGetSecretValue", map[string]any{"SecretIdList": []string{"app-token", partial(other.ARN)}}, &batch)
	if !denied(err) || len(batch.SecretValues) > 0 {
		t.Errorf("BatchGetSecretValue of the declared secret and another: %v %+v, want AccessDeniedException", err, batch.SecretValues)
	}
	if err := m.call.Call(ctx, "secretsmanager", "PutSecretValue", map[string]string{"SecretId": partial(other.ARN), "SecretString": "planted"}, nil); !denied(err) {
		t.Errorf("PutSecretValue of another secret by partial ARN: %v, want AccessDeniedException", err)
	}
	var v struct{ SecretString string }
	moto2(m, "GetSecretValue", map[string]string{"SecretId": "other-token"}, &v)
	if v.SecretString != "other-value" {
		t.Errorf("moto's other-token is %q after the refused write, want it unchanged", v.SecretString)
	}
	m.checked(t)
}

// SSM through the proxy: the parameter the role names is read with a
// version selector and by ARN, its path by GetParametersByPath; another
// parameter gets AccessDeniedException and a write to it changes nothing.
func TestMotoSSM(t *testing.T) {
	const param = "arn:aws:ssm:us-east-1:123456789012:parameter"
	m := startMotoProxy(t, []Statement{
		{Actions: []string{"ssm:GetParameter", "ssm:PutParameter"}, Resources: []string{param + "/app/flag"}},
		{Actions: []string{"ssm:GetParametersByPath"}, Resources: []string{param + "/app"}},
	}, Env{})
	ctx := context.Background()
	for _, p := range [][2]string{{"/app/flag", "on"}, {"/ops/key", "k1"}} {
		if err := m.moto2.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": p[0], "Value": p[1], "Type": "String"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) (string, error) {
		var out struct{ Parameter struct{ Value string } }
		err := m.call.Call(ctx, "ssm", "GetParameter", map[string]string{"Name": name}, &out)
		return out.Parameter.Value, err
	}
	for _, name := range []string{"/app/flag", "/app/flag:1", param + "/app/flag"} {
		if v, err := get(name); err != nil || v != "on" {
			t.Errorf("GetParameter %q: %q, %v, want on", name, v, err)
		}
	}
	var byPath struct{ Parameters []struct{ Name string } }
	if err := m.call.Call(ctx, "ssm", "GetParametersByPath", map[string]any{"Path": "/app", "Recursive": true}, &byPath); err != nil || len(byPath.Parameters) != 1 {
		t.Errorf("GetParametersByPath /app: %v %+v", err, byPath.Parameters)
	}

	for _, name := range []string{"/ops/key", "/ops/key:1", param + "/ops/key"} {
		if v, err := get(name); !denied(err) || v != "" {
			t.Errorf("GetParameter %q: %q, %v, want AccessDeniedException", name, v, err)
		}
	}
	if err := m.call.Call(ctx, "ssm", "GetParametersByPath", map[string]any{"Path": "/ops"}, nil); !denied(err) {
		t.Errorf("GetParametersByPath /ops: %v, want AccessDeniedException", err)
	}
	if err := m.call.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": "/ops/key", "Value": "planted", "Type": "String", "Overwrite": true}, nil); !denied(err) {
		t.Errorf("PutParameter /ops/key: %v, want AccessDeniedException", err)
	}
	var out struct{ Parameter struct{ Value string } }
	if err := m.moto2.Call(ctx, "ssm", "GetParameter", map[string]string{"Name": "/ops/key"}, &out); err != nil || out.Parameter.Value != "k1" {
		t.Errorf("moto's /ops/key is %q (%v) after the refused write, want k1", out.Parameter.Value, err)
	}
	m.checked(t)
}
