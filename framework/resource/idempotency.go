package resource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// Idempotency configures Idempotent and IdempotentRecords.
// The zero value is the default.
type Idempotency struct {
	// Expiry is how long a key is remembered after its first use: a
	// request or message with the key within it gets the stored answer
	// (or is skipped); after it, it runs again. 0 means 24 hours. A
	// request or message still in progress holds its key until its
	// invocation's deadline (the function's timeout) even when Expiry is
	// shorter.
	Expiry time.Duration
	// KeyRequired (routes): a request without an Idempotency-Key header
	// is answered 400. Without it, such a request runs as if the route
	// were not idempotent.
	KeyRequired bool
	// KeyPath (event handlers): the key of a message is the value at this
	// dotted path in its body, parsed as JSON ("order.id": the field id of
	// the object order), instead of the message id. The body is an SQS
	// message's body, an SNS message's Message, an EventBridge event's
	// detail. A message without it runs without idempotency (and says so
	// in a log line).
	KeyPath string
}

// MaxStoredAnswer is the largest answer (body and headers) an idempotent
// route stores for replay: 64 KiB. A larger answer is sent but not
// stored (a log line says so), so a retry with its key runs the handler
// again.
const MaxStoredAnswer = 64 << 10

// IdempotencyKeyHeader is the request header that carries the key.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayedHeader is the header, with the value "true", of an answer that
// is a stored answer replayed (as Stripe's API marks its replays), so
// that a client can tell a replay from a first answer. A browser reads it
// only when the route's CORS setting exposes it (ExposeHeaders).
const ReplayedHeader = "Idempotent-Replayed"

// transient are the statuses below 500 that say "not now" rather than
// "no": a request timeout (408), a conflict (409), too early (425) and too
// many requests (429). Such an answer is not stored, so that the client's
// retry with its key runs the handler again instead of getting the same
// refusal until the key expires.
var transient = map[int]bool{408: true, 409: true, 425: true, 429: true}

// maxKeyLength is the longest key accepted.
const maxKeyLength = 255

// defaultExpiry is how long a key is remembered by default.
const defaultExpiry = 24 * time.Hour

// noDeadline is how long an in-progress record holds its key when the
// invocation has no deadline (outside Lambda): the default Lambda timeout.
const noDeadline = 60 * time.Second

// IdempotencyKeyMissing answers 400: the route requires an
// Idempotency-Key header and the request has none (or an empty or too long
// one).
type IdempotencyKeyMissing struct{ framework.BadRequestError }

// IdempotencyKeyReused answers 422: the key was first used with another
// request (another body, method, path or query string).
type IdempotencyKeyReused struct {
	framework.UnprocessableEntityError
}

// IdempotencyKeyInUse answers 409: the first request with the key is
// still being handled.
type IdempotencyKeyInUse struct{ framework.ConflictError }

// Idempotent makes a route's handler idempotent by the request's
// Idempotency-Key header (IETF draft-ietf-httpapi-idempotency-key-header),
// its records kept in table t: the first answer below 500 (status,
// headers, body) is stored and replayed, with the header
// Idempotent-Replayed: true (ReplayedHeader), for every later request
// with the key; the key with a different method, path, query string or
// body is a 422 (IdempotencyKeyReused); a request with the key while the
// first is still running is a 409 (IdempotencyKeyInUse), until the
// first's invocation deadline (the function's timeout) passes, however
// short Expiry is. A 5xx answer, a transient refusal (408, 409, 425,
// 429) or a panic stores nothing, so the client may retry with its key.
// The handler gets exactly the accesses this needs on t (GetItem,
// PutItem, DeleteItem).
//
// The query string is part of the request: its parameters are compared
// decoded and sorted by name, so their order does not matter ("?a=1&b=2"
// is "?b=2&a=1"), except the order of one name's repeated values
// ("?a=1&a=2" is not "?a=2&a=1").
//
// The table needs a string partition key, no sort key and a TTL attribute
// (TableSpec.TTLAttribute), which expires the records; it may hold other
// items, the records' keys starting with the handler's name.
//
//	keys := resource.NewTable(app, "keys", resource.TableSpec{
//		PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})
//	app.Route("/orders", createOrder, framework.Methods("POST"), resource.Idempotent(keys, resource.Idempotency{}))
func Idempotent(t *Table, opt Idempotency) framework.RouteOption {
	s := newIdemStore(t, opt, apphook.Caller(1), false)
	describe := func(r *manifest.Route) { r.Idempotency = &manifest.RouteIdempotency{KeyRequired: opt.KeyRequired} }
	return apphook.GuardsOf(t.app).RouteGuard(framework.Middleware(s.route), s.grants(), describe).(framework.RouteOption)
}

