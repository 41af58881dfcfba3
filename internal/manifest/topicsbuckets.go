package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Subscription filter policy scopes (Function.FilterPolicyScope).
const (
	FilterOnAttributes = "MessageAttributes" // the policy matches the message attributes (SNS's default)
	FilterOnBody       = "MessageBody"       // the policy matches the JSON message body
)

// CORSRule is one CORS rule of a bucket: the browser requests from
// AllowedOrigins with AllowedMethods that S3 answers with CORS headers.
type CORSRule struct {
	// AllowedOrigins are the origins allowed ("https://app.example.com",
	// "*" for any; one * wildcard per origin).
	AllowedOrigins []string `json:"allowed_origins"`
	// AllowedMethods are among GET, PUT, POST, DELETE and HEAD.
	AllowedMethods []string `json:"allowed_methods"`
	// AllowedHeaders are the request headers a preflight may ask for ("*"
	// for any).
	AllowedHeaders []string `json:"allowed_headers,omitempty"`
	// ExposedHeaders are the response headers the browser lets scripts read
	// (ETag, ...).
	ExposedHeaders []string `json:"exposed_headers,omitempty"`
	// MaxAgeSeconds is how long the browser may cache a preflight's answer;
	// 0 leaves it to the browser.
	MaxAgeSeconds int `json:"max_age_seconds,omitempty"`
}

// LifecycleRule is one lifecycle rule of a bucket, on the objects whose
// key starts with Prefix (every object when empty).
type LifecycleRule struct {
	// Prefix narrows the rule to the keys starting with it.
	Prefix string `json:"prefix,omitempty"`
	// ExpireAfterDays deletes an object that many days after it was
	// created (in a versioned bucket: makes it a noncurrent version); 0:
	// never.
	ExpireAfterDays int `json:"expire_after_days,omitempty"`
	// NoncurrentExpireAfterDays deletes a noncurrent version of a
	// versioned bucket that many days after it became noncurrent; 0: never.
	NoncurrentExpireAfterDays int `json:"noncurrent_expire_after_days,omitempty"`
	// AbortIncompleteUploadsAfterDays aborts a multipart upload not
	// completed that many days after it started, deleting its parts; 0:
	// never.
	AbortIncompleteUploadsAfterDays int `json:"abort_incomplete_uploads_after_days,omitempty"`
}

// corsMethods are the methods a CORS rule of S3 may allow.
var corsMethods = []string{"GET", "PUT", "POST", "DELETE", "HEAD"}

// validateTopicBucket checks what is particular to a topic or a bucket
// declaration; bad reports a problem of r.
func validateTopicBucket(r *Resource, bad func(format string, args ...any)) {
	if r.ContentBasedDeduplication && !r.FIFO {
		bad("content-based deduplication needs a FIFO %s: add the FIFO option, or remove ContentBasedDeduplication", r.Kind)
	}
	if r.Kind != ResourceBucket {
		if len(r.CORS) > 0 || len(r.Lifecycle) > 0 || r.Versioned {
			bad("CORS rules, lifecycle rules and versioning belong to buckets only: remove them")
		}
		return
	}
	if len(r.CORS) > 100 {
		bad("%d CORS rules: S3 allows 100 at most", len(r.CORS))
	}
	for i, c := range r.CORS {
		rule := fmt.Sprintf("CORS rule %d", i+1)
		if len(c.AllowedOrigins) == 0 {
			bad("%s allows no origin: list the origins the browser pages come from (https://app.example.com, or * for any)", rule)
		}
		for _, o := range c.AllowedOrigins {
			if o == "" || strings.Count(o, "*") > 1 {
				bad("%s: origin %q: give a scheme and host (https://app.example.com) with at most one *", rule, o)
			}
		}
		if len(c.AllowedMethods) == 0 {
			bad("%s allows no method: list some of %s (PUT for browser uploads)", rule, strings.Join(corsMethods, ", "))
		}
		for _, m := range c.AllowedMethods {
			if !slices.Contains(corsMethods, m) {
				bad("%s: method %q: S3 allows %s only (in upper case)", rule, m, strings.Join(corsMethods, ", "))
			}
		}
		for _, h := range c.AllowedHeaders {
			if h == "" || strings.Count(h, "*") > 1 {
				bad("%s: allowed header %q: give a header name with at most one *", rule, h)
			}
		}
		for _, h := range c.ExposedHeaders {
			if h == "" || strings.Contains(h, "*") {
				bad("%s: exposed header %q: give a header name without wildcard", rule, h)
			}
		}
		if c.MaxAgeSeconds < 0 {
			bad("%s: max age %d s is negative: use 0 (the browser's default) or more", rule, c.MaxAgeSeconds)
		}
	}
	if len(r.Lifecycle) > 1000 {
		bad("%d lifecycle rules: S3 allows 1000 at most", len(r.Lifecycle))
	}
	prefixes := map[string]bool{}
	for i, l := range r.Lifecycle {
		rule := fmt.Sprintf("lifecycle rule %d", i+1)
		if l.ExpireAfterDays == 0 && l.NoncurrentExpireAfterDays == 0 && l.AbortIncompleteUploadsAfterDays == 0 {
			bad("%s does nothing: set ExpireAfterDays, NoncurrentExpireAfterDays or AbortIncompleteUploadsAfterDays", rule)
		}
		for _, d := range []struct {
			name string
			n    int
		}{{"ExpireAfterDays", l.ExpireAfterDays}, {"NoncurrentExpireAfterDays", l.NoncurrentExpireAfterDays}, {"AbortIncompleteUploadsAfterDays", l.AbortIncompleteUploadsAfterDays}} {
			if d.n < 0 {
				bad("%s: %s %d is negative: use 1 or more days (0: never)", rule, d.name, d.n)
			}
		}
		if l.NoncurrentExpireAfterDays > 0 && !r.Versioned {
			bad("%s: NoncurrentExpireAfterDays applies to a versioned bucket only: add Versioning, or remove it", rule)
		}
		if len(l.Prefix) > 1024 {
			bad("%s: the prefix is %d bytes long: S3 allows 1024", rule, len(l.Prefix))
		}
		if prefixes[l.Prefix] {
			bad("%s: another rule has the prefix %q: merge the two", rule, l.Prefix)
		}
		prefixes[l.Prefix] = true
	}
}

