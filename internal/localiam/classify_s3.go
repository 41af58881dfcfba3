package localiam

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// s3Plain are the query parameters of S3 requests that do not name a
// subresource: listing options, the SDK's x-id, versions and parts, the
// ids of inventory and analytics configurations; response-* (GetObject's
// header overrides) are plain too. Any other parameter must be a
// subresource the check models (s3BucketSubs, s3ObjectSubs).
var s3Plain = map[string]bool{"prefix": true, "delimiter": true, "marker": true, "max-keys": true, "list-type": true,
	"continuation-token": true, "start-after": true, "fetch-owner": true, "encoding-type": true, "x-id": true,
	"versionId": true, "partNumber": true, "key-marker": true, "version-id-marker": true, "upload-id-marker": true,
	"max-uploads": true, "max-parts": true, "part-number-marker": true, "max-buckets": true, "bucket-region": true,
	"select-type": true, "id": true}

// s3Op is an S3 operation and the IAM action it needs (their names often
// differ: DeleteBucketCors needs s3:PutBucketCORS). Versioned, when set,
// is the action the operation needs on a given object version (a
// versionId parameter).
type s3Op struct{ Name, Action, Versioned string }

// s3BucketSubs are the bucket subresources the check models, by method,
// with the IAM actions of "Required permissions for Amazon S3 API
// operations" in the S3 user guide.
var s3BucketSubs = map[string]map[string]s3Op{
	"acl":                 {"GET": {"GetBucketAcl", "GetBucketAcl", ""}, "PUT": {"PutBucketAcl", "PutBucketAcl", ""}},
	"policy":              {"GET": {"GetBucketPolicy", "GetBucketPolicy", ""}, "PUT": {"PutBucketPolicy", "PutBucketPolicy", ""}, "DELETE": {"DeleteBucketPolicy", "DeleteBucketPolicy", ""}},
	"policyStatus":        {"GET": {"GetBucketPolicyStatus", "GetBucketPolicyStatus", ""}},
	"cors":                {"GET": {"GetBucketCors", "GetBucketCORS", ""}, "PUT": {"PutBucketCors", "PutBucketCORS", ""}, "DELETE": {"DeleteBucketCors", "PutBucketCORS", ""}},
	"lifecycle":           {"GET": {"GetBucketLifecycleConfiguration", "GetLifecycleConfiguration", ""}, "PUT": {"PutBucketLifecycleConfiguration", "PutLifecycleConfiguration", ""}, "DELETE": {"DeleteBucketLifecycle", "PutLifecycleConfiguration", ""}},
	"versioning":          {"GET": {"GetBucketVersioning", "GetBucketVersioning", ""}, "PUT": {"PutBucketVersioning", "PutBucketVersioning", ""}},
	"tagging":             {"GET": {"GetBucketTagging", "GetBucketTagging", ""}, "PUT": {"PutBucketTagging", "PutBucketTagging", ""}, "DELETE": {"DeleteBucketTagging", "PutBucketTagging", ""}},
	"encryption":          {"GET": {"GetBucketEncryption", "GetEncryptionConfiguration", ""}, "PUT": {"PutBucketEncryption", "PutEncryptionConfiguration", ""}, "DELETE": {"DeleteBucketEncryption", "PutEncryptionConfiguration", ""}},
	"notification":        {"GET": {"GetBucketNotificationConfiguration", "GetBucketNotification", ""}, "PUT": {"PutBucketNotificationConfiguration", "PutBucketNotification", ""}},
	"website":             {"GET": {"GetBucketWebsite", "GetBucketWebsite", ""}, "PUT": {"PutBucketWebsite", "PutBucketWebsite", ""}, "DELETE": {"DeleteBucketWebsite", "DeleteBucketWebsite", ""}},
	"logging":             {"GET": {"GetBucketLogging", "GetBucketLogging", ""}, "PUT": {"PutBucketLogging", "PutBucketLogging", ""}},
	"ownershipControls":   {"GET": {"GetBucketOwnershipControls", "GetBucketOwnershipControls", ""}, "PUT": {"PutBucketOwnershipControls", "PutBucketOwnershipControls", ""}, "DELETE": {"DeleteBucketOwnershipControls", "PutBucketOwnershipControls", ""}},
	"publicAccessBlock":   {"GET": {"GetPublicAccessBlock", "GetBucketPublicAccessBlock", ""}, "PUT": {"PutPublicAccessBlock", "PutBucketPublicAccessBlock", ""}, "DELETE": {"DeletePublicAccessBlock", "PutBucketPublicAccessBlock", ""}},
	"object-lock":         {"GET": {"GetObjectLockConfiguration", "GetBucketObjectLockConfiguration", ""}, "PUT": {"PutObjectLockConfiguration", "PutBucketObjectLockConfiguration", ""}},
	"replication":         {"GET": {"GetBucketReplication", "GetReplicationConfiguration", ""}, "PUT": {"PutBucketReplication", "PutReplicationConfiguration", ""}, "DELETE": {"DeleteBucketReplication", "PutReplicationConfiguration", ""}},
	"accelerate":          {"GET": {"GetBucketAccelerateConfiguration", "GetAccelerateConfiguration", ""}, "PUT": {"PutBucketAccelerateConfiguration", "PutAccelerateConfiguration", ""}},
	"requestPayment":      {"GET": {"GetBucketRequestPayment", "GetBucketRequestPayment", ""}, "PUT": {"PutBucketRequestPayment", "PutBucketRequestPayment", ""}},
	"location":            {"GET": {"GetBucketLocation", "GetBucketLocation", ""}},
	"uploads":             {"GET": {"ListMultipartUploads", "ListBucketMultipartUploads", ""}},
	"versions":            {"GET": {"ListObjectVersions", "ListBucketVersions", ""}},
	"inventory":           {"GET": {"GetBucketInventoryConfiguration", "GetInventoryConfiguration", ""}, "PUT": {"PutBucketInventoryConfiguration", "PutInventoryConfiguration", ""}, "DELETE": {"DeleteBucketInventoryConfiguration", "PutInventoryConfiguration", ""}},
	"analytics":           {"GET": {"GetBucketAnalyticsConfiguration", "GetAnalyticsConfiguration", ""}, "PUT": {"PutBucketAnalyticsConfiguration", "PutAnalyticsConfiguration", ""}, "DELETE": {"DeleteBucketAnalyticsConfiguration", "PutAnalyticsConfiguration", ""}},
	"metrics":             {"GET": {"GetBucketMetricsConfiguration", "GetMetricsConfiguration", ""}, "PUT": {"PutBucketMetricsConfiguration", "PutMetricsConfiguration", ""}, "DELETE": {"DeleteBucketMetricsConfiguration", "PutMetricsConfiguration", ""}},
	"intelligent-tiering": {"GET": {"GetBucketIntelligentTieringConfiguration", "GetIntelligentTieringConfiguration", ""}, "PUT": {"PutBucketIntelligentTieringConfiguration", "PutIntelligentTieringConfiguration", ""}, "DELETE": {"DeleteBucketIntelligentTieringConfiguration", "PutIntelligentTieringConfiguration", ""}},
	// POST ?delete is DeleteObjects, whose keys are in the body.
	"delete": {},
	// No subresource: the bucket itself.
	"": {"GET": {"ListObjects", "ListBucket", ""}, "PUT": {"CreateBucket", "CreateBucket", ""}, "DELETE": {"DeleteBucket", "DeleteBucket", ""}},
}

