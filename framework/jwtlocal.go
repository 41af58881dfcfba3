package framework

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
)

// An HTTP API's JWT authorizer, as `framework local` and frameworktest
// emulate it for a JWTAuthorizer, or a UserPoolAuthorizer with one pool
// and its app clients: the token (after an optional "Bearer ") must be a
// JWT whose iss is the issuer, whose aud (or client_id) is one of the
// audiences and which has not expired (exp, nbf); else 401
// {"message":"Unauthorized"}. Its signature is not verified locally (that
// needs the issuer's keys). The handler finds the claims, as strings, in
// RequestContext.Authorizer["claims"] and the token's scopes in
// ["scopes"], as the 2.0 event carries them.

// jwtAuthorizes reports whether decl is checked as a JWT behind an HTTP API.
func jwtAuthorizes(decl *manifest.Authorizer) bool {
	if decl.Type != manifest.AuthorizerJWT && decl.Type != manifest.AuthorizerUserPool {
		return false
	}
	_, _, err := decl.JWTConfig()
	return err == nil
}

// checkJWT checks the token in req as an HTTP API's JWT authorizer decl
// would, at now, and returns its claims and scopes.
func checkJWT(decl *manifest.Authorizer, token string, now time.Time) (map[string]string, []string, error) {
	issuer, audiences, err := decl.JWTConfig()
	if err != nil {
		return nil, nil, err
	}
	token = strings.TrimSpace(token)
	if t, ok := strings.CutPrefix(token, "Bearer "); ok {
		token = strings.TrimSpace(t)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, nil, errors.New("not a JWT (three dot-separated parts)")
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, nil, fmt.Errorf("the payload is not base64url: %w", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, nil, fmt.Errorf("the payload is not a JSON object: %w", err)
	}
	if claims["iss"] != issuer {
		return nil, nil, fmt.Errorf("iss %v is not the issuer %s", claims["iss"], issuer)
	}
	var auds []string
	switch a := claims["aud"].(type) {
	case string:
		auds = []string{a}
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok {
				auds = append(auds, s)
			}
		}
	}
	if c, ok := claims["client_id"].(string); ok {
		auds = append(auds, c)
	}
	if !slices.ContainsFunc(auds, func(a string) bool { return slices.Contains(audiences, a) }) {
		return nil, nil, fmt.Errorf("neither aud nor client_id (%v) is one of the audiences %v", auds, audiences)
	}
	if exp, ok := claims["exp"].(float64); !ok || now.After(time.Unix(int64(exp), 0)) {
		return nil, nil, errors.New("expired, or no exp claim")
	}
	if nbf, ok := claims["nbf"].(float64); ok && now.Before(time.Unix(int64(nbf), 0)) {
		return nil, nil, errors.New("not valid yet (nbf)")
	}
	out := make(map[string]string, len(claims))
	for k, v := range claims {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	var scopes []string
	if s, ok := claims["scope"].(string); ok {
		scopes = strings.Fields(s)
	}
	return out, scopes, nil
}
