package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"

	"github.com/framework-dev/framework/internal/diff"
)

// StackResource is one resource of a stack, by logical id, type and the
// physical id (the name) it has in the account.
type StackResource struct {
	LogicalID, Type, PhysicalID string
	// Retained is true when deleting the stack keeps it (DeletionPolicy
	// Retain or RetainExceptOnCreate).
	Retained bool
	// Declared is the name the app declared it by, "" for a resource it
	// did not declare (diff.DeclaredNames).
	Declared string
}

// Kind is the word a user knows a resource holding data by ("table",
// "bucket", ...), or "" for any other resource.
func (r StackResource) Kind() string { return diff.DataTypes[r.Type] }

// String names the resource for a user: `table "todos" (todo-prod-AppResTodos1234-X1Y2)`
// for a declared one, "table AppResTodos1234 (todo-prod-AppResTodos1234-X1Y2)" for another.
func (r StackResource) String() string {
	kind := r.Kind()
	if kind == "" {
		kind = r.Type
	}
	if r.Declared != "" {
		if r.PhysicalID == "" {
			return fmt.Sprintf("%s %q (%s)", kind, r.Declared, r.LogicalID)
		}
		return fmt.Sprintf("%s %q (%s)", kind, r.Declared, r.PhysicalID)
	}
	if r.PhysicalID == "" {
		return kind + " " + r.LogicalID
	}
	return fmt.Sprintf("%s %s (%s)", kind, r.LogicalID, r.PhysicalID)
}

// DataResources returns the resources of the deployed stack that hold
// data (diff.DataTypes), sorted by logical id, each saying whether
// deleting the stack keeps it: what `framework destroy` deletes and keeps.
// The deployed template gives the deletion policies, ListStackResources
// the physical names.
func (e *Engine) DataResources(ctx context.Context, st *Stack) ([]StackResource, error) {
	tpl, err := e.DeployedTemplate(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	var t struct {
		Resources map[string]struct{ Type, DeletionPolicy string }
		Outputs   map[string]any
	}
	if err := json.Unmarshal(tpl, &t); err != nil {
		return nil, fmt.Errorf("read the template of stack %s: %w", st.Name, err)
	}
	phys := map[string]string{}
	pages := cloudformation.NewListStackResourcesPaginator(e.CFN, &cloudformation.ListStackResourcesInput{StackName: aws.String(st.ID)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list the resources of stack %s: %w", st.Name, err)
		}
		for _, r := range page.StackResourceSummaries {
			phys[aws.ToString(r.LogicalResourceId)] = aws.ToString(r.PhysicalResourceId)
		}
	}
	declared := diff.DeclaredNames(t.Outputs)
	var out []StackResource
	for id, r := range t.Resources {
		if diff.DataTypes[r.Type] == "" {
			continue
		}
		out = append(out, StackResource{LogicalID: id, Type: r.Type, PhysicalID: phys[id], Declared: declared[id],
			Retained: r.DeletionPolicy == "Retain" || r.DeletionPolicy == "RetainExceptOnCreate"})
	}
	slices.SortFunc(out, func(a, b StackResource) int { return strings.Compare(a.LogicalID, b.LogicalID) })
	return out, nil
}

// KeptByDeletion are the resources holding data that the last deletion of
// a stack kept in the account (its DELETE_SKIPPED events).
type KeptByDeletion struct {
	// StackID is the deleted stack's id; Deleted when it was deleted.
	StackID string
	Deleted time.Time
	// Kept are the resources it kept.
	Kept []StackResource
}

// LastDeletionKept returns what the most recent deletion of the stack
// named name kept of the resources holding data, or nil when no deleted
// stack of that name (CloudFormation lists them for 90 days) kept any. A
// new stack of the same name creates new, empty resources beside them,
// with names of their own: nothing collides, and nothing of the kept data
// is in the new ones.
func (e *Engine) LastDeletionKept(ctx context.Context, name string) (*KeptByDeletion, error) {
	var last *types.StackSummary
	pages := cloudformation.NewListStacksPaginator(e.CFN, &cloudformation.ListStacksInput{StackStatusFilter: []types.StackStatus{types.StackStatusDeleteComplete}})
	for pages.HasMorePages() && last == nil {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list the deleted stacks named %s: %w", name, err)
		}
		for i, s := range page.StackSummaries {
			if aws.ToString(s.StackName) != name {
				continue
			}
			if last == nil || aws.ToTime(s.DeletionTime).After(aws.ToTime(last.DeletionTime)) {
				last = &page.StackSummaries[i]
			}
		}
	}
	if last == nil {
		return nil, nil
	}
	out := &KeptByDeletion{StackID: aws.ToString(last.StackId), Deleted: aws.ToTime(last.DeletionTime)}
	events := cloudformation.NewDescribeStackEventsPaginator(e.CFN, &cloudformation.DescribeStackEventsInput{StackName: last.StackId})
	seen := map[string]bool{}
	for events.HasMorePages() {
		page, err := events.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the events of the deleted stack %s: %w", name, err)
		}
		for _, ev := range page.StackEvents {
			r := StackResource{LogicalID: aws.ToString(ev.LogicalResourceId), Type: aws.ToString(ev.ResourceType), PhysicalID: aws.ToString(ev.PhysicalResourceId), Retained: true}
			if ev.ResourceStatus != types.ResourceStatusDeleteSkipped || r.Kind() == "" || seen[r.LogicalID] {
				continue
			}
			seen[r.LogicalID] = true
			out.Kept = append(out.Kept, r)
		}
	}
	if len(out.Kept) == 0 {
		return nil, nil
	}
	slices.SortFunc(out.Kept, func(a, b StackResource) int { return strings.Compare(a.LogicalID, b.LogicalID) })
	return out, nil
}

// noteKept tells, before a stack is created, which resources holding data
// the last deletion of a stack of that name kept: the new stack creates
// new, empty ones beside them. A failure to find out (no permission to
// list deleted stacks) says nothing: it does not stop the deploy.
func (e *Engine) noteKept(ctx context.Context, name string) {
	k, err := e.LastDeletionKept(ctx, name)
	if err != nil || k == nil {
		return
	}
	e.printf("Note: stack %s was deleted on %s and kept %d %s holding data:\n", name, k.Deleted.UTC().Format("2006-01-02 15:04 MST"),
		len(k.Kept), map[bool]string{true: "resource", false: "resources"}[len(k.Kept) == 1])
	for _, r := range k.Kept {
		e.printf("  %s\n", r)
	}
	e.printf("This deploy creates new, empty ones with names of their own; the kept ones stay as they are, unused by the app. Copy their data into the new ones (their names are in the stack's outputs once deployed), or delete them when you no longer need them.\n")
}
