package localiam

import (
	"net/http"
	"strings"
)

func classifySSM(c *Call, r *http.Request, body []byte, e Env) error {
	_, op := target(r)
	c.Operation = op
	var in struct {
		Name, Path string
		Names      []string
	}
	if op == "" || decodeJSON(body, &in) != nil {
		return errUnmodeled
	}
	param := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		if strings.HasPrefix(name, "/") {
			return e.arn("ssm", "parameter"+name)
		}
		return e.arn("ssm", "parameter/"+name)
	}
	switch op {
	case "DescribeParameters":
		c.add("ssm:"+op, "*")
	case "GetParameters", "DeleteParameters":
		for _, n := range in.Names {
			c.add("ssm:"+op, param(n))
		}
	case "GetParametersByPath":
		if in.Path == "" {
			return errUnmodeled
		}
		c.add("ssm:"+op, param(in.Path))
	case "GetParameter", "PutParameter", "DeleteParameter", "GetParameterHistory", "LabelParameterVersion", "UnlabelParameterVersion":
		if in.Name == "" {
			return errUnmodeled
		}
		c.add("ssm:"+op, param(in.Name))
	default:
		return errUnmodeled
	}
	return nil
}
