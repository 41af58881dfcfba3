// Package policy is the IAM policy of an app's execution role: the SDK
// calls found in its source (Call, Report, found by package
// policy/scan), the IAM actions each AWS SDK for Go v2 operation needs
// (OperationActions: s3 ListObjectsV2 → s3:ListBucket, lambda Invoke →
// lambda:InvokeFunction), the document they make (FromCalls, with the
// CloudWatch Logs actions always) and its narrowing to the app's declared
// resources (Narrow). Load reads a hand-written .framework/policy.json;
// Marshal writes one; Actions lists what a document grants.
//
// It links neither golang.org/x/tools nor go/types, so the framework CLI,
// which needs the documents but runs the scan in its synthesis engine,
// compiles neither.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

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

// Marshal returns d as indented JSON with a trailing newline, the form
// written to .framework/policy.json. The same document always gives the same
// bytes; nil Action and Resource lists are written as [] rather than null.
func (d *Document) Marshal() ([]byte, error) {
	if d == nil {
		return nil, errors.New("marshal policy: nil document")
	}
	out := Document{Version: d.Version, Statement: make([]Statement, len(d.Statement))}
	for i, s := range d.Statement {
		if s.Action == nil {
			s.Action = []string{}
		}
		if s.Resource == nil {
			s.Resource = []string{}
		}
		out.Statement[i] = s
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal policy: %w", err)
	}
	return append(b, '\n'), nil
}

// Actions returns every action the Allow statements of d grant, sorted and
// de-duplicated. Deny statements are left out: they take permissions away.
func Actions(d *Document) []string {
	if d == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range d.Statement {
		if s.Effect == "Deny" {
			continue
		}
		for _, a := range s.Action {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}
