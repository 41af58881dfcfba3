package localiam

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// dynamoTableOps are the DynamoDB operations IAM evaluates as their own
// action on the table of TableName.
var dynamoTableOps = map[string]bool{
	"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true,
	"DescribeTable": true, "CreateTable": true, "UpdateTable": true, "DeleteTable": true,
	"DescribeTimeToLive": true, "UpdateTimeToLive": true, "DescribeContinuousBackups": true,
}

// dynamoAccountOps are the DynamoDB operations that name no resource, for
// which IAM evaluates "*".
var dynamoAccountOps = map[string]bool{
	"ListTables": true, "ListBackups": true, "ListGlobalTables": true, "DescribeLimits": true,
	"DescribeEndpoints": true, "ListExports": true, "ListImports": true,
}

// dynamoTransactActions are the actions IAM evaluates for each kind of
// item of TransactGetItems and TransactWriteItems.
var dynamoTransactActions = map[string]map[string]string{
	"TransactGetItems":   {"Get": "GetItem"},
	"TransactWriteItems": {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"},
}

// dynamoName is a DynamoDB table or index name: the characters the
// service allows (its length, 3 to 255, is the service's to check).
var dynamoName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}$`)

// dynamoTableARN is a table's ARN (DynamoDB takes one wherever it takes a
// table's name).
var dynamoTableARN = regexp.MustCompile(`^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{1,255}$`)

// dynamoStreamARN is a stream's ARN: its table's, /stream/ and the label
// (a time stamp).
var dynamoStreamARN = regexp.MustCompile(`^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{1,255}/stream/[A-Za-z0-9:._-]+$`)

func classifyDynamoDB(c *Call, r *http.Request, body []byte, e Env) error {
	prefix, op := target(r)
	c.Operation = op
	if prefix != "DynamoDB_20120810" && prefix != "DynamoDBStreams_20120810" {
		return unmodeled("X-Amz-Target %q is not a DynamoDB or DynamoDB Streams operation", r.Header.Get("X-Amz-Target"))
	}
	var in struct {
		TableName, IndexName, StreamArn, ResourceArn, ShardIterator string
		RequestItems                                                map[string]json.RawMessage
		TransactItems                                               []map[string]struct{ TableName string }
		Statement                                                   string
		Statements, TransactStatements                              []struct{ Statement string }
	}
	if err := decodeJSON(body, &in); err != nil {
		return err
	}
	table := func(name string) (string, error) {
		switch {
		case dynamoTableARN.MatchString(name):
			return name, nil
		case dynamoName.MatchString(name):
			return e.arn("dynamodb", "table/"+name), nil
		case name == "":
			return "", unmodeled("the request names no table (TableName)")
		}
		return "", unmodeled("%q is not a DynamoDB table name nor a table's ARN", name)
	}
	if prefix == "DynamoDBStreams_20120810" {
		return classifyDynamoStreams(c, op, in.StreamArn, in.ShardIterator)
	}
	switch {
	case dynamoAccountOps[op]:
		c.add("dynamodb:"+op, "*")
	case dynamoTableOps[op]:
		res, err := table(in.TableName)
		if err != nil {
			return err
		}
		c.add("dynamodb:"+op, res)
	case op == "Query" || op == "Scan":
		res, err := table(in.TableName)
		if err != nil {
			return err
		}
		if in.IndexName != "" {
			if !dynamoName.MatchString(in.IndexName) {
				return unmodeled("%q is not a DynamoDB index name", in.IndexName)
			}
			res += "/index/" + in.IndexName
		}
		c.add("dynamodb:"+op, res)
	case op == "BatchGetItem" || op == "BatchWriteItem":
		if len(in.RequestItems) == 0 {
			return unmodeled("the request names no table (RequestItems)")
		}
		for name := range in.RequestItems {
			res, err := table(name)
			if err != nil {
				return err
			}
			c.add("dynamodb:"+op, res)
		}
	case op == "TransactGetItems" || op == "TransactWriteItems":
		if len(in.TransactItems) == 0 {
			return unmodeled("the request names no item (TransactItems)")
		}
		actions := dynamoTransactActions[op]
		for i, item := range in.TransactItems {
			if len(item) != 1 {
				return unmodeled("TransactItems[%d] holds %d actions, not one", i, len(item))
			}
			for kind, v := range item {
				a, ok := actions[kind]
				if !ok {
					return unmodeled("TransactItems[%d] is a %q, which %s does not take", i, kind, op)
				}
				res, err := table(v.TableName)
				if err != nil {
					return fmt.Errorf("TransactItems[%d]: %w", i, err)
				}
				c.add("dynamodb:"+a, res)
			}
		}
	case op == "ExecuteStatement":
		return c.addPartiQL(in.Statement, e)
	case op == "BatchExecuteStatement" || op == "ExecuteTransaction":
		list, field := in.Statements, "Statements"
		if op == "ExecuteTransaction" {
			list, field = in.TransactStatements, "TransactStatements"
		}
		if len(list) == 0 {
			return unmodeled("the request holds no statement (%s)", field)
		}
		for i, s := range list {
			if err := c.addPartiQL(s.Statement, e); err != nil {
				return fmt.Errorf("%s[%d]: %w", field, i, err)
			}
		}
	case op == "TagResource" || op == "UntagResource" || op == "ListTagsOfResource":
		if !dynamoTableARN.MatchString(in.ResourceArn) {
			return unmodeled("ResourceArn %q is not a DynamoDB table's ARN", in.ResourceArn)
		}
		c.add("dynamodb:"+op, in.ResourceArn)
	default:
		return unmodeled("the check does not model DynamoDB's %s: it knows the item, query, batch, transaction and PartiQL operations and the table's own", op)
	}
	return nil
}

// classifyDynamoStreams classifies a DynamoDB Streams read: IAM evaluates
// DescribeStream, GetShardIterator and GetRecords on the stream's ARN,
// ListStreams on "*". GetRecords names its stream by its shard iterator
// alone; AWS's iterators (API_streams_GetShardIterator's example) and
// moto's begin with the stream's ARN and a "|", and moto finds the
// iterator by the whole string, so the stream the check reads is the one
// the emulator reads. An iterator of any other form is refused.
func classifyDynamoStreams(c *Call, op, streamARN, iterator string) error {
	switch op {
	case "ListStreams":
		c.add("dynamodb:ListStreams", "*")
	case "DescribeStream", "GetShardIterator":
		if !dynamoStreamARN.MatchString(streamARN) {
			return unmodeled("StreamArn %q is not a DynamoDB stream's ARN", streamARN)
		}
		c.add("dynamodb:"+op, streamARN)
	case "GetRecords":
		arn, _, ok := strings.Cut(iterator, "|")
		if !ok || !dynamoStreamARN.MatchString(arn) {
			return unmodeled("the ShardIterator does not begin with a stream's ARN and \"|\", as GetShardIterator's do: the check cannot tell which stream it reads")
		}
		c.add("dynamodb:GetRecords", arn)
	default:
		return unmodeled("the check does not model DynamoDB Streams' %s: it knows ListStreams, DescribeStream, GetShardIterator and GetRecords", op)
	}
	return nil
}

// addPartiQL adds the check of one PartiQL statement: IAM evaluates
// dynamodb:PartiQLSelect, PartiQLInsert, PartiQLUpdate or PartiQLDelete on
// the table (or the index a SELECT reads) of each statement, for
// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction alike
// (DynamoDB's "IAM security policies with PartiQL").
func (c *Call) addPartiQL(stmt string, e Env) error {
	verb, table, index, err := readPartiQL(stmt)
	if err != nil {
		return err
	}
	res := e.arn("dynamodb", "table/"+table)
	if index != "" {
		res += "/index/" + index
	}
	c.add("dynamodb:PartiQL"+verb, res)
	return nil
}

// pqlToken is one token of a PartiQL statement.
type pqlToken struct {
	kind   byte   // 'w' word, 'q' quoted identifier, 's' string, 'p' punctuation
	text   string // the word, the identifier's name, the string, the punctuation
	glued  bool   // no space before it
	offset int
}

// pqlTokens splits stmt into tokens, refusing what the check will not
// read: comments, a ";" (a second statement), Ion literals in backticks,
// characters outside printable ASCII outside quotes, unterminated quotes.
func pqlTokens(stmt string) ([]pqlToken, error) {
	var out []pqlToken
	glued := false
	for i := 0; i < len(stmt); {
		ch := stmt[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			glued = false
			i++
			continue
		case strings.HasPrefix(stmt[i:], "--") || strings.HasPrefix(stmt[i:], "/*"):
			return nil, unmodeled("the PartiQL statement holds a comment, which the check does not read: remove it")
		case ch == ';':
			return nil, unmodeled("the PartiQL statement holds a \";\": the check reads one statement, without a \";\"")
		case ch == '`':
			return nil, unmodeled("the PartiQL statement holds an Ion literal in backticks, which the check does not read: pass the value as a parameter (?)")
		case ch == '"' || ch == '\'':
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(stmt[j:], ch)
				if k < 0 {
					return nil, unmodeled("the PartiQL statement has an unterminated %c quote", ch)
				}
				b.WriteString(stmt[j : j+k])
				j += k + 1
				if j < len(stmt) && stmt[j] == ch { // a doubled quote is one quote
					b.WriteByte(ch)
					j++
					continue
				}
				break
			}
			kind := byte('q')
			if ch == '\'' {
				kind = 's'
			}
			out = append(out, pqlToken{kind: kind, text: b.String(), glued: glued, offset: i})
			i = j
		case ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch == '_':
			j := i
			for j < len(stmt) && (stmt[j] >= 'A' && stmt[j] <= 'Z' || stmt[j] >= 'a' && stmt[j] <= 'z' || stmt[j] >= '0' && stmt[j] <= '9' || stmt[j] == '_') {
				j++
			}
			out = append(out, pqlToken{kind: 'w', text: stmt[i:j], glued: glued, offset: i})
			i = j
		case ch > ' ' && ch < 0x7f:
			out = append(out, pqlToken{kind: 'p', text: stmt[i : i+1], glued: glued, offset: i})
			i++
		default:
			return nil, unmodeled("the PartiQL statement holds the character %q outside quotes, which the check does not read", rune(ch))
		}
		glued = true
	}
	return out, nil
}

