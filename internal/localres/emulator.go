package localres

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
)

// ensure creates declared resource d of m under the name physical at the
// emulator unless it is there, and returns its attributes. One that is
// there gets what its declaration changed where the service allows it,
// else a line says what differs (update.go). A table there without a
// stream gets the one d declares.
func (c *Client) ensure(ctx context.Context, m *manifest.Manifest, physical string, d *manifest.Resource) (map[string]string, error) {
	switch d.Kind {
	case manifest.ResourceTable:
		return c.ensureTable(ctx, physical, d)
	case manifest.ResourceQueue:
		return c.ensureQueue(ctx, m, physical, d)
	case manifest.ResourceTopic:
		if noting(ctx) && !c.topicExists(ctx, physical) {
			noteCreated(ctx, "topic "+physical)
		}
		arn, err := c.createTopic(ctx, physical, topicAttributes(d))
		return map[string]string{manifest.AttrName: physical, manifest.AttrARN: arn}, err
	case manifest.ResourceBucket:
		attrs, err := c.ensureBucket(ctx, physical)
		if err == nil {
			err = c.applyBucketRules(ctx, physical, d)
		}
		return attrs, err
	case manifest.ResourceSecret:
		return c.ensureSecret(ctx, physical)
	case manifest.ResourceParameter:
		return c.ensureParameter(ctx, physical)
	}
	return nil, fmt.Errorf("unknown resource kind %q", d.Kind)
}

type tableDesc struct {
	Table struct {
		TableArn            string
		LatestStreamArn     string
		StreamSpecification struct {
			StreamEnabled  bool
			StreamViewType string
		}
		keySchema
	}
	TableDescription struct {
		TableArn        string
		LatestStreamArn string
	}
}

func (c *Client) ensureTable(ctx context.Context, name string, d *manifest.Resource) (map[string]string, error) {
	var out tableDesc
	err := c.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": name}, &out)
	arn, stream := out.Table.TableArn, out.Table.LatestStreamArn
	if awscall.IsCode(err, "ResourceNotFoundException") {
		noteCreated(ctx, "table "+name)
		keys := []map[string]string{{"AttributeName": d.PartitionKey.Name, "KeyType": "HASH"}}
		defs := []map[string]string{{"AttributeName": d.PartitionKey.Name, "AttributeType": d.PartitionKey.Type}}
		if d.SortKey != nil {
			keys = append(keys, map[string]string{"AttributeName": d.SortKey.Name, "KeyType": "RANGE"})
			defs = append(defs, map[string]string{"AttributeName": d.SortKey.Name, "AttributeType": d.SortKey.Type})
		}
		in := map[string]any{"TableName": name, "KeySchema": keys, "AttributeDefinitions": defs, "BillingMode": "PAY_PER_REQUEST"}
		tableIndexes(in, d)
		if d.Stream != "" {
			in["StreamSpecification"] = map[string]any{"StreamEnabled": true, "StreamViewType": d.Stream}
		}
		if err = c.Call(ctx, "dynamodb", "CreateTable", in, &out); err == nil && d.TTLAttribute != "" {
			err = c.Call(ctx, "dynamodb", "UpdateTimeToLive", map[string]any{"TableName": name,
				"TimeToLiveSpecification": map[string]any{"Enabled": true, "AttributeName": d.TTLAttribute}}, nil)
		}
		arn, stream = out.TableDescription.TableArn, out.TableDescription.LatestStreamArn
	} else if err == nil {
		// A table created before its declaration changed.
		view := ""
		if out.Table.StreamSpecification.StreamEnabled {
			view = out.Table.StreamSpecification.StreamViewType
		}
		err = c.checkTable(ctx, name, d, &out.Table.keySchema, view)
	}
	if err == nil && d.Stream != "" && out.Table.TableArn != "" && !out.Table.StreamSpecification.StreamEnabled {
		// A table created before its stream was declared gets it.
		err = c.Call(ctx, "dynamodb", "UpdateTable", map[string]any{"TableName": name,
			"StreamSpecification": map[string]any{"StreamEnabled": true, "StreamViewType": d.Stream}}, &out)
		stream = out.TableDescription.LatestStreamArn
	}
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{manifest.AttrName: name, manifest.AttrARN: arn}
	if d.Stream != "" {
		attrs[manifest.AttrStreamARN] = stream
	}
	return attrs, nil
}

