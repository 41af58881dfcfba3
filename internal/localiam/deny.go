package localiam

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"net/http"
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

// writeDenied answers r as the service answers a call IAM refuses: the
// JSON services' AccessDeniedException (400), SQS's AccessDenied (its JSON
// protocol with the query-compatible code header, or its query protocol's
// XML), SNS's AuthorizationError, S3's AccessDenied (403, XML) and API
// Gateway's AccessDeniedException of the @connections API (403, JSON,
// the code in X-Amzn-ErrorType).
func writeDenied(w http.ResponseWriter, r *http.Request, c Call, msg string) {
	id := requestID()
	h := w.Header()
	h.Set("X-Amzn-RequestId", id)
	writeXML := func(status int, v any) {
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
	switch c.protocol {
	case protoJSON, protoSQSJSON:
		ct := r.Header.Get("Content-Type")
		if !strings.HasPrefix(ct, "application/x-amz-json") {
			ct = "application/x-amz-json-1.1"
		}
		h.Set("Content-Type", ct)
		status := http.StatusBadRequest
		if c.protocol == protoSQSJSON {
			h.Set("X-Amzn-Query-Error", "AccessDenied;Sender")
			status = http.StatusForbidden
		}
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.service#AccessDeniedException", "Message": msg})
		_, _ = w.Write(b)
	case protoSQSQuery:
		writeXML(http.StatusForbidden, errorResponse{Error: queryError{Type: "Sender", Code: "AccessDenied", Message: msg}, RequestID: id})
	case protoSNS:
		writeXML(http.StatusForbidden, errorResponse{XMLNS: "http://sns.amazonaws.com/doc/2010-03-31/", Error: queryError{Type: "Sender", Code: "AuthorizationError", Message: msg}, RequestID: id})
	case protoExecAPI:
		h.Set("Content-Type", "application/json")
		h.Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.WriteHeader(http.StatusForbidden)
		b, _ := json.Marshal(map[string]string{"Message": msg})
		_, _ = w.Write(b)
	case protoS3:
		h.Set("X-Amz-Request-Id", id)
		writeXML(http.StatusForbidden, struct {
			XMLName   xml.Name `xml:"Error"`
			Code      string   `xml:"Code"`
			Message   string   `xml:"Message"`
			RequestID string   `xml:"RequestId"`
		}{Code: "AccessDenied", Message: msg, RequestID: id})
	}
}
