package framework

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
)

// What the local server does per request, with few allocations: it serves
// every request of framework local, whose throughput is measured against a
// bare net/http server (BenchmarkServer, test/localbench).

// lowerHeaderNames are the lower-case forms of the canonical header names
// clients send most, so that building a Request's Headers allocates no
// new string for them.
var lowerHeaderNames = map[string]string{
	"Accept": "accept", "Accept-Encoding": "accept-encoding", "Accept-Language": "accept-language",
	"Authorization": "authorization", "Cache-Control": "cache-control", "Connection": "connection",
	"Content-Length": "content-length", "Content-Type": "content-type", "Cookie": "cookie",
	"Origin": "origin", "Referer": "referer", "User-Agent": "user-agent", "X-Api-Key": "x-api-key",
	"X-Forwarded-For": "x-forwarded-for", "X-Request-Id": "x-request-id",
}

// lowerHeaderName is strings.ToLower of a header name.
func lowerHeaderName(k string) string {
	if l, ok := lowerHeaderNames[k]; ok {
		return l
	}
	return strings.ToLower(k)
}

// localRequest holds a Request of the local server and the strings it
// points to, allocated at once.
type localRequest struct {
	req    Request
	host   [1]string // the Host header's value
	ip, ua string    // the identity's source IP and user agent
}

// newRequestID returns a random request id shaped as API Gateway's (a
// UUID, 8-4-4-4-12 hexadecimal digits) and a resource id (its first six
// digits), in one allocation. The bits come from math/rand/v2 (ChaCha8
// per thread, no system call): a local request id needs to be unique, not
// secret.
func newRequestID() (requestID, resourceID string) {
	var raw [16]byte
	binary.LittleEndian.PutUint64(raw[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(raw[8:], rand.Uint64())
	const hexDigits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range raw {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&15]
		j += 2
	}
	id := string(b[:])
	return id, id[:6]
}

// setResultHeaders puts res's headers and its Content-Length in hdr, the
// values of names new to hdr sharing one allocation.
func setResultHeaders(hdr http.Header, res *result) {
	vals := make([]string, len(res.headers)+1)
	for i, f := range res.headers {
		if old, ok := hdr[f.Name]; ok {
			hdr[f.Name] = append(old, f.Value)
			continue
		}
		vals[i] = f.Value
		hdr[f.Name] = vals[i : i+1 : i+1]
	}
	vals[len(res.headers)] = strconv.Itoa(len(res.body))
	hdr["Content-Length"] = vals[len(res.headers):]
}