func (c *Client) ensureQueue(ctx context.Context, m *manifest.Manifest, name string, d *manifest.Resource) (map[string]string, error) {
	// The attributes the stack's queue has (declspec.QueueOf).
	q := declspec.QueueOf(m, c.stage, d)
	attrs := q.Attributes()
	var dlq map[string]string
	if q.MaxReceiveCount > 0 {
		dlqName := strings.TrimSuffix(name, ".fifo") + "-dlq"
		if q.FIFO {
			dlqName += ".fifo"
		}
		// The dead-letter queue's attributes (declspec.Queue.DeadLetter),
		// given to one that was there as to the queue itself.
		dq := q.DeadLetter()
		dlqURL, created, err := c.queueURLCreated(ctx, dlqName, dq.Attributes())
		if err == nil && !created {
			err = c.updateQueue(ctx, dlqName, dlqURL, &dq, map[string]string{})
		} else if err == nil {
			c.noteFIFOTwin(ctx, dlqName, dq.FIFO)
		}
		if err != nil {
			return nil, err
		}
		dlqARN, err := c.QueueARN(ctx, dlqURL)
		if err != nil {
			return nil, err
		}
		rp, _ := json.Marshal(map[string]any{"deadLetterTargetArn": dlqARN, "maxReceiveCount": q.MaxReceiveCount})
		attrs["RedrivePolicy"] = string(rp)
		dlq = map[string]string{manifest.AttrDLQName: dlqName, manifest.AttrDLQURL: dlqURL, manifest.AttrDLQARN: dlqARN}
	}
	u, created, err := c.queueURLCreated(ctx, name, maps.Clone(attrs))
	if err == nil && !created {
		// A queue created before its declaration changed gets the change.
		err = c.updateQueue(ctx, name, u, &q, attrs)
	} else if err == nil {
		c.noteFIFOTwin(ctx, name, q.FIFO)
	}
	if err != nil {
		return nil, err
	}
	arn, err := c.QueueARN(ctx, u)
	if err != nil {
		return nil, err
	}
	out := map[string]string{manifest.AttrName: name, manifest.AttrARN: arn, manifest.AttrURL: u}
	maps.Copy(out, dlq)
	return out, nil
}

// queueURL returns the URL of the queue named name, creating it with
// attrs when it does not exist.
func (c *Client) queueURL(ctx context.Context, name string, attrs map[string]string) (string, error) {
	u, _, err := c.queueURLCreated(ctx, name, attrs)
	return u, err
}

// queueURLCreated is queueURL, and whether it created the queue.
func (c *Client) queueURLCreated(ctx context.Context, name string, attrs map[string]string) (string, bool, error) {
	var out struct{ QueueUrl string }
	err := c.Call(ctx, "sqs", "GetQueueUrl", map[string]any{"QueueName": name}, &out)
	created := false
	if missingQueue(err) {
		noteCreated(ctx, "queue "+name)
		for k, v := range attrs {
			if v == "" {
				delete(attrs, k)
			}
		}
		err = c.Call(ctx, "sqs", "CreateQueue", map[string]any{"QueueName": name, "Attributes": attrs}, &out)
		created = err == nil
	}
	return out.QueueUrl, created, err
}

// missingQueue reports whether err says the queue called does not exist.
func missingQueue(err error) bool {
	var ae *awscall.Error
	return errors.As(err, &ae) && (ae.Code == "QueueDoesNotExist" || strings.HasSuffix(ae.Code, "NonExistentQueue"))
}

// createdKey is the context key of a createdList.
type createdKey struct{}

// createdList collects what the calls made with its context created
// because it was missing.
type createdList struct {
	mu   sync.Mutex
	what []string
}

// noting reports whether ctx collects what its calls create.
func noting(ctx context.Context) bool {
	_, ok := ctx.Value(createdKey{}).(*createdList)
	return ok
}

// withCreated returns a context whose calls note in the returned list
// what they create because it was missing.
func withCreated(ctx context.Context) (context.Context, *createdList) {
	l := &createdList{}
	return context.WithValue(ctx, createdKey{}, l), l
}

// noteCreated notes, when ctx collects them, that what was created.
func noteCreated(ctx context.Context, what string) {
	if l, ok := ctx.Value(createdKey{}).(*createdList); ok {
		l.mu.Lock()
		l.what = append(l.what, what)
		l.mu.Unlock()
	}
}

// list is what was created, in order.
func (l *createdList) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.what)
}

// topicExists reports whether the emulator has the topic named name (and
// false when it cannot say).
func (c *Client) topicExists(ctx context.Context, name string) bool {
	form := url.Values{"Action": {"ListTopics"}}
	for {
		var out struct {
			ARNs []string `xml:"ListTopicsResult>Topics>member>TopicArn"`
			Next string   `xml:"ListTopicsResult>NextToken"`
		}
		if err := c.sns(ctx, form, &out); err != nil {
			return false
		}
		for _, a := range out.ARNs {
			if strings.HasSuffix(a, ":"+name) {
				return true
			}
		}
		if out.Next == "" {
			return false
		}
		form = url.Values{"Action": {"ListTopics"}, "NextToken": {out.Next}}
	}
}