// s3ObjectSubs are the object subresources the check models, by method.
var s3ObjectSubs = map[string]map[string]s3Op{
	"":           {"GET": {"GetObject", "GetObject", "GetObjectVersion"}, "PUT": {"PutObject", "PutObject", ""}, "DELETE": {"DeleteObject", "DeleteObject", "DeleteObjectVersion"}},
	"acl":        {"GET": {"GetObjectAcl", "GetObjectAcl", "GetObjectVersionAcl"}, "PUT": {"PutObjectAcl", "PutObjectAcl", "PutObjectVersionAcl"}},
	"tagging":    {"GET": {"GetObjectTagging", "GetObjectTagging", "GetObjectVersionTagging"}, "PUT": {"PutObjectTagging", "PutObjectTagging", "PutObjectVersionTagging"}, "DELETE": {"DeleteObjectTagging", "DeleteObjectTagging", "DeleteObjectVersionTagging"}},
	"attributes": {"GET": {"GetObjectAttributes", "GetObjectAttributes", "GetObjectVersionAttributes"}},
	"retention":  {"GET": {"GetObjectRetention", "GetObjectRetention", ""}, "PUT": {"PutObjectRetention", "PutObjectRetention", ""}},
	"legal-hold": {"GET": {"GetObjectLegalHold", "GetObjectLegalHold", ""}, "PUT": {"PutObjectLegalHold", "PutObjectLegalHold", ""}},
	"torrent":    {"GET": {"GetObjectTorrent", "GetObjectTorrent", "GetObjectVersionTorrent"}},
	"uploadId":   {"GET": {"ListParts", "ListMultipartUploadParts", ""}, "PUT": {"UploadPart", "PutObject", ""}, "POST": {"CompleteMultipartUpload", "PutObject", ""}, "DELETE": {"AbortMultipartUpload", "AbortMultipartUpload", ""}},
	"uploads":    {"POST": {"CreateMultipartUpload", "PutObject", ""}},
	"restore":    {"POST": {"RestoreObject", "RestoreObject", ""}},
	"select":     {"POST": {"SelectObjectContent", "GetObject", ""}},
}