// IdempotentRecords makes an SQS, SNS or EventBridge handler process each
// message once, its records kept in table t (see Idempotent for the
// table): the key is the message id (an SQS message's messageId, an SNS
// message's MessageId, an EventBridge event's id), or the value at
// Idempotency.KeyPath in its body. A message whose key was processed
// already is left out of the batch the handler gets (the handler is not
// called when none is left); a message still being processed by another
// invocation is reported failed (OnSQSPartialBatch), or fails the
// invocation, so it is retried later. A message the handler fails (an
// error, or a failure it reports) is not recorded, so its retry runs.
//
// The messages of a batch are recorded once the handler returns: when it
// panics, none is and their keys are freed, so the whole batch runs again
// when it is redelivered, the messages it had processed before the panic
// included (there is no partial storage); when its invocation times out,
// the same, once the invocation's deadline has passed. A handler whose
// messages must not run twice records each itself, or reports the ones
// that failed (OnSQSPartialBatch) instead of panicking.
//
//	app.OnSQSPartialBatch("worker", jobs.Ref(), work, resource.IdempotentRecords(keys, resource.Idempotency{}))
func IdempotentRecords(t *Table, opt Idempotency) framework.FunctionOption {
	s := newIdemStore(t, opt, apphook.Caller(1), true)
	kinds := []manifest.Kind{manifest.KindSQS, manifest.KindSNS, manifest.KindEventBridge}
	return apphook.GuardsOf(t.app).FunctionGuard("IdempotentRecords", kinds, s.recordsGuard, s.grants()).(framework.FunctionOption)
}

// idemStore is the records of one idempotent handler.
type idemStore struct {
	t      *Table
	pk     string // the table's partition key attribute
	ttl    string // the table's TTL attribute
	expiry time.Duration
	opt    Idempotency
}

// newIdemStore checks that t can hold idempotency records, declared at
// where. (Idempotent and IdempotentRecords are functions, not methods of
// Table: the linker keeps every exported method of a type in a binary that
// looks methods up by name, as the AWS SDK does, and this code must cost
// an app that does not use it nothing.)
func newIdemStore(t *Table, opt Idempotency, where string, records bool) *idemStore {
	d := t.decl
	s := &idemStore{t: t, ttl: d.TTLAttribute, expiry: opt.Expiry, opt: opt}
	if d.PartitionKey != nil {
		s.pk = d.PartitionKey.Name
	}
	if s.expiry == 0 {
		s.expiry = defaultExpiry
	}
	example := `resource.NewTable(app, "keys", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})`
	switch {
	case d.PartitionKey == nil || d.PartitionKey.Type != string(String) || d.SortKey != nil:
		t.refuse("idempotent handler at %s: the table must have a string partition key and no sort key to hold idempotency records: use a table such as %s", where, example)
	case d.TTLAttribute == "":
		t.refuse("idempotent handler at %s: the table has no TTL attribute, which expires the idempotency records: declare one (TableSpec{TTLAttribute: \"expires\"}), or use a table such as %s", where, example)
	}
	switch {
	case opt.Expiry < 0:
		t.refuse("idempotent handler at %s: Expiry %v is negative: give a duration (0 means 24 hours)", where, opt.Expiry)
	case opt.Expiry%time.Second != 0:
		t.refuse("idempotent handler at %s: Expiry %v is not whole seconds: round it", where, opt.Expiry)
	}
	if !records && opt.KeyPath != "" {
		t.refuse("idempotent handler at %s: KeyPath is for event handlers (IdempotentRecords); a route's key is its Idempotency-Key header: remove KeyPath", where)
	}
	if records && opt.KeyRequired {
		t.refuse("idempotent handler at %s: KeyRequired is for routes (Idempotent): remove it", where)
	}
	if records && opt.KeyPath != "" && slicesContainsEmpty(strings.Split(opt.KeyPath, ".")) {
		t.refuse("idempotent handler at %s: KeyPath %q has an empty field name: write fields joined by dots, such as \"order.id\"", where, opt.KeyPath)
	}
	return s
}

