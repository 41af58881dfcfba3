package diff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DataTypes are the resource types that hold data, by the word a user
// knows them by: deleting or replacing one loses what it holds.
var DataTypes = map[string]string{
	"AWS::DynamoDB::Table":        "table",
	"AWS::S3::Bucket":             "bucket",
	"AWS::SQS::Queue":             "queue",
	"AWS::SecretsManager::Secret": "secret",
	"AWS::SSM::Parameter":         "parameter",
}

// replacingProperties are, per data type, the properties whose change
// makes CloudFormation replace the resource (its documentation's "Update
// requires: Replacement"), so that the loss is known before any change set.
var replacingProperties = map[string][]string{
	"AWS::DynamoDB::Table":        {"KeySchema", "LocalSecondaryIndexes", "TableName"},
	"AWS::S3::Bucket":             {"BucketName", "ObjectLockEnabled"},
	"AWS::SQS::Queue":             {"QueueName", "FifoQueue"},
	"AWS::SecretsManager::Secret": {"Name"},
	"AWS::SSM::Parameter":         {"Name"},
}

// DataChange is a resource holding data that a deploy deletes or
// replaces.
type DataChange struct {
	LogicalID string `json:"logical_id"`
	Type      string `json:"type"`
	// Action is Remove (the resource leaves the stack) or Modify (it is
	// replaced by a new, empty one).
	Action string `json:"action"`
	// Because names the properties whose change replaces it.
	Because []string `json:"because,omitempty"`
	// Kept is true when CloudFormation keeps the old resource, and what
	// it holds, in the account (DeletionPolicy or UpdateReplacePolicy
	// Retain): it is no longer part of the stack, but nothing is deleted.
	Kept bool `json:"kept"`
	// Maybe is true when CloudFormation says the replacement depends on
	// values it knows only while deploying ("Conditional").
	Maybe bool `json:"maybe,omitempty"`
	// Declared is the name the app declared the resource by, "" for a
	// resource it did not declare (see DeclaredNames).
	Declared string `json:"declared,omitempty"`
}

// Line describes the change in one sentence.
func (c DataChange) Line() string {
	what := fmt.Sprintf("%s %s (%s)", DataTypes[c.Type], c.LogicalID, c.Type)
	if c.Declared != "" {
		what = fmt.Sprintf("%s %q (%s, %s)", DataTypes[c.Type], c.Declared, c.LogicalID, c.Type)
	}
	switch {
	case c.Action == Remove && c.Kept:
		return what + " leaves the stack: it is kept (retained) with its data, no longer managed by the stack"
	case c.Action == Remove:
		return what + " is DELETED with everything it holds"
	}
	verb := "is REPLACED"
	if c.Maybe {
		verb = "may be REPLACED"
	}
	because := ""
	if len(c.Because) > 0 {
		because = " (" + strings.Join(c.Because, ", ") + " changed)"
	}
	if c.Kept {
		return fmt.Sprintf("%s %s by a new, empty one%s: the old one is kept (retained) with its data, outside the stack", what, verb, because)
	}
	return fmt.Sprintf("%s %s by a new, empty one%s: the old one is DELETED with everything it holds", what, verb, because)
}

// dataChanges finds the resources holding data that the change from o to
// n removes or replaces: replaced when a replacing property changes, when
// the type changes, or when CloudFormation says so (the changes'
// Replacement, "True" or "Conditional").
func dataChanges(o, n *template, changes []ResourceChange) []DataChange {
	var out []DataChange
	declared := DeclaredNames(o.Outputs)
	defer func() {
		for i := range out {
			out[i].Declared = declared[out[i].LogicalID]
		}
	}()
	for _, c := range changes {
		old, ok := o.Resources[c.LogicalID]
		if !ok || DataTypes[old.Type] == "" {
			continue
		}
		switch c.Action {
		case Remove:
			out = append(out, DataChange{LogicalID: c.LogicalID, Type: old.Type, Action: Remove, Kept: retains(old.DeletionPolicy)})
		case Modify:
			neu := n.Resources[c.LogicalID]
			var because []string
			for _, p := range replacingProperties[old.Type] {
				if !equal(old.Properties[p], neu.Properties[p]) {
					because = append(because, p)
				}
			}
			if old.Type != neu.Type {
				because = append(because, "Type")
			}
			if len(because) == 0 && c.Replacement != "True" && c.Replacement != "Conditional" {
				continue
			}
			// The old resource follows the deployed template's policy.
			out = append(out, DataChange{LogicalID: c.LogicalID, Type: old.Type, Action: Modify, Because: because,
				Kept: retains(old.UpdateReplacePolicy), Maybe: len(because) == 0 && c.Replacement == "Conditional"})
		}
	}
	slices.SortStableFunc(out, func(a, b DataChange) int { return strings.Compare(a.LogicalID, b.LogicalID) })
	return out
}

// declaredOutput is the description of the stack output that publishes an
// attribute of a declared resource: "NAME of the table \"todos\"" (see
// stacks.New).
var declaredOutput = regexp.MustCompile(`^[A-Z_]+ of the [a-z]+ "([A-Za-z][A-Za-z0-9]*)"$`)

// DeclaredNames maps the logical id of each resource the app declared to
// the name it declared it by, read from a stage template's outputs: each
// attribute of a declared resource is published by an output whose value
// is a Ref or Fn::GetAtt of the resource and whose description names it.
func DeclaredNames(outputs map[string]any) map[string]string {
	names := map[string]string{}
	for key, o := range outputs {
		out, _ := o.(map[string]any)
		desc, _ := out["Description"].(string)
		m := declaredOutput.FindStringSubmatch(desc)
		if !strings.HasPrefix(key, "Res") || m == nil || strings.HasPrefix(desc, "DLQ_") {
			// A queue's dead-letter queue (DLQ_NAME, ... of the queue)
			// is not the declared queue.
			continue
		}
		val, _ := out["Value"].(map[string]any)
		id, _ := val["Ref"].(string)
		if ga, ok := val["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
			id, _ = ga[0].(string)
		}
		if id != "" {
			names[id] = m[1]
		}
	}
	return names
}

func retains(policy string) bool { return policy == "Retain" || policy == "RetainExceptOnCreate" }

// DataAtRisk returns the data changes a deploy must ask about: every
// replacement (the stack then uses a new, empty resource, whether or not
// the old one is kept) and every removal of a resource that is not kept.
func (r *Report) DataAtRisk() []DataChange {
	return slices.DeleteFunc(slices.Clone(r.Data), func(c DataChange) bool { return c.Action == Remove && c.Kept })
}

// writeData writes the data warnings, in red when r.Color.
func (r *Report) writeData(b *strings.Builder) {
	if len(r.Data) == 0 {
		return
	}
	red, reset := "", ""
	if r.Color {
		red, reset = "\x1b[31m", "\x1b[0m"
	}
	b.WriteString(red + "WARNING: resources that hold data are deleted or replaced:" + reset + "\n")
	for _, c := range r.Data {
		fmt.Fprintf(b, "%s  ! %s%s\n", red, c.Line(), reset)
	}
}