// validateSNSFunction checks what is particular to an SNS handler f: its
// filter policy, and that its topic is not FIFO (SNS delivers a FIFO
// topic's messages to SQS queues only). topic is its declared topic, or nil.
func validateSNSFunction(f *Function, topic *Resource, bad func(format string, args ...any)) {
	if f.Kind != KindSNS {
		if len(f.FilterPolicy) > 0 || f.FilterPolicyScope != "" {
			bad("a subscription filter policy belongs to SNS handlers only: remove it")
		}
		return
	}
	fifo := strings.HasSuffix(f.Source, ".fifo")
	if topic != nil && topic.Kind == ResourceTopic {
		fifo = topic.FIFO
	}
	if fifo {
		bad("its topic is FIFO, and SNS delivers a FIFO topic's messages to SQS queues only, never to a Lambda function: " +
			"declare the topic without FIFO, or subscribe an SQS FIFO queue to it (outside the app: the console, or a host CDK app through the construct's Resources) and read that queue with OnSQSMessage")
	}
	if len(f.FilterPolicy) == 0 && f.FilterPolicyScope == "" {
		return
	}
	switch f.FilterPolicyScope {
	case FilterOnAttributes, FilterOnBody:
	case FilterOnAttributes + "+" + FilterOnBody:
		bad("two filter policies: give one, SNSFilter (on the message attributes) or SNSBodyFilter (on the body)")
		return
	default:
		bad("filter policy scope %q: use %s or %s", f.FilterPolicyScope, FilterOnAttributes, FilterOnBody)
		return
	}
	if err := CheckFilterPolicy(f.FilterPolicy, f.FilterPolicyScope); err != nil {
		bad("%w", err)
	}
}

// filterOperators are the operators of a filter policy's rule objects.
var filterOperators = []string{"prefix", "suffix", "anything-but", "numeric", "exists", "equals-ignore-case", "cidr"}

// CheckFilterPolicy checks an SNS subscription filter policy as SNS does
// when the subscription is created: a JSON object of at most 5 keys, each
// an array of values and rule objects (prefix, suffix, anything-but,
// numeric, exists, equals-ignore-case, cidr) or, on the body
// (FilterOnBody) only, a nested object; "$or" takes an array of such
// policies; at most 150 combinations of values.
func CheckFilterPolicy(policy json.RawMessage, scope string) error {
	var p map[string]any
	if err := json.Unmarshal(policy, &p); err != nil || p == nil {
		return fmt.Errorf("the filter policy is not a JSON object: give one, for example {\"kind\": [\"order\"]}")
	}
	if len(p) == 0 {
		return fmt.Errorf("the filter policy is empty: give at least one key to match, or no filter")
	}
	if len(p) > 5 {
		return fmt.Errorf("the filter policy has %d keys: SNS allows 5 at most (nested keys of a body policy count by their parent)", len(p))
	}
	combos, err := filterCombos(p, scope, 1, "")
	if err != nil {
		return err
	}
	if combos > 150 {
		return fmt.Errorf("the filter policy has %d combinations of values: SNS allows 150 at most; split it over fewer keys or values", combos)
	}
	return nil
}

