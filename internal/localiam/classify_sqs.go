package localiam

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// sqsBatch are the SQS operations IAM checks as another action.
var sqsBatch = map[string]string{"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage", "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}

// sqsByURL are the SQS operations that name their queue by QueueUrl (or,
// in the query protocol, by the request's path).
var sqsByURL = map[string]bool{"SendMessage": true, "SendMessageBatch": true, "ReceiveMessage": true, "DeleteMessage": true,
	"DeleteMessageBatch": true, "ChangeMessageVisibility": true, "ChangeMessageVisibilityBatch": true, "GetQueueAttributes": true,
	"SetQueueAttributes": true, "PurgeQueue": true, "DeleteQueue": true, "ListQueueTags": true, "TagQueue": true, "UntagQueue": true,
	"AddPermission": true, "RemovePermission": true, "ListDeadLetterSourceQueues": true}

// sqsQueueName is what SQS accepts as a queue's name.
var sqsQueueName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)

// sqsAccount is an account id in a queue's URL or ARN.
var sqsAccount = regexp.MustCompile(`^[0-9]{12}$`)

// sqsQueueARN is a queue's ARN.
var sqsQueueARN = regexp.MustCompile(`^arn:aws(-cn|-us-gov)?:sqs:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,80}(\.fifo)?$`)

func classifySQS(c *Call, r *http.Request, body []byte, e Env) error {
	var (
		op     string
		param  func(string) string
		isJSON bool
	)
	if _, t := target(r); t != "" || strings.Contains(r.Header.Get("Content-Type"), "json") {
		c.protocol = protoSQSJSON
		isJSON = true
		in, err := sqsJSONParams(r, body)
		if err != nil {
			return err
		}
		if t == "" {
			return errors.New("the JSON request has no X-Amz-Target naming its operation")
		}
		op = t
		c.Operation = op
		param = func(k string) string { return in[k] }
	} else {
		c.protocol = protoSQSQuery
		q, err := formParams(r, body)
		if err != nil {
			return err
		}
		op = q.Get("Action")
		c.Operation = op
		param = q.Get
	}
	if op == "" {
		return errors.New("the request names no operation (Action)")
	}
	// The query protocol may name the queue by the request's path.
	pathAcct, pathName, err := sqsPathQueue(r, isJSON)
	if err != nil {
		return err
	}
	action := op
	if a, ok := sqsBatch[op]; ok {
		action = a
	}
	switch {
	case op == "ListQueues":
		c.add("sqs:ListQueues", "*")
	case op == "CreateQueue" || op == "GetQueueUrl":
		name, acct := param("QueueName"), e.Account
		if owner := param("QueueOwnerAWSAccountId"); owner != "" {
			if !sqsAccount.MatchString(owner) {
				return fmt.Errorf("QueueOwnerAWSAccountId %q is not an account id", owner)
			}
			acct = owner
		}
		if !sqsQueueName.MatchString(name) {
			return fmt.Errorf("QueueName %q is not a queue name", name)
		}
		if pathName != "" {
			return fmt.Errorf("%s names its queue by QueueName; the request's path names another", op)
		}
		c.add("sqs:"+action, "arn:"+e.partition()+":sqs:"+e.Region+":"+acct+":"+name)
	case sqsByURL[op]:
		acct, name := pathAcct, pathName
		if u := param("QueueUrl"); u != "" {
			a, n, err := sqsQueueURL(u)
			if err != nil {
				return err
			}
			if pathName != "" && (a != pathAcct || n != pathName) {
				return fmt.Errorf("the request's path names the queue %s/%s and QueueUrl the queue %s/%s", pathAcct, pathName, a, n)
			}
			acct, name = a, n
		}
		if name == "" {
			return fmt.Errorf("%s names no queue (QueueUrl)", op)
		}
		c.add("sqs:"+action, "arn:"+e.partition()+":sqs:"+e.Region+":"+acct+":"+name)
	case op == "StartMessageMoveTask":
		// What AWS's SQS API permissions reference lists: on the source
		// (the dead-letter queue) the task receives and deletes; on the
		// destination it sends.
		src, dst := param("SourceArn"), param("DestinationArn")
		if !sqsQueueARN.MatchString(src) {
			return fmt.Errorf("SourceArn %q is not a queue's ARN", src)
		}
		if dst == "" {
			return errors.New("without DestinationArn the messages go back to the queues they came from, which the check cannot see; name the destination queue with DestinationArn")
		}
		if !sqsQueueARN.MatchString(dst) {
			return fmt.Errorf("DestinationArn %q is not a queue's ARN", dst)
		}
		for _, a := range []string{"StartMessageMoveTask", "ReceiveMessage", "DeleteMessage", "GetQueueAttributes"} {
			c.add("sqs:"+a, src)
		}
		c.add("sqs:SendMessage", dst)
	case op == "ListMessageMoveTasks":
		src := param("SourceArn")
		if !sqsQueueARN.MatchString(src) {
			return fmt.Errorf("SourceArn %q is not a queue's ARN", src)
		}
		c.add("sqs:ListMessageMoveTasks", src)
	case op == "CancelMessageMoveTask":
		return errors.New("its TaskHandle names the queue in a form the check does not read")
	default:
		return fmt.Errorf("%s is not an SQS operation the check models", op)
	}
	return nil
}

