package localiam

import (
	"encoding/xml"
	"net"
	"net/http"
	"net/url"
	"strings"
)

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

func classifyS3(c *Call, r *http.Request, body []byte) error {
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
			return errUnmodeled
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
				return errUnmodeled
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
				return errUnmodeled
			}
		case http.MethodPost:
			switch sub {
			case "uploads", "uploadId":
				op("CreateMultipartUpload", "PutObject", obj)
			case "restore":
				op("RestoreObject", "RestoreObject", obj)
			default:
				return errUnmodeled
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
				return errUnmodeled
			}
		default:
			return errUnmodeled
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
				return errUnmodeled
			}
			c.Operation = "DeleteObjects"
			for _, o := range in.Objects {
				c.add("s3:DeleteObject", arn+"/"+o.Key)
			}
		default:
			return errUnmodeled
		}
	}
	return nil
}