func slicesContainsEmpty(parts []string) bool {
	for _, p := range parts {
		if p == "" {
			return true
		}
	}
	return false
}

func (s *idemStore) grants() []manifest.Grant {
	return []manifest.Grant{{Resource: s.t.name, Access: manifest.AccessIdempotency}}
}

// Record states.
const (
	stateInProgress = "INPROGRESS"
	stateCompleted  = "COMPLETED"
)

// Record attributes (besides the partition key and the TTL attribute).
const (
	attrState       = "idem_state"
	attrUntil       = "idem_in_progress_until" // ms since the epoch
	attrFingerprint = "idem_fingerprint"
	attrToken       = "idem_token"
	attrAnswer      = "idem_answer"
)

// storedAnswer is a route's answer as a record holds it.
type storedAnswer struct {
	Status  int                    `json:"status"`
	Headers []manifest.HeaderField `json:"headers"`
	Body    []byte                 `json:"body"`
}

// record is a record as GetItem returns it.
type record struct {
	state, fingerprint string
	answer             *storedAnswer
}

// claim is a key this invocation holds.
type claim struct {
	table, id, token string
}

// claimOutcome is what claiming a key found.
type claimOutcome int

const (
	claimed    claimOutcome = iota // the key is this invocation's
	inProgress                     // another invocation holds it
	completed                      // it was done (rec holds the record)
)

// ddbString and ddbNumber are DynamoDB attribute values.
func ddbString(s string) map[string]string { return map[string]string{"S": s} }
func ddbNumber(n int64) map[string]string  { return map[string]string{"N": strconv.FormatInt(n, 10)} }

// tableName is the table's physical name, or an error saying how to get it.
func (s *idemStore) tableName() (string, error) {
	name := s.t.Name()
	if name == "" {
		return "", errors.New(s.t.missing(manifest.AttrName))
	}
	return name, nil
}

// claim claims id (the record's partition key) for this invocation,
// whose deadline is in ctx, with the request's fingerprint.
func (s *idemStore) claim(ctx context.Context, id, fingerprint string) (claimOutcome, *record, *claim, error) {
	table, err := s.tableName()
	if err != nil {
		return 0, nil, nil, err
	}
	token := newToken()
	for try := 0; ; try++ {
		t := now()
		until := t.Add(noDeadline)
		if dl, ok := ctx.Deadline(); ok {
			until = dl
		}
		// The record in progress holds its key until the invocation's
		// deadline, however short Expiry is: its TTL is the later of
		// the two (so that DynamoDB's TTL does not delete it while it
		// runs), and the condition below frees it at the deadline only.
		expires := t.Add(s.expiry).Unix()
		if u := (until.UnixMilli() + 999) / 1000; u > expires {
			expires = u
		}
		in := map[string]any{
			"TableName": table,
			"Item": map[string]any{
				s.pk:            ddbString(id),
				s.ttl:           ddbNumber(expires),
				attrState:       ddbString(stateInProgress),
				attrUntil:       ddbNumber(until.UnixMilli()),
				attrFingerprint: ddbString(fingerprint),
				attrToken:       ddbString(token),
			},
			"ConditionExpression":      "attribute_not_exists(#pk) OR (#state <> :inprogress AND #ttl < :now) OR (#state = :inprogress AND #until < :nowms)",
			"ExpressionAttributeNames": map[string]string{"#pk": s.pk, "#ttl": s.ttl, "#state": attrState, "#until": attrUntil},
			"ExpressionAttributeValues": map[string]any{
				":now": ddbNumber(t.Unix()), ":nowms": ddbNumber(t.UnixMilli()), ":inprogress": ddbString(stateInProgress),
			},
		}
		err := awscall.Call(ctx, "dynamodb", "PutItem", in, nil)
		if err == nil {
			return claimed, nil, &claim{table: table, id: id, token: token}, nil
		}
		if !isConditionFailed(err) {
			return 0, nil, nil, fmt.Errorf("idempotency: claiming key in table %q: %w", s.t.name, err)
		}
		rec, err := s.get(ctx, table, id)
		if err != nil {
			return 0, nil, nil, err
		}
		if rec == nil {
			if try < 2 {
				continue // deleted since: claim again
			}
			return inProgress, nil, nil, nil
		}
		if rec.state == stateCompleted {
			return completed, rec, nil, nil
		}
		return inProgress, rec, nil, nil
	}
}

