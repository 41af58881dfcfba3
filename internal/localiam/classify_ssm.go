package localiam

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// ssmParamOps are the SSM operations IAM evaluates as their own action on
// the parameter of Name.
var ssmParamOps = map[string]bool{
	"GetParameter": true, "PutParameter": true, "DeleteParameter": true, "GetParameterHistory": true,
	"LabelParameterVersion": true, "UnlabelParameterVersion": true,
}

// ssmName is a parameter's name (a path, or a name without a slash); a
// version or label may follow it after a colon ("/app/flag:3").
var ssmName = regexp.MustCompile(`^([A-Za-z0-9_.\-/]+)(:[A-Za-z0-9_.-]{1,100})?$`)

// ssmARN is a parameter's ARN, with a version or label after a colon.
var ssmARN = regexp.MustCompile(`^(arn:aws[a-z-]*:ssm:[a-z0-9-]+:[0-9]{12}:parameter)(/[A-Za-z0-9_.\-/]+)(:[A-Za-z0-9_.-]{1,100})?$`)

func classifySSM(c *Call, r *http.Request, body []byte, e Env) error {
	prefix, op := target(r)
	c.Operation = op
	if prefix != "AmazonSSM" {
		return unmodeled("X-Amz-Target %q is not an SSM operation", r.Header.Get("X-Amz-Target"))
	}
	var in struct {
		Name, Path string
		Names      []string
	}
	if err := decodeJSON(body, &in); err != nil {
		return err
	}
	switch {
	case op == "DescribeParameters":
		c.add("ssm:"+op, "*")
	case op == "GetParameters" || op == "DeleteParameters":
		if len(in.Names) == 0 {
			return unmodeled("%s names no parameter (Names)", op)
		}
		for i, n := range in.Names {
			arn, err := ssmParameter(n, e)
			if err != nil {
				return fmt.Errorf("Names[%d]: %w", i, err)
			}
			c.add("ssm:"+op, arn)
		}
	case op == "GetParametersByPath":
		// IAM evaluates the path alone, Recursive or not: a role that may
		// read /a reads /a/b too (SSM's "Working with parameter
		// hierarchies"), as the check does.
		if !strings.HasPrefix(in.Path, "/") || strings.Contains(in.Path, ":") {
			return unmodeled("GetParametersByPath's Path %q is not a parameter path (it begins with /)", in.Path)
		}
		arn, err := ssmParameter(in.Path, e)
		if err != nil {
			return err
		}
		c.add("ssm:"+op, arn)
	case ssmParamOps[op]:
		arn, err := ssmParameter(in.Name, e)
		if err != nil {
			return err
		}
		c.add("ssm:"+op, arn)
	default:
		return unmodeled("the check does not model SSM's %s: it knows the Parameter Store operations", op)
	}
	return nil
}

// ssmParameter is the ARN IAM evaluates for the parameter name names (a
// name, a path or an ARN, a version or label after a colon left out):
// parameter/NAME for a name without a slash, parameter/PATH for a path.
func ssmParameter(name string, e Env) (string, error) {
	if m := ssmARN.FindStringSubmatch(name); m != nil {
		return m[1] + m[2], nil
	}
	m := ssmName.FindStringSubmatch(name)
	if m == nil || strings.HasPrefix(name, "arn:") {
		if name == "" {
			return "", unmodeled("the request names no parameter (Name)")
		}
		return "", unmodeled("%q is not a parameter's name, path or ARN", name)
	}
	if strings.HasPrefix(m[1], "/") {
		return e.arn("ssm", "parameter"+m[1]), nil
	}
	return e.arn("ssm", "parameter/"+m[1]), nil
}
