package localiam

import (
	"fmt"
	"net/http"
	"regexp"
)

// secretOps are the Secrets Manager operations IAM evaluates as their own
// action on the secret of SecretId.
var secretOps = map[string]bool{
	"GetSecretValue": true, "DescribeSecret": true, "PutSecretValue": true, "UpdateSecret": true,
	"DeleteSecret": true, "RestoreSecret": true, "RotateSecret": true, "CancelRotateSecret": true,
	"ListSecretVersionIds": true, "UpdateSecretVersionStage": true, "TagResource": true, "UntagResource": true,
	"GetResourcePolicy": true,
}

// secretName is a secret's name as Secrets Manager allows it.
var secretName = regexp.MustCompile(`^[A-Za-z0-9/_+=.@-]{1,512}$`)

// secretARN is a secret's ARN, complete (NAME-XXXXXX) or partial (NAME).
var secretARN = regexp.MustCompile(`^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:)([A-Za-z0-9/_+=.@-]{1,512})$`)

// completeSecret is the end of a complete secret ARN: a hyphen and six
// characters, which Secrets Manager reads as the random suffix.
var completeSecret = regexp.MustCompile(`-[A-Za-z0-9]{6}$`)

func classifySecrets(c *Call, r *http.Request, body []byte, e Env) error {
	prefix, op := target(r)
	c.Operation = op
	if prefix != "secretsmanager" {
		return unmodeled("X-Amz-Target %q is not a Secrets Manager operation", r.Header.Get("X-Amz-Target"))
	}
	var in struct {
		SecretId, Name string
		SecretIdList   []string
		Filters        []struct{ Key string }
	}
	if err := decodeJSON(body, &in); err != nil {
		return err
	}
	switch {
	case op == "ListSecrets" || op == "GetRandomPassword":
		c.add("secretsmanager:"+op, "*")
	case op == "BatchGetSecretValue":
		// secretsmanager:BatchGetSecretValue, and GetSecretValue on each
		// secret (the API reference's "Required permissions"). AWS leaves
		// a secret the role may not read out of the answer, with an
		// error; the check refuses the whole call, as it cannot send
		// less than it was given.
		if len(in.Filters) > 0 {
			return unmodeled("BatchGetSecretValue with Filters reads secrets the check cannot know before the call: name them in SecretIdList")
		}
		if len(in.SecretIdList) == 0 {
			return unmodeled("BatchGetSecretValue names no secret (SecretIdList)")
		}
		c.add("secretsmanager:BatchGetSecretValue", "*")
		for i, id := range in.SecretIdList {
			arn, err := secretResource(id, e)
			if err != nil {
				return fmt.Errorf("SecretIdList[%d]: %w", i, err)
			}
			c.add("secretsmanager:GetSecretValue", arn)
		}
	case op == "CreateSecret":
		if !secretName.MatchString(in.Name) {
			return unmodeled("%q is not a secret name", in.Name)
		}
		arn, err := secretResource(in.Name, e)
		if err != nil {
			return err
		}
		c.add("secretsmanager:CreateSecret", arn)
	case secretOps[op]:
		arn, err := secretResource(in.SecretId, e)
		if err != nil {
			return err
		}
		c.add("secretsmanager:"+op, arn)
	default:
		return unmodeled("the check does not model Secrets Manager's %s", op)
	}
	return nil
}

// secretResource is the ARN IAM evaluates for the secret id names: the
// secret's complete ARN. A declared secret, by name or by partial ARN (the
// complete one without its -XXXXXX), is its complete ARN (Env.SecretARNs).
// An ARN that ends in a hyphen and six characters is complete, as Secrets
// Manager reads it. An undeclared secret's random suffix cannot be known
// locally: by name, it is the ARN of the name in the function's region and
// account without a suffix; by partial ARN, that ARN as given. Either is
// allowed by statements that match it ("*", or a pattern such as
// secret:NAME*), and refused by those naming declared secrets, as the
// deployed role refuses it.
func secretResource(id string, e Env) (string, error) {
	if m := secretARN.FindStringSubmatch(id); m != nil {
		if completeSecret.MatchString(m[2]) {
			return id, nil
		}
		for _, full := range e.SecretARNs {
			if n := len(full) - 7; n > 0 && full[:n] == id && completeSecret.MatchString(full) {
				return full, nil
			}
		}
		return id, nil
	}
	if !secretName.MatchString(id) {
		if id == "" {
			return "", unmodeled("the request names no secret (SecretId)")
		}
		return "", unmodeled("%q is not a secret's name nor its ARN", id)
	}
	if a, ok := e.SecretARNs[id]; ok {
		return a, nil
	}
	return e.arn("secretsmanager", "secret:"+id), nil
}