// filterCombos checks the policy object p at nesting depth and returns its
// number of combinations as SNS counts them (the product of each list's
// length).
func filterCombos(p map[string]any, scope string, depth int, path string) (int, error) {
	combos := 1
	for k, v := range p {
		key := path + k
		switch v := v.(type) {
		case map[string]any:
			if scope != FilterOnBody {
				return 0, fmt.Errorf("filter policy key %q holds an object: a policy on message attributes cannot nest; use SNSBodyFilter to match the body's nested fields, or give an array of values", key)
			}
			n, err := filterCombos(v, scope, depth+1, key+".")
			if err != nil {
				return 0, err
			}
			combos *= n
		case []any:
			if len(v) == 0 {
				return 0, fmt.Errorf("filter policy key %q has an empty array: list at least one value", key)
			}
			if k == "$or" {
				n := 0
				for _, alt := range v {
					m, ok := alt.(map[string]any)
					if !ok || len(m) == 0 {
						return 0, fmt.Errorf("filter policy key %q: each alternative of $or is a policy object", key)
					}
					c, err := filterCombos(m, scope, depth+1, path)
					if err != nil {
						return 0, err
					}
					n += c
				}
				combos *= n
				continue
			}
			for _, e := range v {
				if err := checkFilterValue(key, e); err != nil {
					return 0, err
				}
			}
			combos *= len(v) * depth
		default:
			return 0, fmt.Errorf("filter policy key %q must hold an array of values (for example [\"a\", \"b\"]) or, on the body, an object", key)
		}
	}
	return combos, nil
}

// checkFilterValue checks one element of a filter policy's array.
func checkFilterValue(key string, e any) error {
	switch e := e.(type) {
	case string, float64, bool, nil:
		return nil
	case map[string]any:
		if len(e) != 1 {
			return fmt.Errorf("filter policy key %q: a rule object has one operator (%s), not %d", key, strings.Join(filterOperators, ", "), len(e))
		}
		for op, arg := range e {
			if !slices.Contains(filterOperators, op) {
				return fmt.Errorf("filter policy key %q: unknown operator %q: use one of %s", key, op, strings.Join(filterOperators, ", "))
			}
			switch op {
			case "exists":
				if _, ok := arg.(bool); !ok {
					return fmt.Errorf("filter policy key %q: exists takes true or false", key)
				}
			case "prefix", "suffix", "equals-ignore-case", "cidr":
				if _, ok := arg.(string); !ok {
					if m, isObj := arg.(map[string]any); !(op == "prefix" && isObj && len(m) == 1 && m["equals-ignore-case"] != nil) {
						return fmt.Errorf("filter policy key %q: %s takes a string", key, op)
					}
				}
			case "numeric":
				if err := checkNumeric(arg); err != nil {
					return fmt.Errorf("filter policy key %q: %w", key, err)
				}
			}
		}
		return nil
	default:
		return fmt.Errorf("filter policy key %q: value %v: give strings, numbers, booleans, null or rule objects", key, e)
	}
}

// checkNumeric checks a numeric rule's argument: [op, n] or [op, n, op, n]
// with op among =, <, <=, >, >=.
func checkNumeric(arg any) error {
	a, ok := arg.([]any)
	if !ok || (len(a) != 2 && len(a) != 4) {
		return fmt.Errorf("numeric takes [\"op\", n] or [\">\", n, \"<\", m]")
	}
	for i := 0; i < len(a); i += 2 {
		op, _ := a[i].(string)
		if !slices.Contains([]string{"=", "<", "<=", ">", ">="}, op) {
			return fmt.Errorf("numeric operator %v: use =, <, <=, > or >=", a[i])
		}
		if _, isNum := a[i+1].(float64); !isNum {
			return fmt.Errorf("numeric %s takes a number, not %v", op, a[i+1])
		}
	}
	return nil
}
