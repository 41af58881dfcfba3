package localres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
)

// Change is what framework local did to a resource already at the
// emulator whose declaration changed, or what differs when the service
// cannot change it in place (the resource then stays as it is: its data
// is never deleted).
type Change struct {
	// Resource is the physical name of the resource at the emulator.
	Resource string
	// Applied is true when the resource was changed in place.
	Applied bool
	// Line says what changed or differs and, when it differs, how to
	// recreate the resource.
	Line string
}

// changesKey is the context key of a changeList.
type changesKey struct{}

// changeList collects the Changes of the calls made with its context.
type changeList struct {
	mu  sync.Mutex
	all []Change
}

// withChanges returns a context whose calls note their Changes in the
// returned list.
func withChanges(ctx context.Context) (context.Context, *changeList) {
	l := &changeList{}
	return context.WithValue(ctx, changesKey{}, l), l
}

// noteChange notes ch when ctx collects Changes.
func noteChange(ctx context.Context, ch Change) {
	if l, ok := ctx.Value(changesKey{}).(*changeList); ok {
		l.mu.Lock()
		l.all = append(l.all, ch)
		l.mu.Unlock()
	}
}

func (l *changeList) list() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.all)
}

// updateQueue gives the queue named name at url, which existed, the
// attributes of its declaration q that differ (declspec.QueueAttrs, and
// want's RedrivePolicy): in place with SetQueueAttributes, or, for an
// attribute SQS cannot change, a Change saying so.
func (c *Client) updateQueue(ctx context.Context, name, url string, q *declspec.Queue, want map[string]string) error {
	var out struct{ Attributes map[string]string }
	if err := c.Call(ctx, "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": url, "AttributeNames": []string{"All"}}, &out); err != nil {
		return err
	}
	have := out.Attributes
	set := map[string]string{}
	var applied, differ []string
	for _, a := range declspec.QueueAttrs {
		w, h := a.Value(q), have[a.Name]
		if w == "" {
			w = a.Unset
		}
		if h == "" {
			h = a.Unset
		}
		if w == h {
			continue
		}
		if a.Fixed {
			differ = append(differ, fmt.Sprintf("%s is %s at the emulator and %s declared (%s)", a.Name, orNone(h), orNone(w), a.Recreate))
			continue
		}
		set[a.Name] = w
		applied = append(applied, fmt.Sprintf("%s %s -> %s", a.Name, orNone(h), orNone(w)))
	}
	if !sameRedrive(have["RedrivePolicy"], want["RedrivePolicy"]) {
		set["RedrivePolicy"] = want["RedrivePolicy"]
		applied = append(applied, fmt.Sprintf("dead-letter queue after %d receives", q.MaxReceiveCount))
		if q.MaxReceiveCount == 0 {
			applied[len(applied)-1] = "no dead-letter queue"
		}
	}
	if len(set) > 0 {
		if err := c.Call(ctx, "sqs", "SetQueueAttributes", map[string]any{"QueueUrl": url, "Attributes": set}, nil); err != nil {
			return fmt.Errorf("update queue %s to its declaration (%s): %w", name, strings.Join(applied, ", "), err)
		}
		noteChange(ctx, Change{Resource: name, Applied: true,
			Line: fmt.Sprintf("Updated queue %s at the emulator to its declaration: %s.", name, strings.Join(applied, ", "))})
	}
	if len(differ) > 0 {
		noteChange(ctx, Change{Resource: name, Line: fmt.Sprintf("Queue %s at the emulator differs from its declaration and SQS cannot change it in place: %s. It stays as it is, with its messages; to recreate it (its messages are lost), delete it (aws sqs delete-queue --queue-url %s --endpoint-url %s) and save a file.",
			name, strings.Join(differ, "; "), url, c.endpoint)})
	}
	return nil
}

// sameRedrive reports whether two redrive policies (JSON, "" for none)
// say the same: SQS may give maxReceiveCount as a string or a number.
func sameRedrive(a, b string) bool {
	parse := func(s string) string {
		if s == "" {
			return ""
		}
		var p struct {
			ARN   string `json:"deadLetterTargetArn"`
			Count any    `json:"maxReceiveCount"`
		}
		if json.Unmarshal([]byte(s), &p) != nil {
			return s
		}
		return fmt.Sprintf("%s %v", p.ARN, p.Count)
	}
	return parse(a) == parse(b)
}

