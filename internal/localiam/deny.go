package localiam

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
)

// deniedMessage is AWS's message for an implicit deny, naming the local
// function instead of an assumed role's session, with hint after it.
func deniedMessage(function string, ch Check, hint string) string {
	msg := "User: function " + function + " (framework local, checked against its deployed role) is not authorized to perform: " +
		ch.Action + " on resource: " + ch.Resource + " because no identity-based policy allows the " + ch.Action + " action"
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return msg
}

func requestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// protocolOf is how the service of r, signed for service, answers
// errors, read from the request alone: a call the check cannot classify
// (a service it does not know: IAM, STS, Lambda...) is still refused in a
// shape its SDK reads. X-Amz-Target is the JSON protocols' (SQS's with
// its query-compatible code header); SNS and SQS without it, and any
// request with a form body or an Action parameter (IAM, STS), speak the
// query protocol; the REST-JSON services (Lambda, API Gateway) are known
// by name or by a JSON body; anything else gets S3's XML error, the
// REST-XML services' shape.
func protocolOf(r *http.Request, service string) protocol {
	ct := r.Header.Get("Content-Type")
	if r.Header.Get("X-Amz-Target") != "" {
		if service == "sqs" {
			return protoSQSJSON
		}
		return protoJSON
	}
	switch service {
	case "s3":
		return protoS3
	case "sns":
		return protoSNS
	case "sqs":
		if strings.Contains(ct, "json") {
			return protoSQSJSON
		}
		return protoSQSQuery
	}
	switch {
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded") || r.URL.Query().Has("Action"):
		return protoQuery
	case restJSONServices[service] || strings.Contains(ct, "json"):
		return protoRESTJSON
	}
	return protoXML
}

// restJSONServices are signing names of services of the REST-JSON
// protocol, whose requests may carry no body to tell it by.
var restJSONServices = map[string]bool{"lambda": true, "execute-api": true, "apigateway": true, "appsync": true,
	"scheduler": true, "iot": true, "batch": true, "eks": true}

// errKind is a reason to refuse a call, which each protocol answers with
// its own code.
type errKind int

const (
	errDenied         errKind = iota // IAM's implicit deny
	errUnknownKey                    // an access key that is no function's
	errMissingAuth                   // no signature at all
	errSignature                     // the signature does not match
	errRequestTime                   // X-Amz-Date too far from now
	errPresignExpired                // a presigned URL past its expiry
	errHashMismatch                  // the body is not the one signed
	errMalformed                     // a signature that cannot be read
	errTooLarge                      // a body larger than the check reads
	errNotImplemented                // chunk-signed bodies
)

// statusAndCode is the HTTP status and error code of kind in protocol p, as
// the services document them: the JSON protocols' coral exceptions (400),
// the query protocol's common errors (InvalidClientTokenId,
// MissingAuthenticationToken, SignatureDoesNotMatch: 403; RequestExpired,
// IncompleteSignature: 400), S3's (InvalidAccessKeyId,
// SignatureDoesNotMatch, RequestTimeTooSkewed, AccessDenied: 403;
// XAmzContentSHA256Mismatch, AuthorizationHeaderMalformed: 400).
func statusAndCode(kind errKind, p protocol) (int, string) {
	switch p {
	case protoJSON, protoRESTJSON, protoExecAPI:
		status := http.StatusBadRequest
		if p != protoJSON {
			status = http.StatusForbidden
		}
		switch kind {
		case errDenied:
			return status, "AccessDeniedException"
		case errUnknownKey:
			return status, "UnrecognizedClientException"
		case errMissingAuth:
			return status, "MissingAuthenticationTokenException"
		case errMalformed:
			return http.StatusBadRequest, "IncompleteSignatureException"
		case errTooLarge:
			return http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException"
		case errNotImplemented:
			return http.StatusBadRequest, "NotImplemented"
		}
		return status, "InvalidSignatureException"
	case protoS3, protoXML:
		switch kind {
		case errDenied, errMissingAuth, errPresignExpired:
			return http.StatusForbidden, "AccessDenied"
		case errUnknownKey:
			return http.StatusForbidden, "InvalidAccessKeyId"
		case errRequestTime:
			return http.StatusForbidden, "RequestTimeTooSkewed"
		case errHashMismatch:
			return http.StatusBadRequest, "XAmzContentSHA256Mismatch"
		case errMalformed:
			return http.StatusBadRequest, "AuthorizationHeaderMalformed"
		case errTooLarge:
			return http.StatusBadRequest, "EntityTooLarge"
		case errNotImplemented:
			return http.StatusNotImplemented, "NotImplemented"
		}
		return http.StatusForbidden, "SignatureDoesNotMatch"
	}
	// The query protocol (SQS's, SNS's, IAM's, STS's) and SQS's JSON one,
	// which gives the query code in a header.
	switch kind {
	case errDenied:
		if p == protoSNS {
			return http.StatusForbidden, "AuthorizationError"
		}
		return http.StatusForbidden, "AccessDenied"
	case errUnknownKey:
		return http.StatusForbidden, "InvalidClientTokenId"
	case errMissingAuth:
		return http.StatusForbidden, "MissingAuthenticationToken"
	case errRequestTime, errPresignExpired:
		return http.StatusBadRequest, "RequestExpired"
	case errMalformed:
		return http.StatusBadRequest, "IncompleteSignature"
	case errTooLarge:
		return http.StatusRequestEntityTooLarge, "RequestEntityTooLarge"
	case errNotImplemented:
		return http.StatusBadRequest, "NotImplemented"
	}
	return http.StatusForbidden, "SignatureDoesNotMatch"
}

