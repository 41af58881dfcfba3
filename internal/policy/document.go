// Package policy generates the IAM policy of an app's execution role from the
// AWS SDK for Go v2 calls found in its source (spec 2.10 and 4.7).
package policy

// PolicyVersion is the fixed IAM policy language version.
const PolicyVersion = "2012-10-17"

// Document is an IAM policy document as written to .framework/policy.json.
type Document struct {
	Version   string      `json:"Version"`
	Statement []Statement `json:"Statement"`
}

// Statement is one statement of a Document.
type Statement struct {
	Sid      string   `json:"Sid"`
	Effect   string   `json:"Effect"`
	Action   []string `json:"Action"`
	Resource []string `json:"Resource"`
}
