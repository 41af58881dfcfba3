package localiam

import (
	"net/http"
	"net/url"
	"strings"
)

// sqsBatch are the SQS operations IAM checks as another action.
var sqsBatch = map[string]string{"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage", "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}

func classifySQS(c *Call, r *http.Request, body []byte, e Env) error {
	var op, queueURL, queueName, owner string
	if _, t := target(r); t != "" || strings.Contains(r.Header.Get("Content-Type"), "json") {
		c.protocol = protoSQSJSON
		var in struct{ QueueUrl, QueueName, QueueOwnerAWSAccountId string }
		if t == "" || decodeJSON(body, &in) != nil {
			return errUnmodeled
		}
		op, queueURL, queueName, owner = t, in.QueueUrl, in.QueueName, in.QueueOwnerAWSAccountId
	} else {
		c.protocol = protoSQSQuery
		q := queryParams(r, body)
		op, queueURL, queueName, owner = q.Get("Action"), q.Get("QueueUrl"), q.Get("QueueName"), q.Get("QueueOwnerAWSAccountId")
		if queueURL == "" && strings.Count(strings.Trim(r.URL.Path, "/"), "/") == 1 {
			queueURL = r.URL.Path // the query protocol's queue URL as the request's path
		}
	}
	c.Operation = op
	if op == "" {
		return errUnmodeled
	}
	action := op
	if a, ok := sqsBatch[op]; ok {
		action = a
	}
	switch {
	case op == "ListQueues":
		c.add("sqs:"+action, "*")
	case queueURL != "":
		arn, ok := queueARN(queueURL, e)
		if !ok {
			return errUnmodeled
		}
		c.add("sqs:"+action, arn)
	case queueName != "":
		acct := e.Account
		if owner != "" {
			acct = owner
		}
		c.add("sqs:"+action, "arn:"+e.partition()+":sqs:"+e.Region+":"+acct+":"+queueName)
	default:
		return errUnmodeled
	}
	return nil
}

// queueARN is the ARN of the queue at u: its path is /ACCOUNT/NAME at AWS,
// moto and LocalStack alike.
func queueARN(u string, e Env) (string, bool) {
	p := u
	if pu, err := url.Parse(u); err == nil {
		p = pu.Path
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) < 2 {
		return "", false
	}
	acct, name := parts[len(parts)-2], parts[len(parts)-1]
	return "arn:" + e.partition() + ":sqs:" + e.Region + ":" + acct + ":" + name, true
}

// queryParams are the parameters of a query protocol request: its form
// body's, else its URL's.
func queryParams(r *http.Request, body []byte) url.Values {
	q := r.URL.Query()
	if len(body) > 0 {
		if f, err := url.ParseQuery(string(body)); err == nil {
			for k, v := range f {
				q[k] = v
			}
		}
	}
	return q
}