func orNone(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// keySchema is a table's keys as DescribeTable gives them.
type keySchema struct {
	KeySchema            []struct{ AttributeName, KeyType string }
	AttributeDefinitions []struct{ AttributeName, AttributeType string }
	// The table's secondary indexes (tableindexes.go).
	GlobalSecondaryIndexes, LocalSecondaryIndexes []tableIndex
}

// describe says the keys of s as a declaration would: "id (S), at (N)".
func (s *keySchema) describe() string {
	types := map[string]string{}
	for _, a := range s.AttributeDefinitions {
		types[a.AttributeName] = a.AttributeType
	}
	var parts []string
	for _, kt := range []string{"HASH", "RANGE"} {
		for _, k := range s.KeySchema {
			if k.KeyType == kt {
				parts = append(parts, fmt.Sprintf("%s (%s)", k.AttributeName, types[k.AttributeName]))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// declaredKeys says the keys d declares as keySchema.describe does.
func declaredKeys(d *manifest.Resource) string {
	s := fmt.Sprintf("%s (%s)", d.PartitionKey.Name, d.PartitionKey.Type)
	if d.SortKey != nil {
		s += fmt.Sprintf(", %s (%s)", d.SortKey.Name, d.SortKey.Type)
	}
	return s
}

// checkTable compares the table named name, which existed with keys have
// and stream view haveStream ("" for none), with its declaration d: what
// DynamoDB cannot change in place (its keys, its stream's view, its local
// indexes) is a Change saying how to recreate it; its global indexes (when
// its keys are the declared ones) and time-to-live attribute are changed
// in place.
func (c *Client) checkTable(ctx context.Context, name string, d *manifest.Resource, have *keySchema, haveStream string) error {
	var differ []string
	keysDiffer := false
	if h, w := have.describe(), declaredKeys(d); h != w {
		differ = append(differ, fmt.Sprintf("its keys are %s at the emulator and %s declared", h, w))
		keysDiffer = true
	}
	if haveStream != "" && d.Stream != "" && haveStream != d.Stream {
		differ = append(differ, fmt.Sprintf("its stream's view is %s at the emulator and %s declared", haveStream, d.Stream))
	}
	if s := localIndexesDiffer(have, d); s != "" {
		differ = append(differ, s)
	}
	if len(differ) > 0 {
		noteChange(ctx, Change{Resource: name, Line: fmt.Sprintf("Table %s at the emulator differs from its declaration and DynamoDB cannot change that in place: %s. It stays as it is, with its items; to recreate it (its items are lost), delete it (aws dynamodb delete-table --table-name %s --endpoint-url %s) and save a file.",
			name, strings.Join(differ, "; "), name, c.endpoint)})
	}
	if !keysDiffer { // else recreating the table gives it its indexes
		if err := c.updateGlobalIndexes(ctx, name, d, have); err != nil {
			return err
		}
	}
	var ttl struct {
		TimeToLiveDescription struct{ TimeToLiveStatus, AttributeName string }
	}
	if err := c.Call(ctx, "dynamodb", "DescribeTimeToLive", map[string]any{"TableName": name}, &ttl); err != nil {
		return nil // an emulator without time to live: nothing to compare
	}
	cur := ""
	if s := ttl.TimeToLiveDescription.TimeToLiveStatus; s == "ENABLED" || s == "ENABLING" {
		cur = ttl.TimeToLiveDescription.AttributeName
	}
	if cur == d.TTLAttribute {
		return nil
	}
	if cur != "" {
		if err := c.Call(ctx, "dynamodb", "UpdateTimeToLive", map[string]any{"TableName": name,
			"TimeToLiveSpecification": map[string]any{"Enabled": false, "AttributeName": cur}}, nil); err != nil {
			return fmt.Errorf("update table %s to its declaration (time to live off %s): %w", name, cur, err)
		}
	}
	if d.TTLAttribute != "" {
		if err := c.Call(ctx, "dynamodb", "UpdateTimeToLive", map[string]any{"TableName": name,
			"TimeToLiveSpecification": map[string]any{"Enabled": true, "AttributeName": d.TTLAttribute}}, nil); err != nil {
			return fmt.Errorf("update table %s to its declaration (time to live on %s): %w", name, d.TTLAttribute, err)
		}
	}
	noteChange(ctx, Change{Resource: name, Applied: true,
		Line: fmt.Sprintf("Updated table %s at the emulator to its declaration: time-to-live attribute %s -> %s.", name, orNone(cur), orNone(d.TTLAttribute))})
	return nil
}

// noteFIFOTwin, for the queue named name just created, says when the
// emulator has the queue of its declaration before FIFO changed (a FIFO
// queue's name ends in .fifo, so the change made a new queue): that one
// stays, with its messages, and the line says how to delete it.
func (c *Client) noteFIFOTwin(ctx context.Context, name string, fifo bool) {
	twin, was := name+".fifo", "a FIFO queue"
	if fifo {
		twin, was = strings.TrimSuffix(name, ".fifo"), "a standard queue"
	}
	var out struct{ QueueUrl string }
	if c.Call(ctx, "sqs", "GetQueueUrl", map[string]any{"QueueName": twin}, &out) != nil || out.QueueUrl == "" {
		return
	}
	noteChange(ctx, Change{Resource: twin, Line: fmt.Sprintf("Queue %s was declared as %s before: SQS cannot change that in place, so framework local created %s. The old queue stays, with its messages; delete it when you no longer need them (aws sqs delete-queue --queue-url %s --endpoint-url %s).",
		twin, was, name, out.QueueUrl, c.endpoint)})
}