// writeDenied answers r as the service answers a call IAM refuses: the
// JSON services' AccessDeniedException (400), SQS's AccessDenied (its JSON
// protocol with the query-compatible code header, or its query protocol's
// XML), SNS's AuthorizationError, S3's AccessDenied (403, XML) and API
// Gateway's AccessDeniedException of the @connections API (403, JSON,
// the code in X-Amzn-ErrorType).
func writeDenied(w http.ResponseWriter, r *http.Request, c Call, msg string) {
	writeError(w, r, c.protocol, errDenied, msg)
}

// writeError answers r with the error of kind in the shape of protocol p,
// msg its message.
func writeError(w http.ResponseWriter, r *http.Request, p protocol, kind errKind, msg string) {
	status, code := statusAndCode(kind, p)
	id := requestID()
	h := w.Header()
	h.Set("X-Amzn-RequestId", id)
	writeXML := func(v any) {
		h.Set("Content-Type", "text/xml")
		w.WriteHeader(status)
		if r.Method == http.MethodHead {
			return
		}
		b, _ := xml.Marshal(v)
		_, _ = w.Write([]byte(xml.Header))
		_, _ = w.Write(b)
	}
	type queryError struct {
		Type    string `xml:"Type"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	type errorResponse struct {
		XMLName   xml.Name `xml:"ErrorResponse"`
		XMLNS     string   `xml:"xmlns,attr,omitempty"`
		Error     queryError
		RequestID string `xml:"RequestId"`
	}
	switch p {
	case protoJSON, protoSQSJSON:
		ct := r.Header.Get("Content-Type")
		if !strings.HasPrefix(ct, "application/x-amz-json") {
			ct = "application/x-amz-json-1.1"
		}
		h.Set("Content-Type", ct)
		if p == protoSQSJSON {
			h.Set("X-Amzn-Query-Error", code+";Sender")
		}
		b, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.service#" + code, "Message": msg})
		// DynamoDB's SDKs check every answer's CRC32, which it sends.
		h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10))
		w.WriteHeader(status)
		_, _ = w.Write(b)
	case protoRESTJSON, protoExecAPI:
		h.Set("Content-Type", "application/json")
		h.Set("X-Amzn-ErrorType", code)
		w.WriteHeader(status)
		// API Gateway writes an IAM refusal's message as "Message", its
		// other errors' as "message".
		key := "message"
		if p == protoExecAPI && kind == errDenied {
			key = "Message"
		}
		b, _ := json.Marshal(map[string]string{key: msg})
		_, _ = w.Write(b)
	case protoSQSQuery, protoQuery:
		writeXML(errorResponse{Error: queryError{Type: "Sender", Code: code, Message: msg}, RequestID: id})
	case protoSNS:
		writeXML(errorResponse{XMLNS: "http://sns.amazonaws.com/doc/2010-03-31/", Error: queryError{Type: "Sender", Code: code, Message: msg}, RequestID: id})
	default:
		h.Set("X-Amz-Request-Id", id)
		writeXML(struct {
			XMLName   xml.Name `xml:"Error"`
			Code      string   `xml:"Code"`
			Message   string   `xml:"Message"`
			RequestID string   `xml:"RequestId"`
		}{Code: code, Message: msg, RequestID: id})
	}
}