func isConditionFailed(err error) bool {
	var ae *awscall.Error
	return errors.As(err, &ae) && ae.Code == "ConditionalCheckFailedException"
}

// get reads the record of id; nil when there is none.
func (s *idemStore) get(ctx context.Context, table, id string) (*record, error) {
	var out struct {
		Item map[string]map[string]string
	}
	in := map[string]any{"TableName": table, "Key": map[string]any{s.pk: ddbString(id)}, "ConsistentRead": true}
	if err := awscall.Call(ctx, "dynamodb", "GetItem", in, &out); err != nil {
		return nil, fmt.Errorf("idempotency: reading key in table %q: %w", s.t.name, err)
	}
	if out.Item == nil {
		return nil, nil
	}
	rec := &record{state: out.Item[attrState]["S"], fingerprint: out.Item[attrFingerprint]["S"]}
	if a, ok := out.Item[attrAnswer]; ok {
		var ans storedAnswer
		if err := json.Unmarshal([]byte(a["S"]), &ans); err != nil {
			return nil, fmt.Errorf("idempotency: the stored answer in table %q is not readable: %w", s.t.name, err)
		}
		rec.answer = &ans
	}
	return rec, nil
}

// complete marks c's key done, with the answer to replay (nil for none).
func (s *idemStore) complete(ctx context.Context, c *claim, fingerprint string, ans *storedAnswer) error {
	item := map[string]any{
		s.pk:            ddbString(c.id),
		s.ttl:           ddbNumber(now().Add(s.expiry).Unix()),
		attrState:       ddbString(stateCompleted),
		attrFingerprint: ddbString(fingerprint),
		attrToken:       ddbString(c.token),
	}
	if ans != nil {
		b, err := json.Marshal(ans)
		if err != nil {
			return err
		}
		item[attrAnswer] = ddbString(string(b))
	}
	in := map[string]any{
		"TableName": c.table, "Item": item,
		"ConditionExpression":       "#token = :token",
		"ExpressionAttributeNames":  map[string]string{"#token": attrToken},
		"ExpressionAttributeValues": map[string]any{":token": ddbString(c.token)},
	}
	if err := awscall.Call(context.WithoutCancel(ctx), "dynamodb", "PutItem", in, nil); err != nil && !isConditionFailed(err) {
		return fmt.Errorf("idempotency: storing the answer in table %q: %w", s.t.name, err)
	}
	return nil
}

// release deletes c's claim, so that the key's retry runs.
func (s *idemStore) release(ctx context.Context, c *claim) {
	in := map[string]any{
		"TableName": c.table, "Key": map[string]any{s.pk: ddbString(c.id)},
		"ConditionExpression":       "#token = :token",
		"ExpressionAttributeNames":  map[string]string{"#token": attrToken},
		"ExpressionAttributeValues": map[string]any{":token": ddbString(c.token)},
	}
	if err := awscall.Call(context.WithoutCancel(ctx), "dynamodb", "DeleteItem", in, nil); err != nil && !isConditionFailed(err) {
		slog.WarnContext(ctx, "idempotency: releasing a key failed; a retry with it is refused until the invocation's timeout passes",
			"table", s.t.name, "key", c.id, "error", err.Error())
	}
}

// newToken is a claim's token: it tells this invocation's claim from a
// later one of the same key (crypto/rand would grow every app's binary).
func newToken() string {
	return strconv.FormatUint(rand.Uint64(), 36) + strconv.FormatUint(rand.Uint64(), 36)
}

// requestKey is the Idempotency-Key of a request: the header's value, a
// structured-field string ("...") or bare; "" when there is none.
func requestKey(r *framework.Request) string {
	k := strings.TrimSpace(r.Headers.Get(IdempotencyKeyHeader))
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		if u, err := strconv.Unquote(k); err == nil {
			k = u
		}
	}
	return k
}

