package localiam

import (
	"encoding/json"
	"net/http"
	"strings"
)

func classifyDynamoDB(c *Call, r *http.Request, body []byte, e Env) error {
	prefix, op := target(r)
	c.Operation = op
	var in struct {
		TableName, IndexName, StreamArn, ResourceArn string
		RequestItems                                 map[string]json.RawMessage
		TransactItems                                []map[string]struct{ TableName string }
	}
	if op == "" || decodeJSON(body, &in) != nil {
		return errUnmodeled
	}
	table := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		return e.arn("dynamodb", "table/"+name)
	}
	if strings.HasPrefix(prefix, "DynamoDBStreams") {
		// GetRecords names its stream by an opaque shard iterator only.
		if in.StreamArn == "" {
			return errUnmodeled
		}
		c.add("dynamodb:"+op, in.StreamArn)
		return nil
	}
	switch op {
	case "ListTables", "ListBackups", "ListGlobalTables", "DescribeLimits", "DescribeEndpoints", "ListExports", "ListImports":
		c.add("dynamodb:"+op, "*")
	case "BatchGetItem", "BatchWriteItem":
		for name := range in.RequestItems {
			c.add("dynamodb:"+op, table(name))
		}
	case "TransactGetItems", "TransactWriteItems":
		actions := map[string]string{"Get": "GetItem", "Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}
		for _, item := range in.TransactItems {
			for kind, v := range item {
				if a, ok := actions[kind]; ok && v.TableName != "" {
					c.add("dynamodb:"+a, table(v.TableName))
				}
			}
		}
	case "TagResource", "UntagResource", "ListTagsOfResource":
		if in.ResourceArn == "" {
			return errUnmodeled
		}
		c.add("dynamodb:"+op, in.ResourceArn)
	default:
		if in.TableName == "" {
			return errUnmodeled // ExecuteStatement (PartiQL) and the like
		}
		res := table(in.TableName)
		if in.IndexName != "" && (op == "Query" || op == "Scan") {
			res += "/index/" + in.IndexName
		}
		c.add("dynamodb:"+op, res)
	}
	return nil
}
