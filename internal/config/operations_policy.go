package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/framework-dev/framework/internal/userfile"
)

// LoadAPIGatewayPolicy reads the resource policy file of
// api_gateway_policy_file (a path relative to the configuration
// directory, or absolute); it returns nil when the key is not set. The
// file must be a regular file (or a symbolic link to one) of at most
// userfile.MaxProjectFile bytes holding an IAM policy document with at
// least one statement.
func (o *Operations) LoadAPIGatewayPolicy() (map[string]any, error) {
	if o.APIGatewayPolicyFile == "" {
		return nil, nil
	}
	file := o.APIGatewayPolicyFile
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(o.configPath), file)
	}
	fail := func(format string, args ...any) error {
		return &Error{Path: o.configPath, Key: o.policyKey, Msg: fmt.Sprintf(format, args...)}
	}
	data, err := userfile.Read(file, "the REST API's resource policy", userfile.MaxProjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fail("%s does not exist: write the REST API's resource policy there (an IAM policy document), or fix the path, which is relative to %s", file, filepath.Dir(o.configPath))
	}
	if userfile.IsRefused(err) {
		return nil, fail("%v", err)
	}
	if err != nil {
		return nil, fail("read the resource policy: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		line, col := 0, 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col = userfile.LineColumn(data, int(se.Offset)-1)
		}
		if line > 0 {
			return nil, fail("%s:%d:%d is not a JSON object: %v", file, line, col, err)
		}
		return nil, fail("%s is not a JSON object: %v", file, err)
	}
	stmts, ok := doc["Statement"]
	if !ok {
		return nil, fail("%s has no Statement: a resource policy is {\"Version\": \"2012-10-17\", \"Statement\": [...]}", file)
	}
	if l, isList := stmts.([]any); isList && len(l) == 0 {
		return nil, fail("%s has an empty Statement list: give the REST API at least one statement", file)
	}
	if _, ok := doc["Version"]; !ok {
		doc["Version"] = "2012-10-17"
	}
	return doc, nil
}
