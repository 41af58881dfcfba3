package localiam

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// sqsURLAnswers are the SQS operations whose answers name queues by URL:
// CreateQueue's and GetQueueUrl's QueueUrl, ListQueues' QueueUrls and
// ListDeadLetterSourceQueues' queueUrls (each a QueueUrl element in the
// query protocol's XML).
var sqsURLAnswers = map[string]bool{"CreateQueue": true, "GetQueueUrl": true, "ListQueues": true, "ListDeadLetterSourceQueues": true}

// maxReadAnswer is the largest answer the proxy reads whole to rewrite
// it: ListQueues gives at most 1000 URLs a page, some 200 KB.
const maxReadAnswer = 4 << 20

// queueURLs rewrites the queue URLs an emulator (or an endpoint the CLI's
// environment names) answers with, which name the address the call was
// sent to (moto builds them from the Host it was called on), into URLs of
// the proxy with the same /ACCOUNT/NAME path: the function is given no
// address but the proxy's, and an SDK that sends a queue's calls to its
// URL sends them through the check.
type queueURLs struct {
	// from are the forms of the upstream's scheme://host[:port], lower
	// case (with and without the scheme's default port); prefix its path
	// ("" or "/path").
	from   []string
	prefix string
	// to is the proxy's URL.
	to string
}

// answerRewrite is how the answer to call c, sent to base, is rewritten
// before it goes back; nil when it goes back as it comes (streamed).
// Only the SQS answers naming queue URLs are, and only when the call went
// to an emulator or an endpoint (Target.Upstream, Target.Endpoints): a
// deployed stage's queue URLs are AWS's, where the function's credentials,
// which only the proxy knows, are refused.
func (p *Proxy) answerRewrite(t *Target, c Call, base string) *queueURLs {
	if c.Service != "sqs" || !sqsURLAnswers[c.Operation] || (t.Endpoints[c.Service] == "" && t.Upstream == "") {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	from := []string{scheme + "://" + strings.ToLower(u.Host)}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	switch def := map[string]string{"http": "80", "https": "443"}[scheme]; {
	case def == "":
	case u.Port() == def:
		from = append(from, scheme+"://"+host)
	case u.Port() == "":
		from = append(from, scheme+"://"+host+":"+def)
	}
	return &queueURLs{from: from, prefix: strings.TrimRight(u.EscapedPath(), "/"), to: p.URL}
}

// url is s on the proxy, when s is a URL on the upstream.
func (q *queueURLs) url(s string) (string, bool) {
	for _, f := range q.from {
		if len(s) < len(f) || !strings.EqualFold(s[:len(f)], f) {
			continue
		}
		rest := s[len(f):]
		if rest != "" && rest[0] != '/' {
			continue
		}
		if q.prefix != "" && strings.HasPrefix(rest, q.prefix+"/") {
			rest = rest[len(q.prefix):]
		}
		return q.to + rest, true
	}
	return s, false
}

// rewrite reads resp's body whole and rewrites the queue URLs in it (the
// JSON protocol's QueueUrl, QueueUrls and queueUrls, the query protocol's
// QueueUrl elements), setting its Content-Length and the checksums it
// carries (X-Amz-Crc32, Content-MD5) again. A body it cannot read is an
// error: the answer is not passed on.
func (q *queueURLs) rewrite(resp *http.Response) ([]byte, error) {
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return nil, fmt.Errorf("its answer is %s-encoded, which the check does not read to give the proxy's queue URLs", ce)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReadAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("its answer could not be read: %w", err)
	}
	if len(b) > maxReadAnswer {
		return nil, fmt.Errorf("its answer is larger than the %d MiB the check reads to give the proxy's queue URLs", maxReadAnswer>>20)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var out []byte
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return b, nil
	case strings.Contains(ct, "json"):
		out, err = q.rewriteJSON(b)
	case strings.Contains(ct, "xml") || bytes.HasPrefix(bytes.TrimSpace(b), []byte("<")):
		out, err = q.rewriteXML(b)
	default:
		err = fmt.Errorf("its answer is of Content-Type %q, neither JSON nor XML", resp.Header.Get("Content-Type"))
	}
	if err != nil {
		return nil, err
	}
	h := resp.Header
	h.Set("Content-Length", strconv.Itoa(len(out)))
	if h.Get("X-Amz-Crc32") != "" {
		h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(out)), 10))
	}
	if h.Get("Content-Md5") != "" {
		sum := md5.Sum(out)
		h.Set("Content-Md5", base64.StdEncoding.EncodeToString(sum[:]))
	}
	return out, nil
}

// rewriteJSON rewrites the queue URLs of a JSON protocol answer.
func (q *queueURLs) rewriteJSON(b []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("its answer is not a JSON object: %w", err)
	}
	changed := false
	for k, v := range m {
		var err error
		switch k {
		case "QueueUrl":
			var s string
			if err = json.Unmarshal(v, &s); err == nil {
				if s2, ok := q.url(s); ok {
					m[k], err = json.Marshal(s2)
					changed = true
				}
			}
		case "QueueUrls", "queueUrls":
			var ss []string
			if err = json.Unmarshal(v, &ss); err == nil {
				hit := false
				for i, s := range ss {
					var ok bool
					if ss[i], ok = q.url(s); ok {
						hit = true
					}
				}
				if hit {
					m[k], err = json.Marshal(ss)
					changed = true
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("its answer's %s is not what SQS answers: %w", k, err)
		}
	}
	if !changed {
		return b, nil
	}
	return json.Marshal(m)
}

var (
	queueURLOpen  = []byte("<QueueUrl>")
	queueURLClose = []byte("</QueueUrl>")
)

// rewriteXML rewrites the text of the QueueUrl elements of a query
// protocol answer.
func (q *queueURLs) rewriteXML(b []byte) ([]byte, error) {
	var out bytes.Buffer
	rest := b
	for {
		i := bytes.Index(rest, queueURLOpen)
		if i < 0 {
			break
		}
		out.Write(rest[:i+len(queueURLOpen)])
		rest = rest[i+len(queueURLOpen):]
		j := bytes.Index(rest, queueURLClose)
		if j < 0 {
			return nil, errors.New("its answer has a QueueUrl element without its end")
		}
		var text string
		if err := xml.Unmarshal([]byte("<u>"+string(rest[:j])+"</u>"), &text); err != nil {
			return nil, fmt.Errorf("its answer's QueueUrl element is not text: %w", err)
		}
		if s, ok := q.url(text); ok {
			_ = xml.EscapeText(&out, []byte(s))
		} else {
			out.Write(rest[:j])
		}
		rest = rest[j:]
	}
	out.Write(rest)
	return out.Bytes(), nil
}