// sqsJSONParams are the top-level string parameters of an SQS JSON
// protocol request, by their exact names (decodeJSON refuses duplicate and
// case-variant keys; a lone key in another case is not the parameter, as
// for the emulator). The emulator reads an Action from the URL's query,
// else from the body parsed as a form: a JSON request with a query, or
// whose body reads as a form with an Action, is refused.
func sqsJSONParams(r *http.Request, body []byte) (map[string]string, error) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-amz-json-1.0" {
		return nil, fmt.Errorf("the JSON request's Content-Type is %q, not application/x-amz-json-1.0", r.Header.Get("Content-Type"))
	}
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		return nil, errors.New("the JSON request has a query, which the emulator reads as parameters")
	}
	if path := r.URL.EscapedPath(); path != "/" && path != "" {
		return nil, fmt.Errorf("the JSON request's path is %q, not /; the emulator reads a queue from it", path)
	}
	if strings.TrimSpace(string(body)) == "" {
		return nil, errors.New("the JSON request has no body")
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		return nil, fmt.Errorf("the request's body is %s-encoded, which the check does not read", ce)
	}
	for _, part := range strings.Split(string(body), "&") {
		name, _, _ := strings.Cut(part, "=")
		if u, err := url.QueryUnescape(name); err == nil {
			name = u
		}
		if strings.TrimSpace(name) == "Action" {
			return nil, errors.New("the JSON body reads as a form with an Action parameter, which the emulator would act on")
		}
	}
	var raw map[string]json.RawMessage
	if err := decodeJSON(body, &raw); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, k := range []string{"QueueUrl", "QueueName", "QueueOwnerAWSAccountId", "SourceArn", "DestinationArn"} {
		v, ok := raw[k]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("the parameter %s is not a string", k)
		}
		out[k] = s
	}
	return out, nil
}

// sqsPathQueue is the queue the request's path names (/ACCOUNT/NAME, the
// query protocol's queue URL), "" when the path is /. JSON requests are
// sent to /.
func sqsPathQueue(r *http.Request, isJSON bool) (acct, name string, err error) {
	p := r.URL.EscapedPath()
	if p == "/" || p == "" {
		return "", "", nil
	}
	if isJSON {
		return "", "", fmt.Errorf("the JSON request's path is %q, not /", p)
	}
	if p != r.URL.Path {
		return "", "", fmt.Errorf("the request's path %q holds percent-escapes, which servers read differently", p)
	}
	parts := strings.Split(p, "/")
	if len(parts) != 3 || !sqsAccount.MatchString(parts[1]) || !sqsQueueName.MatchString(parts[2]) {
		return "", "", fmt.Errorf("the request's path %q is neither / nor /ACCOUNT/QUEUE", p)
	}
	return parts[1], parts[2], nil
}

// sqsQueueURL is the account and name of the queue at u, read as strictly
// as SQS and the emulator agree: AWS reads the URL's path /ACCOUNT/NAME,
// the emulator the part after the last slash of the whole string. So u
// must be an http(s) URL whose path is exactly /ACCOUNT/NAME, without a
// query, fragment, user info, percent-escapes or dot segments.
func sqsQueueURL(u string) (acct, name string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("QueueUrl %q %s; pass the queue's URL as CreateQueue or GetQueueUrl returned it", u, why)
	}
	if strings.ContainsAny(u, "%?#@\\ \t\r\n;") {
		return bad("holds a character ('%', '?', '#', '@', ';', a backslash or a space) that servers read differently")
	}
	pu, err := url.Parse(u)
	if err != nil {
		return bad("is not a URL")
	}
	if (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.User != nil || pu.Opaque != "" || pu.RawQuery != "" || pu.Fragment != "" {
		return bad("is not an http(s) URL of a queue")
	}
	parts := strings.Split(pu.Path, "/")
	if len(parts) != 3 || parts[0] != "" || !sqsAccount.MatchString(parts[1]) || !sqsQueueName.MatchString(parts[2]) {
		return bad("has a path other than /ACCOUNT/QUEUE")
	}
	return parts[1], parts[2], nil
}

// formParams are the parameters of a query protocol request (SQS's older
// protocol, SNS), read as the check and the services must agree: from a
// form body (application/x-www-form-urlencoded, UTF-8) or from the URL's
// query, never both (the emulator ignores the URL's query when the body is
// a form; parsers differ on which of two values they take); each
// parameter once, and no two that differ only in case.
func formParams(r *http.Request, body []byte) (url.Values, error) {
	if _, t := target(r); t != "" {
		return nil, errors.New("the query protocol request has an X-Amz-Target header, which names an operation too")
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		return nil, fmt.Errorf("the request's body is %s-encoded, which the check does not read", ce)
	}
	raw := r.URL.RawQuery
	if len(body) > 0 {
		ct, ps, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || ct != "application/x-www-form-urlencoded" {
			return nil, fmt.Errorf("the request's body is not a form (Content-Type %q)", r.Header.Get("Content-Type"))
		}
		if cs, ok := ps["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, fmt.Errorf("the form body's charset is %q, not UTF-8", cs)
		}
		if raw != "" {
			return nil, errors.New("the request has parameters in both its URL and its body; send them in the body")
		}
		raw = string(body)
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("the parameters cannot be read in one way only: %v", err)
	}
	seen := map[string]string{}
	for k, vs := range q {
		if len(vs) > 1 {
			return nil, fmt.Errorf("the parameter %q is given %d times", k, len(vs))
		}
		if !utf8.ValidString(k) || !utf8.ValidString(vs[0]) {
			return nil, fmt.Errorf("the parameter %q is not UTF-8", k)
		}
		if prev, dup := seen[strings.ToLower(k)]; dup {
			return nil, fmt.Errorf("the parameters %q and %q differ only in case", prev, k)
		}
		seen[strings.ToLower(k)] = k
	}
	return q, nil
}