// pqlKeywords are the words that begin a statement or name its table: a
// statement may hold each only where the check reads it.
var pqlKeywords = map[string]bool{"SELECT": true, "FROM": true, "INSERT": true, "INTO": true, "UPDATE": true, "DELETE": true, "EXISTS": true, "RETURNING": true}

// readPartiQL reads the verb (Select, Insert, Update, Delete), the table
// and the index of a PartiQL for DynamoDB statement:
//
//	SELECT expression FROM table[.index] [WHERE ...] [ORDER BY ...]
//	INSERT INTO table VALUE item
//	UPDATE table SET|REMOVE ... [WHERE ...]
//	DELETE FROM table WHERE ...
//
// Keywords are read without regard to case; a table is a quoted
// identifier ("my-table", "" for a quote in it) or an unquoted one
// (letters, digits, _), an index a quoted identifier glued to the table's
// with a dot ("table"."index"), as DynamoDB requires. Anything else it
// cannot read with certainty is refused, saying why: another statement
// form, EXISTS and RETURNING (the actions IAM evaluates for them are not
// documented), a keyword elsewhere (a nested statement), a table name
// with a dot (moto reads "a.b" as table a's index b).
func readPartiQL(stmt string) (verb, table, index string, err error) {
	toks, err := pqlTokens(stmt)
	if err != nil {
		return "", "", "", err
	}
	if len(toks) == 0 {
		return "", "", "", unmodeled("the PartiQL statement is empty")
	}
	kw := func(i int, words ...string) bool {
		if i >= len(toks) || toks[i].kind != 'w' {
			return false
		}
		for _, w := range words {
			if strings.EqualFold(toks[i].text, w) {
				return true
			}
		}
		return false
	}
	used := map[int]bool{} // keyword tokens read where the grammar has them
	var at int             // the table's token
	var next []string      // the words that may follow the table
	switch {
	case kw(0, "SELECT"):
		verb = "Select"
		depth := 0
		at = -1
		for i := 1; i < len(toks); i++ {
			switch t := toks[i]; {
			case t.kind == 'p' && strings.Contains("([{", t.text):
				depth++
			case t.kind == 'p' && strings.Contains(")]}", t.text):
				depth--
			case depth == 0 && kw(i, "FROM"):
				at = i + 1
			}
			if at >= 0 {
				used[i] = true
				break
			}
		}
		if at < 0 {
			return "", "", "", unmodeled("the SELECT statement has no FROM the check can find")
		}
		next = []string{"WHERE", "ORDER"}
	case kw(0, "INSERT") && kw(1, "INTO"):
		verb, at, next = "Insert", 2, []string{"VALUE"}
		used[1] = true
	case kw(0, "UPDATE"):
		verb, at, next = "Update", 1, []string{"SET", "REMOVE"}
	case kw(0, "DELETE") && kw(1, "FROM"):
		verb, at, next = "Delete", 2, []string{"WHERE"}
		used[1] = true
	case kw(0, "EXISTS"):
		return "", "", "", unmodeled("the check does not model EXISTS statements (which IAM action they need is not documented)")
	default:
		return "", "", "", unmodeled("the PartiQL statement is not a SELECT, INSERT INTO, UPDATE or DELETE FROM the check reads")
	}
	used[0] = true
	ident := func(i int) (string, bool) {
		if i >= len(toks) {
			return "", false
		}
		switch t := toks[i]; t.kind {
		case 'q':
			return t.text, true
		case 'w':
			return t.text, !pqlKeywords[strings.ToUpper(t.text)]
		}
		return "", false
	}
	table, ok := ident(at)
	if !ok {
		return "", "", "", unmodeled("the %s statement names no table the check can read", strings.ToUpper(verb))
	}
	end := at + 1
	if end < len(toks) && toks[end].kind == 'p' && toks[end].text == "." {
		if verb != "Select" || toks[at].kind != 'q' || end+1 >= len(toks) || toks[end+1].kind != 'q' || !toks[end].glued || !toks[end+1].glued {
			return "", "", "", unmodeled("the check reads an index only as SELECT ... FROM \"table\".\"index\", both quoted and glued with the dot")
		}
		index = toks[end+1].text
		end += 2
	}
	if !dynamoName.MatchString(table) || strings.Contains(table, ".") {
		return "", "", "", unmodeled("%q is not a table name the check reads in PartiQL (letters, digits, _ and -)", table)
	}
	if index != "" && (!dynamoName.MatchString(index) || strings.Contains(index, ".")) {
		return "", "", "", unmodeled("%q is not an index name the check reads in PartiQL", index)
	}
	if end < len(toks) && !kw(end, next...) {
		return "", "", "", unmodeled("the check reads %s's table only when %s follows it", strings.ToUpper(verb), strings.Join(next, " or "))
	}
	if end >= len(toks) && verb != "Select" {
		return "", "", "", unmodeled("the %s statement ends after its table", strings.ToUpper(verb))
	}
	for i, t := range toks {
		if !used[i] && t.kind == 'w' && pqlKeywords[strings.ToUpper(t.text)] {
			return "", "", "", unmodeled("the PartiQL statement holds %s where the check does not read it (a nested statement, or RETURNING, whose actions IAM does not document): quote an attribute of that name", strings.ToUpper(t.text))
		}
	}
	return verb, table, index, nil
}
