// Package wsgateway is what API Gateway does for a WebSocket API that
// both `framework local` (internal/local) and frameworktest emulate: how
// a message selects its route, when a $connect authorizer is called and
// what its answer decides, and the quotas and close statuses.
package wsgateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// API Gateway's quotas for WebSocket APIs: a message of at most 128 KB, in
// frames of at most 32 KB; "if a larger message (or larger frame size) is
// received, the connection is closed with code 1009".
const (
	MaxMessage = 128 << 10
	MaxFrame   = 32 << 10
)

// The status and reason API Gateway gives $disconnect when the app closed
// the connection (DELETE @connections/ID): its execution logs show
// "disconnectStatusCode": 1000, "disconnectReason": "Connection Closed Normally".
const (
	ClosedByAppCode   = 1000
	ClosedByAppReason = "Connection Closed Normally"
)

// SelectRoute evaluates a route selection expression ($request.body.a.b)
// on a message: the route key, or $default for a message that is not JSON
// or lacks the field (or holds no string there).
func SelectRoute(expr string, body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return manifest.RouteDefault
	}
	for _, field := range manifest.RouteSelectionPath(expr) {
		obj, ok := v.(map[string]any)
		if !ok {
			return manifest.RouteDefault
		}
		v = obj[field]
	}
	switch k := v.(type) {
	case string:
		if k != "" {
			return k
		}
	case float64, bool:
		return fmt.Sprint(k)
	}
	return manifest.RouteDefault
}

// IdentityMissing reports whether a handshake lacks one of the identity
// sources of authorizer def: API Gateway then refuses it with 401 without
// calling the authorizer.
func IdentityMissing(def *manifest.Authorizer, headers http.Header, query url.Values) bool {
	if def == nil {
		return false
	}
	sources := def.IdentitySources
	if len(sources) == 0 && def.Header != "" {
		sources = []string{"header." + def.Header}
	}
	for _, src := range sources {
		kind, key, _ := strings.Cut(src, ".")
		switch kind {
		case "query":
			if len(query[key]) == 0 || query[key][0] == "" {
				return true
			}
		case "header":
			if headers.Get(key) == "" {
				return true
			}
		}
	}
	return false
}

// Decide reads the answer of a $connect authorizer (its JSON result, or
// fnErr, the invocation's error as "Type: message"): whether it allows,
// what it passes on to the connection's handlers (principalId and its
// context, as strings), and the status of a refusal (401 for an
// "Unauthorized" error, 403 for a Deny, 500 for any other error).
func Decide(payload []byte, fnErr string) (allowed bool, passed map[string]any, status int) {
	if fnErr != "" {
		if strings.HasSuffix(fnErr, "Unauthorized") {
			return false, nil, http.StatusUnauthorized
		}
		return false, nil, http.StatusInternalServerError
	}
	var res struct {
		PrincipalID    string `json:"principalId"`
		PolicyDocument struct {
			Statement []struct {
				Effect string `json:"Effect"`
			} `json:"Statement"`
		} `json:"policyDocument"`
		Context map[string]any `json:"context"`
	}
	if json.Unmarshal(payload, &res) != nil || len(res.PolicyDocument.Statement) == 0 || res.PolicyDocument.Statement[0].Effect != "Allow" {
		return false, nil, http.StatusForbidden
	}
	passed = map[string]any{"principalId": res.PrincipalID}
	for k, v := range res.Context {
		passed[k] = fmt.Sprint(v)
	}
	return true, passed, 0
}