// QueueARN returns the ARN of the queue at url.
func (c *Client) QueueARN(ctx context.Context, url string) (string, error) {
	var out struct{ Attributes map[string]string }
	err := c.Call(ctx, "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": url, "AttributeNames": []string{"QueueArn"}}, &out)
	return out.Attributes["QueueArn"], err
}

// s3Client is an S3 client of c, with path-style addresses (emulators
// seldom resolve bucket subdomains).
func (c *Client) s3Client() *s3.Client {
	return s3.NewFromConfig(c.sdk, func(o *s3.Options) { o.UsePathStyle = true })
}

func (c *Client) ensureBucket(ctx context.Context, name string) (map[string]string, error) {
	s := c.s3Client()
	_, err := s.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)})
	if err != nil {
		noteCreated(ctx, "bucket "+name)
		_, err = s.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
		var ae smithy.APIError
		if errors.As(err, &ae) && (ae.ErrorCode() == "BucketAlreadyOwnedByYou") {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{manifest.AttrName: name, manifest.AttrARN: "arn:aws:s3:::" + name}, nil
}

func (c *Client) ensureSecret(ctx context.Context, name string) (map[string]string, error) {
	var out struct{ ARN, Name string }
	err := c.Call(ctx, "secretsmanager", "DescribeSecret", map[string]any{"SecretId": name}, &out)
	if awscall.IsCode(err, "ResourceNotFoundException") {
		noteCreated(ctx, "secret "+name+" (without its value: set it again with `framework secret set`)")
		err = c.Call(ctx, "secretsmanager", "CreateSecret", map[string]any{"Name": name, "SecretString": manifest.UnsetValue}, &out)
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{manifest.AttrName: name, manifest.AttrARN: out.ARN}, nil
}

func (c *Client) ensureParameter(ctx context.Context, name string) (map[string]string, error) {
	var out struct{ Parameter struct{ ARN string } }
	err := c.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": name}, &out)
	if awscall.IsCode(err, "ParameterNotFound") {
		noteCreated(ctx, "parameter "+name+" (without its value: set it again with `framework secret set`)")
		if err = c.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": name, "Value": manifest.UnsetValue, "Type": "String"}, nil); err == nil {
			err = c.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": name}, &out)
		}
	}
	if err != nil {
		return nil, err
	}
	arn := out.Parameter.ARN
	if arn == "" {
		arn = fmt.Sprintf("arn:aws:ssm:%s:000000000000:parameter/%s", c.Region(), name)
	}
	return map[string]string{manifest.AttrName: name, manifest.AttrARN: arn}, nil
}

// CreateTopic creates the SNS topic named name (or finds it: SNS's
// CreateTopic is idempotent) and returns its ARN.
func (c *Client) CreateTopic(ctx context.Context, name string) (string, error) {
	return c.createTopic(ctx, name, nil)
}

// Subscribe subscribes the queue queueARN to the topic topicARN (SNS's
// Subscribe is idempotent), with the envelope SNS sends a queue.
func (c *Client) Subscribe(ctx context.Context, topicARN, queueARN string) error {
	return c.subscribe(ctx, topicARN, queueARN, nil)
}

// sns calls SNS's query protocol: a signed form POST answered in XML.
func (c *Client) sns(ctx context.Context, form url.Values, out any) error {
	form.Set("Version", "2010-03-31")
	body := []byte(form.Encode())
	endpoint := c.endpoint
	if endpoint == "" {
		endpoint = "https://sns." + c.Region() + ".amazonaws.com/"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	creds, err := c.call.CurrentCredentials(ctx)
	if err != nil {
		return fmt.Errorf("sns %s: %w", form.Get("Action"), err)
	}
	awscall.Sign(req, body, creds, c.Region(), "sns", time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("sns %s: %w", form.Get("Action"), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("sns %s: %w", form.Get("Action"), err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Code    string `xml:"Error>Code"`
			Message string `xml:"Error>Message"`
		}
		_ = xml.Unmarshal(b, &e)
		return fmt.Errorf("sns %s: %s: %s (HTTP %d)", form.Get("Action"), e.Code, e.Message, resp.StatusCode)
	}
	if out != nil {
		return xml.Unmarshal(b, out)
	}
	return nil
}
