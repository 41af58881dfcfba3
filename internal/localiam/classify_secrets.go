package localiam

import (
	"net/http"
	"strings"
)

func classifySecrets(c *Call, r *http.Request, body []byte, e Env) error {
	_, op := target(r)
	c.Operation = op
	var in struct{ SecretId, Name string }
	if op == "" || decodeJSON(body, &in) != nil {
		return errUnmodeled
	}
	id := in.SecretId
	switch op {
	case "ListSecrets", "GetRandomPassword", "BatchGetSecretValue":
		if op == "BatchGetSecretValue" {
			return errUnmodeled // each secret is checked as GetSecretValue: not modelled
		}
		c.add("secretsmanager:"+op, "*")
		return nil
	case "CreateSecret":
		id = in.Name
	}
	if id == "" {
		return errUnmodeled
	}
	arn := id
	if !strings.HasPrefix(id, "arn:") {
		if a, ok := e.SecretARNs[id]; ok {
			arn = a
		} else {
			arn = e.arn("secretsmanager", "secret:"+id)
		}
	}
	c.add("secretsmanager:"+op, arn)
	return nil
}
