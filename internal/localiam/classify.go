package localiam

import (
	"encoding/json"
	"encoding/xml"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Env is what Classify needs to name resources that a request gives by
// name rather than by ARN.
type Env struct {
	// Region and Account are the calling function's (the emulator's
	// account, or the deployed stage's).
	Region, Account string
	// SecretARNs are the declared secrets' ARNs by physical name: a
	// secret's ARN ends in 6 random characters that its name lacks.
	SecretARNs map[string]string
}

// partition is the ARN partition of the region.
func (e Env) partition() string {
	switch {
	case strings.HasPrefix(e.Region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(e.Region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// arn is an ARN of service in e's partition, region and account.
func (e Env) arn(service, resource string) string {
	return "arn:" + e.partition() + ":" + service + ":" + e.Region + ":" + e.Account + ":" + resource
}

// Check is one action on one resource that IAM evaluates.
type Check struct {
	Action   string
	Resource string
}

// Classify derives from a request signed for service (the signing name in
// its SigV4 scope) the IAM checks it needs; ok is false for a service or
// operation it does not know, whose calls are not checked. body is the
// request's payload.
func Classify(r *http.Request, body []byte, service string, e Env) (c Call, ok bool) {
	c.Service = service
	switch service {
	case "dynamodb":
		c.protocol = protoJSON
		ok = classifyDynamoDB(&c, r, body, e)
	case "sqs":
		ok = classifySQS(&c, r, body, e)
	case "sns":
		c.protocol = protoSNS
		ok = classifySNS(&c, r, body, e)
	case "s3":
		c.protocol = protoS3
		ok = classifyS3(&c, r, body)
	case "secretsmanager":
		c.protocol = protoJSON
		ok = classifySecrets(&c, r, body, e)
	case "ssm":
		c.protocol = protoJSON
		ok = classifySSM(&c, r, body, e)
	}
	if !ok || len(c.Checks) == 0 {
		op := c.Operation
		if _, t := target(r); op == "" && t != "" {
			op = t
		} else if op == "" {
			op = r.URL.Query().Get("Action")
		}
		return Call{Service: service, Operation: op}, false
	}
	return c, true
}

// target is the operation of a JSON protocol request: X-Amz-Target's part
// after the dot, and the part before it.
func target(r *http.Request) (prefix, op string) {
	t := r.Header.Get("X-Amz-Target")
	i := strings.LastIndex(t, ".")
	if i < 0 {
		return "", ""
	}
	return t[:i], t[i+1:]
}

func (c *Call) add(action, resource string) {
	c.Checks = append(c.Checks, Check{Action: action, Resource: resource})
}

func classifyDynamoDB(c *Call, r *http.Request, body []byte, e Env) bool {
	prefix, op := target(r)
	c.Operation = op
	var in struct {
		TableName, IndexName, StreamArn, ResourceArn string
		RequestItems                                 map[string]json.RawMessage
		TransactItems                                []map[string]struct{ TableName string }
	}
	if op == "" || json.Unmarshal(body, &in) != nil {
		return false
	}
	table := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		return e.arn("dynamodb", "table/"+name)
	}
	if strings.HasPrefix(prefix, "DynamoDBStreams") {
		// GetRecords names its stream by an opaque shard iterator only.
		if in.StreamArn == "" {
			return false
		}
		c.add("dynamodb:"+op, in.StreamArn)
		return true
	}
	switch op {
	case "ListTables", "ListBackups", "ListGlobalTables", "DescribeLimits", "DescribeEndpoints", "ListExports", "ListImports":
		c.add("dynamodb:"+op, "*")
	case "BatchGetItem", "BatchWriteItem":
		for name := range in.RequestItems {
			c.add("dynamodb:"+op, table(name))
		}
	case "TransactGetItems", "TransactWriteItems":
		actions := map[string]string{"Get": "GetItem", "Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}
		for _, item := range in.TransactItems {
			for kind, v := range item {
				if a, ok := actions[kind]; ok && v.TableName != "" {
					c.add("dynamodb:"+a, table(v.TableName))
				}
			}
		}
	case "TagResource", "UntagResource", "ListTagsOfResource":
		if in.ResourceArn == "" {
			return false
		}
		c.add("dynamodb:"+op, in.ResourceArn)
	default:
		if in.TableName == "" {
			return false // ExecuteStatement (PartiQL) and the like
		}
		res := table(in.TableName)
		if in.IndexName != "" && (op == "Query" || op == "Scan") {
			res += "/index/" + in.IndexName
		}
		c.add("dynamodb:"+op, res)
	}
	return true
}

// sqsBatch are the SQS operations IAM checks as another action.
var sqsBatch = map[string]string{"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage", "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}

func classifySQS(c *Call, r *http.Request, body []byte, e Env) bool {
	var op, queueURL, queueName, owner string
	if _, t := target(r); t != "" || strings.Contains(r.Header.Get("Content-Type"), "json") {
		c.protocol = protoSQSJSON
		var in struct{ QueueUrl, QueueName, QueueOwnerAWSAccountId string }
		if t == "" || json.Unmarshal(body, &in) != nil {
			return false
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
		return false
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
			return false
		}
		c.add("sqs:"+action, arn)
	case queueName != "":
		acct := e.Account
		if owner != "" {
			acct = owner
		}
		c.add("sqs:"+action, "arn:"+e.partition()+":sqs:"+e.Region+":"+acct+":"+queueName)
	default:
		return false
	}
	return true
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

func classifySNS(c *Call, r *http.Request, body []byte, e Env) bool {
	q := queryParams(r, body)
	op := q.Get("Action")
	c.Operation = op
	action := "sns:" + op
	switch op {
	case "":
		return false
	case "Publish", "PublishBatch":
		action = "sns:Publish"
		switch {
		case q.Get("TopicArn") != "":
			c.add(action, q.Get("TopicArn"))
		case q.Get("TargetArn") != "":
			c.add(action, q.Get("TargetArn"))
		default:
			c.add(action, "*") // an SMS to a phone number
		}
	case "ListTopics", "ListSubscriptions", "ListPlatformApplications", "GetSMSAttributes", "CheckIfPhoneNumberIsOptedOut":
		c.add(action, "*")
	case "CreateTopic":
		if q.Get("Name") == "" {
			return false
		}
		c.add(action, e.arn("sns", q.Get("Name")))
	case "TagResource", "UntagResource", "ListTagsForResource":
		if q.Get("ResourceArn") == "" {
			return false
		}
		c.add(action, q.Get("ResourceArn"))
	default:
		if q.Get("TopicArn") == "" {
			return false
		}
		c.add(action, q.Get("TopicArn"))
	}
	return true
}

// s3Plain are the query parameters of S3 requests that do not name a
// subresource: listing options, the SDK's x-id, versions and parts.
var s3Plain = map[string]bool{"prefix": true, "delimiter": true, "marker": true, "max-keys": true, "list-type": true,
	"continuation-token": true, "start-after": true, "fetch-owner": true, "encoding-type": true, "x-id": true,
	"versionId": true, "partNumber": true, "key-marker": true, "version-id-marker": true, "upload-id-marker": true,
	"max-uploads": true, "max-parts": true, "part-number-marker": true}

// bucketAndKey are the bucket and key r addresses: virtual-host style
// (BUCKET.s3.REGION.amazonaws.com, BUCKET.localhost) or path style.
func bucketAndKey(r *http.Request) (string, string) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	path := r.URL.Path
	if net.ParseIP(host) == nil {
		for _, sep := range []string{".s3.", ".s3-", ".localhost"} {
			if i := strings.Index(host, sep); i > 0 {
				path = "/" + host[:i] + path
				break
			}
		}
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return bucket, key
}

func classifyS3(c *Call, r *http.Request, body []byte) bool {
	bucket, key := bucketAndKey(r)
	q := r.URL.Query()
	sub := ""
	for k := range q {
		if !s3Plain[k] && !strings.HasPrefix(k, "response-") {
			sub = k
			break
		}
	}
	has := func(k string) bool { return q.Has(k) }
	arn := "arn:aws:s3:::" + bucket
	obj := arn + "/" + key
	op := func(name, action, res string) {
		c.Operation = name
		c.add("s3:"+action, res)
	}
	switch {
	case bucket == "":
		if r.Method != http.MethodGet {
			return false
		}
		op("ListBuckets", "ListAllMyBuckets", "*")
	case key != "":
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			switch {
			case sub == "" && has("versionId"):
				op("GetObject", "GetObjectVersion", obj)
			case sub == "":
				op("GetObject", "GetObject", obj)
			case sub == "tagging":
				op("GetObjectTagging", "GetObjectTagging", obj)
			case sub == "acl":
				op("GetObjectAcl", "GetObjectAcl", obj)
			case sub == "attributes":
				op("GetObjectAttributes", "GetObjectAttributes", obj)
			case sub == "uploadId":
				op("ListParts", "ListMultipartUploadParts", obj)
			default:
				return false
			}
		case http.MethodPut:
			switch sub {
			case "", "uploadId":
				op("PutObject", "PutObject", obj)
				if src := r.Header.Get("X-Amz-Copy-Source"); src != "" {
					c.Operation = "CopyObject"
					src, _, _ = strings.Cut(src, "?")
					if u, err := url.PathUnescape(src); err == nil {
						src = u
					}
					c.add("s3:GetObject", "arn:aws:s3:::"+strings.TrimPrefix(src, "/"))
				}
			case "tagging":
				op("PutObjectTagging", "PutObjectTagging", obj)
			case "acl":
				op("PutObjectAcl", "PutObjectAcl", obj)
			default:
				return false
			}
		case http.MethodPost:
			switch sub {
			case "uploads", "uploadId":
				op("CreateMultipartUpload", "PutObject", obj)
			case "restore":
				op("RestoreObject", "RestoreObject", obj)
			default:
				return false
			}
		case http.MethodDelete:
			switch {
			case sub == "uploadId":
				op("AbortMultipartUpload", "AbortMultipartUpload", obj)
			case sub == "tagging":
				op("DeleteObjectTagging", "DeleteObjectTagging", obj)
			case sub == "" && has("versionId"):
				op("DeleteObject", "DeleteObjectVersion", obj)
			case sub == "":
				op("DeleteObject", "DeleteObject", obj)
			default:
				return false
			}
		default:
			return false
		}
	default:
		switch {
		case (r.Method == http.MethodGet || r.Method == http.MethodHead) && sub == "":
			op("ListObjects", "ListBucket", arn)
		case r.Method == http.MethodGet && sub == "versions":
			op("ListObjectVersions", "ListBucketVersions", arn)
		case r.Method == http.MethodGet && sub == "uploads":
			op("ListMultipartUploads", "ListBucketMultipartUploads", arn)
		case r.Method == http.MethodGet && sub == "location":
			op("GetBucketLocation", "GetBucketLocation", arn)
		case r.Method == http.MethodPut && sub == "":
			op("CreateBucket", "CreateBucket", arn)
		case r.Method == http.MethodDelete && sub == "":
			op("DeleteBucket", "DeleteBucket", arn)
		case r.Method == http.MethodPost && sub == "delete":
			var in struct {
				Objects []struct{ Key string } `xml:"Object"`
			}
			if xml.Unmarshal(body, &in) != nil || len(in.Objects) == 0 {
				return false
			}
			c.Operation = "DeleteObjects"
			for _, o := range in.Objects {
				c.add("s3:DeleteObject", arn+"/"+o.Key)
			}
		default:
			return false
		}
	}
	return true
}

func classifySecrets(c *Call, r *http.Request, body []byte, e Env) bool {
	_, op := target(r)
	c.Operation = op
	var in struct{ SecretId, Name string }
	if op == "" || json.Unmarshal(body, &in) != nil {
		return false
	}
	id := in.SecretId
	switch op {
	case "ListSecrets", "GetRandomPassword", "BatchGetSecretValue":
		if op == "BatchGetSecretValue" {
			return false // each secret is checked as GetSecretValue: not modelled
		}
		c.add("secretsmanager:"+op, "*")
		return true
	case "CreateSecret":
		id = in.Name
	}
	if id == "" {
		return false
	}
	arn := id
	if !strings.HasPrefix(id, "arn:") {
		if a, ok := e.SecretARNs[id]; ok {
			arn = a
		} else {
			arn = e.arn("secretsmanager", "secret:"+id)
		}
	}
	c.add("secretsmanager:"+op, arn)
	return true
}

func classifySSM(c *Call, r *http.Request, body []byte, e Env) bool {
	_, op := target(r)
	c.Operation = op
	var in struct {
		Name, Path string
		Names      []string
	}
	if op == "" || json.Unmarshal(body, &in) != nil {
		return false
	}
	param := func(name string) string {
		if strings.HasPrefix(name, "arn:") {
			return name
		}
		if strings.HasPrefix(name, "/") {
			return e.arn("ssm", "parameter"+name)
		}
		return e.arn("ssm", "parameter/"+name)
	}
	switch op {
	case "DescribeParameters":
		c.add("ssm:"+op, "*")
	case "GetParameters", "DeleteParameters":
		for _, n := range in.Names {
			c.add("ssm:"+op, param(n))
		}
	case "GetParametersByPath":
		if in.Path == "" {
			return false
		}
		c.add("ssm:"+op, param(in.Path))
	case "GetParameter", "PutParameter", "DeleteParameter", "GetParameterHistory", "LabelParameterVersion", "UnlabelParameterVersion":
		if in.Name == "" {
			return false
		}
		c.add("ssm:"+op, param(in.Name))
	default:
		return false
	}
	return true
}