// s3NeedValue are parameters that name something only with a value: the
// emulator reads ?uploadId= (empty) as no upload at all.
var s3NeedValue = map[string]bool{"uploadId": true, "versionId": true, "partNumber": true}

// s3ParamNames are the names of s3Plain and the subresources, in lower
// case.
var s3ParamNames = func() map[string]bool {
	m := map[string]bool{}
	for k := range s3Plain {
		m[strings.ToLower(k)] = true
	}
	for _, subs := range []map[string]map[string]s3Op{s3BucketSubs, s3ObjectSubs} {
		for k := range subs {
			if k != "" {
				m[strings.ToLower(k)] = true
			}
		}
	}
	return m
}()

// s3HostBucket is the bucket the Host of an S3 request names (virtual-host
// style: BUCKET.s3.REGION.amazonaws.com, BUCKET.localhost), "" when it
// names none (path style: an IP address, localhost, s3.REGION.amazonaws.com).
// A Host of another form is an error: which bucket it means depends on the
// server.
func s3HostBucket(host string) (string, error) {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	lower := strings.ToLower(h)
	if net.ParseIP(strings.Trim(lower, "[]")) != nil || lower == "localhost" {
		return "", nil
	}
	for _, special := range []string{"accesspoint", "object-lambda", "s3-control", "s3express", "mrap"} {
		if strings.Contains(lower, special) {
			return "", fmt.Errorf("the request's Host %q names an S3 access point or another endpoint the check does not model; call the bucket at the endpoint in AWS_ENDPOINT_URL", host)
		}
	}
	var rest string
	switch {
	case strings.HasSuffix(lower, ".localhost"):
		rest = strings.TrimSuffix(h[:len(h)-len(".localhost")], ".s3")
		if strings.EqualFold(rest, "s3") {
			rest = ""
		}
	case strings.HasSuffix(lower, ".amazonaws.com") || strings.HasSuffix(lower, ".amazonaws.com.cn"):
		labels := strings.Split(lower, ".")
		j := -1
		for i, l := range labels {
			if l == "s3" || strings.HasPrefix(l, "s3-") {
				j = i
			}
		}
		if j < 0 {
			return "", fmt.Errorf("the request's Host %q is not an S3 endpoint", host)
		}
		rest = h[:len(strings.Join(labels[:j], "."))]
	default:
		return "", fmt.Errorf("the request's Host %q is neither the proxy's address nor an S3 endpoint, so the bucket it names is unclear; let the SDK use the endpoint in AWS_ENDPOINT_URL", host)
	}
	if rest != "" && !validBucket(rest) {
		return "", fmt.Errorf("the request's Host %q names no valid bucket", host)
	}
	return rest, nil
}