// route is the guard of an idempotent route.
func (s *idemStore) route(c *framework.Call, next framework.Next) (resp *framework.Response, err error) {
	req := c.Request
	key := requestKey(req)
	switch {
	case key == "" && !s.opt.KeyRequired:
		return next(c)
	case key == "":
		return nil, IdempotencyKeyMissing{framework.BadRequestError{Message: "this route requires an Idempotency-Key header: send a unique key (a UUID) with the request, and the same key when you retry it"}}
	case len(key) > maxKeyLength:
		return nil, IdempotencyKeyMissing{framework.BadRequestError{Message: fmt.Sprintf("the Idempotency-Key header is %d bytes long: send a key of at most %d (a UUID)", len(key), maxKeyLength)}}
	}
	fp := fingerprint(req)
	ctx := req.Context()
	outcome, rec, cl, err := s.claim(ctx, c.Handler+"#"+key, fp)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.fingerprint != fp {
		return nil, IdempotencyKeyReused{framework.UnprocessableEntityError{Message: "this Idempotency-Key was used with another request (method, path, query string or body): send a new key for a new request"}}
	}
	switch outcome {
	case inProgress:
		return nil, IdempotencyKeyInUse{framework.ConflictError{Message: "a request with this Idempotency-Key is still being handled: retry it later"}}
	case completed:
		if rec.answer == nil {
			return nil, IdempotencyKeyInUse{framework.ConflictError{Message: "a request with this Idempotency-Key was handled but its answer was not stored: send a new key"}}
		}
		return replay(rec.answer), nil
	}
	done := false
	defer func() {
		if !done {
			s.release(ctx, cl) // a panic: the pipeline answers 500
		}
	}()
	resp, err = next(c)
	done = true
	ans, ok := apphook.GuardsOf(s.t.app).AnswerOf(resp, err)
	if !ok || ans.Status >= 500 || transient[ans.Status] {
		s.release(ctx, cl)
		return resp, err
	}
	stored := &storedAnswer{Status: ans.Status, Headers: ans.Headers, Body: ans.Body}
	if size := answerSize(stored); size > MaxStoredAnswer {
		s.release(ctx, cl)
		slog.WarnContext(ctx, fmt.Sprintf("idempotency: the answer is %d bytes, over the %d-byte limit, so it is not stored: a retry with this key runs the handler again", size, MaxStoredAnswer),
			"handler", c.Handler, "key", key)
		return resp, err
	}
	if cerr := s.complete(ctx, cl, fp, stored); cerr != nil {
		slog.WarnContext(ctx, cerr.Error(), "handler", c.Handler, "key", key)
		s.release(ctx, cl)
	}
	return resp, err
}

// fingerprint identifies a request for its key: a SHA-256 of its method,
// path, query string and body. Without a query string it is the digest
// of "METHOD\nPATH\n" and the body, as records stored before the query
// string counted still hold; with one, "q:" and the digest of the method,
// the quoted path, the canonical query (canonicalQuery) and the body, so
// that neither form can be taken for the other.
func fingerprint(req *framework.Request) string {
	sum := sha256.New()
	q := canonicalQuery(req.QueryParams)
	if q == "" {
		fmt.Fprintf(sum, "%s\n%s\n", req.Method, req.Path)
		sum.Write(req.RawBody)
		return hex.EncodeToString(sum.Sum(nil))
	}
	fmt.Fprintf(sum, "%s\n%q\n%s\n", req.Method, req.Path, q)
	sum.Write(req.RawBody)
	return "q:" + hex.EncodeToString(sum.Sum(nil))
}

// canonicalQuery is the query string q with its names sorted and every
// name and value percent-encoded, each name's values in the order sent:
// the order of different parameters does not change a request, the order
// of one parameter's values may ("?sort=a&sort=b").
func canonicalQuery(q framework.MultiDict) string {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

func answerSize(a *storedAnswer) int {
	n := len(a.Body)
	for _, h := range a.Headers {
		n += len(h.Name) + len(h.Value) + 4
	}
	return n
}

// replay is the Response that sends a stored answer as it was, marked
// with ReplayedHeader.
func replay(a *storedAnswer) *framework.Response {
	resp := &framework.Response{StatusCode: a.Status, MultiValueHeaders: map[string][]string{}}
	if len(a.Body) > 0 {
		resp.Body = a.Body
	}
	for _, h := range a.Headers {
		if strings.EqualFold(h.Name, ReplayedHeader) {
			continue
		}
		resp.MultiValueHeaders[h.Name] = append(resp.MultiValueHeaders[h.Name], h.Value)
	}
	resp.MultiValueHeaders[ReplayedHeader] = []string{"true"}
	return resp
}