// validBucket reports whether b is a bucket name the check reads the way
// S3 and the emulators do: letters, digits, dots, hyphens and underscores
// (the legacy names of us-east-1 included).
func validBucket(b string) bool {
	if b == "" || len(b) > 255 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// s3Target is the bucket and key of r, and the path-style path it is
// forwarded with ("" when it is r's own). A request the emulator and S3
// could read as another bucket or key is an error: an encoded slash, a
// dot segment, a parameter separator in the path, an empty bucket
// segment.
func s3Target(r *http.Request) (bucket, key, path string, err error) {
	hostBucket, err := s3HostBucket(r.Host)
	if err != nil {
		return "", "", "", err
	}
	escaped := r.URL.EscapedPath()
	if escaped == "" {
		escaped = "/"
	}
	if !strings.HasPrefix(escaped, "/") {
		return "", "", "", fmt.Errorf("the request's path %q does not start with a slash", escaped)
	}
	lower := strings.ToLower(escaped)
	switch {
	case strings.Contains(lower, "%2f"), strings.Contains(lower, "%5c"), strings.Contains(escaped, `\`):
		return "", "", "", fmt.Errorf("the request's path %q holds an encoded slash or a backslash, which servers read differently; send the key's slashes as they are", escaped)
	case strings.Contains(escaped, ";"):
		return "", "", "", fmt.Errorf("the request's path %q holds a ';', which the emulator reads as the start of parameters; let the SDK escape the key", escaped)
	}
	p := r.URL.Path
	if hostBucket != "" {
		path = "/" + hostBucket + escaped
		p = "/" + hostBucket + p
	}
	if strings.HasPrefix(p, "//") {
		return "", "", "", fmt.Errorf("the request's path %q starts with an empty bucket name, which the emulator skips", escaped)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return "", "", "", fmt.Errorf("the request's path %q holds a %q segment, which a server may resolve to another bucket or key; use keys without dot segments", escaped, seg)
		}
	}
	bucket, key, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if bucket != "" && !validBucket(bucket) {
		return "", "", "", fmt.Errorf("the bucket name %q holds characters bucket names cannot", bucket)
	}
	return bucket, key, path, nil
}

// s3Query is the query of r, read strictly: each parameter once, and at
// most one subresource, which it returns.
func s3Query(r *http.Request) (url.Values, string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, "", fmt.Errorf("the request's query %q cannot be read in one way only: %v", r.URL.RawQuery, err)
	}
	var subs []string
	for k, vs := range q {
		if len(vs) > 1 {
			return nil, "", fmt.Errorf("the query parameter %q is given %d times", k, len(vs))
		}
		if s3NeedValue[k] && vs[0] == "" {
			return nil, "", fmt.Errorf("the query parameter %q has no value", k)
		}
		if s3Plain[k] || strings.HasPrefix(k, "response-") {
			continue
		}
		if _, ok := s3BucketSubs[k]; !ok {
			if _, ok := s3ObjectSubs[k]; !ok {
				return nil, "", fmt.Errorf("the query parameter %q is not one the check models (a subresource or an option of S3's API)", k)
			}
		}
		subs = append(subs, k)
	}
	if len(subs) > 1 {
		sort.Strings(subs)
		return nil, "", fmt.Errorf("the request names the subresources %s at once; S3 reads one of them", strings.Join(subs, " and "))
	}
	// The emulator reads the headers as parameters of a request without a
	// query: a header named like a parameter would be read as one.
	for k := range r.Header {
		if s3ParamNames[strings.ToLower(k)] {
			return nil, "", fmt.Errorf("the request has a header %q named like a query parameter of S3", k)
		}
	}
	if len(subs) == 0 {
		return q, "", nil
	}
	return q, subs[0], nil
}

func classifyS3(c *Call, r *http.Request, body []byte) error {
	bucket, key, path, err := s3Target(r)
	if err != nil {
		return err
	}
	c.Path = path
	q, sub, err := s3Query(r)
	if err != nil {
		return err
	}
	method := r.Method
	if method == http.MethodHead {
		// HEAD is HeadBucket or HeadObject whatever the subresource: the
		// emulator answers ?acl's HEAD as HeadObject.
		if sub != "" {
			return fmt.Errorf("HEAD with ?%s is not an operation the check models", sub)
		}
		method = http.MethodGet
	}
	versioned := q.Has("versionId")
	arn := "arn:aws:s3:::" + bucket
	obj := arn + "/" + key
	add := func(op s3Op, res string) {
		c.Operation = op.Name
		action := op.Action
		if versioned && op.Versioned != "" {
			action = op.Versioned
		}
		c.add("s3:"+action, res)
	}
	copySource := r.Header.Get("X-Amz-Copy-Source")
	if copySource != "" && !(key != "" && method == http.MethodPut && (sub == "" || sub == "uploadId")) {
		return fmt.Errorf("the request has an X-Amz-Copy-Source header, which only CopyObject and UploadPartCopy take")
	}
	switch {
	case bucket == "":
		if method != http.MethodGet || sub != "" {
			return fmt.Errorf("a %s request without a bucket is not ListBuckets, the one call the check models on the account", r.Method)
		}
		c.Operation = "ListBuckets"
		c.add("s3:ListAllMyBuckets", "*")
	case key == "":
		if sub == "delete" && method == http.MethodPost {
			return s3DeleteObjects(c, arn, body)
		}
		ops, ok := s3BucketSubs[sub]
		if !ok {
			return fmt.Errorf("?%s is an object subresource, not a bucket's", sub)
		}
		op, ok := ops[method]
		if !ok {
			return fmt.Errorf("%s on a bucket's ?%s is not an operation the check models", r.Method, sub)
		}
		if r.Method == http.MethodHead && sub == "" {
			op.Name = "HeadBucket"
		}
		add(op, arn)
		if op.Name == "CreateBucket" {
			if hasACLHeader(r) {
				c.add("s3:PutBucketAcl", arn)
			}
			if strings.EqualFold(r.Header.Get("X-Amz-Bucket-Object-Lock-Enabled"), "true") {
				c.add("s3:PutBucketObjectLockConfiguration", arn)
				c.add("s3:PutBucketVersioning", arn)
			}
			if r.Header.Get("X-Amz-Object-Ownership") != "" {
				c.add("s3:PutBucketOwnershipControls", arn)
			}
		}
	default:
		ops, ok := s3ObjectSubs[sub]
		if !ok {
			return fmt.Errorf("?%s is a bucket subresource, not an object's", sub)
		}
		op, ok := ops[method]
		if !ok {
			return fmt.Errorf("%s on an object's ?%s is not an operation the check models", r.Method, sub)
		}
		if r.Method == http.MethodHead && sub == "" {
			op.Name = "HeadObject"
		}
		add(op, obj)
		if copySource != "" {
			src, err := s3CopySource(copySource)
			if err != nil {
				return err
			}
			if sub == "" {
				c.Operation = "CopyObject"
			} else {
				c.Operation = "UploadPartCopy"
			}
			c.add(src.action, src.arn)
		}
		if op.Name == "PutObject" || op.Name == "CreateMultipartUpload" {
			if hasACLHeader(r) {
				c.add("s3:PutObjectAcl", obj)
			}
			if r.Header.Get("X-Amz-Tagging") != "" {
				c.add("s3:PutObjectTagging", obj)
			}
			if r.Header.Get("X-Amz-Object-Lock-Mode") != "" || r.Header.Get("X-Amz-Object-Lock-Retain-Until-Date") != "" {
				c.add("s3:PutObjectRetention", obj)
			}
			if r.Header.Get("X-Amz-Object-Lock-Legal-Hold") != "" {
				c.add("s3:PutObjectLegalHold", obj)
			}
		}
	}
	return nil
}

// hasACLHeader reports whether r sets an ACL in headers (a canned ACL or
// grants), which needs the Put...Acl action too.
func hasACLHeader(r *http.Request) bool {
	for k := range r.Header {
		if k == "X-Amz-Acl" || strings.HasPrefix(k, "X-Amz-Grant-") {
			return true
		}
	}
	return false
}

type s3Source struct{ action, arn string }

// s3CopySource reads X-Amz-Copy-Source (BUCKET/KEY, URL-encoded, with an
// optional ?versionId=) as S3 and the emulator both do, refusing what one
// of them could read otherwise: a fragment or ';' (the emulator's URL
// parser cuts there), another query parameter, a leading "//", a dot
// segment, an encoding error, an access point ARN.
func s3CopySource(v string) (s3Source, error) {
	bad := func(why string) (s3Source, error) {
		return s3Source{}, fmt.Errorf("X-Amz-Copy-Source %q %s", v, why)
	}
	if strings.ContainsAny(v, "#; \t\r\n\\") {
		return bad("holds a character ('#', ';', a space or a backslash) that servers read differently; let the SDK encode it")
	}
	if strings.HasPrefix(v, "arn:") {
		return bad("names an access point, which the check does not model")
	}
	raw, query, hasQuery := strings.Cut(v, "?")
	action := "s3:GetObject"
	if hasQuery {
		q, err := url.ParseQuery(query)
		if err != nil || len(q) != 1 || len(q["versionId"]) != 1 || q.Get("versionId") == "" {
			return bad("has a query other than one versionId")
		}
		action = "s3:GetObjectVersion"
	}
	if strings.HasPrefix(raw, "//") {
		return bad("starts with //, which a URL parser reads as a host")
	}
	p, err := url.PathUnescape(strings.TrimPrefix(raw, "/"))
	if err != nil {
		return bad("is not correctly URL-encoded")
	}
	bucket, key, _ := strings.Cut(p, "/")
	if !validBucket(bucket) || key == "" {
		return bad("is not BUCKET/KEY")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return bad("holds a dot segment")
		}
	}
	return s3Source{action, "arn:aws:s3:::" + bucket + "/" + key}, nil
}

// s3DeleteObjects checks DeleteObjects: each key of its body, read as
// strictly as the emulator's parser (xmltodict) reads it. Go's XML decoder
// matches elements by local name in any namespace and refuses charsets
// other than UTF-8, where the emulator matches exact names and reads
// Latin-1; so the body must be UTF-8 without another declared encoding,
// without a DOCTYPE, comments or processing instructions, with only
// unprefixed Delete, Object, Key, VersionId (and Quiet, ETag,
// LastModifiedTime, Size) elements, each Object with one Key.
func s3DeleteObjects(c *Call, bucketARN string, body []byte) error {
	c.Operation = "DeleteObjects"
	bad := func(format string, args ...any) error {
		return fmt.Errorf("the DeleteObjects body "+format+"; send it as the SDK does", args...)
	}
	if !utf8.Valid(body) {
		return bad("is not UTF-8")
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	type object struct {
		key, version []string
	}
	var (
		stack   []string
		objects []object
		text    strings.Builder
	)
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bad("is not XML the check can read in one way only (%v)", err)
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if t.Target != "xml" || len(stack) > 0 {
				return bad("holds the processing instruction %q", t.Target)
			}
			if enc := procAttr(string(t.Inst), "encoding"); enc != "" && !strings.EqualFold(enc, "utf-8") {
				return bad("declares the encoding %q, not UTF-8", enc)
			}
		case xml.Directive:
			return bad("holds a DOCTYPE or another directive")
		case xml.Comment:
			return bad("holds a comment")
		case xml.StartElement:
			if t.Name.Space != "" {
				return bad("holds the prefixed element %s:%s", t.Name.Space, t.Name.Local)
			}
			for _, a := range t.Attr {
				if !(a.Name.Space == "" && a.Name.Local == "xmlns") {
					return bad("holds the attribute %q", a.Name.Local)
				}
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			ok := false
			switch parent {
			case "":
				ok = t.Name.Local == "Delete" && objects == nil
				objects = []object{}
			case "Delete":
				ok = t.Name.Local == "Object" || t.Name.Local == "Quiet"
				if t.Name.Local == "Object" {
					objects = append(objects, object{})
				}
			case "Object":
				switch t.Name.Local {
				case "Key", "VersionId", "ETag", "LastModifiedTime", "Size":
					ok = true
				}
			}
			if !ok {
				return bad("holds the element %q in %q", t.Name.Local, parent)
			}
			stack = append(stack, t.Name.Local)
			text.Reset()
		case xml.CharData:
			if len(stack) == 0 || stack[len(stack)-1] == "Delete" || stack[len(stack)-1] == "Object" {
				if len(bytes.TrimSpace(t)) > 0 {
					return bad("holds text outside an element's value")
				}
				continue
			}
			text.Write(t)
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1] == "Object" {
				o := &objects[len(objects)-1]
				switch name {
				case "Key":
					o.key = append(o.key, text.String())
				case "VersionId":
					o.version = append(o.version, text.String())
				}
			}
			text.Reset()
		}
	}
	if len(objects) == 0 {
		return bad("names no object")
	}
	for _, o := range objects {
		if len(o.key) != 1 || o.key[0] == "" || len(o.version) > 1 {
			return bad("has an Object without exactly one Key (or with two VersionIds)")
		}
		action := "s3:DeleteObject"
		if len(o.version) == 1 {
			action = "s3:DeleteObjectVersion"
		}
		c.add(action, bucketARN+"/"+o.key[0])
	}
	return nil
}

// procAttr is the value of the pseudo-attribute name of an XML
// declaration (encoding="..."), "" when it has none.
func procAttr(inst, name string) string {
	for _, f := range strings.Fields(inst) {
		k, v, ok := strings.Cut(f, "=")
		if ok && k == name {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}
