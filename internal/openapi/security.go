package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/framework-dev/framework/framework"
)

// defaultAuthorizerTTL is the TTL of a custom authorizer's cached answer
// when the manifest gives none (API Gateway's own default).
const defaultAuthorizerTTL = 300

// schemeNameRe is what OpenAPI 3 allows as a components key.
var schemeNameRe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// SchemeName returns the security scheme name of the authorizer named name
// (user pool or custom): name itself when it is a valid OpenAPI component
// key and not one of SchemeAPIKey and SchemeSigV4, otherwise name with
// every other character replaced by "_", then "_" and the first 8 hex digits
// of name's SHA-256. API Gateway names the authorizer after its scheme.
func SchemeName(name string) string {
	if schemeNameRe.MatchString(name) && name != SchemeAPIKey && name != SchemeSigV4 {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && schemeNameRe.MatchString(string(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	return b.String() + "_" + hex.EncodeToString(sum[:4])
}

// authDef is one named authorizer, as first declared.
type authDef struct {
	decl   *framework.ManifestAuthorizer
	route  *framework.ManifestRoute
	scheme string
}

// security collects the security schemes the routes use.
type security struct {
	apiKey, sigv4 bool
	byName        map[string]*authDef
	schemeOwner   map[string]string // scheme name → authorizer name
}

func newSecurity() *security {
	return &security{byName: map[string]*authDef{}, schemeOwner: map[string]string{}}
}

// requirement returns the security requirement of r's operations, or nil
// when r is open to anyone.
func (s *security) requirement(r *framework.ManifestRoute) (map[string]any, error) {
	req := map[string]any{}
	if r.APIKeyRequired {
		s.apiKey = true
		req[SchemeAPIKey] = []any{}
	}
	if a := r.Authorizer; a != nil {
		switch a.Type {
		case framework.AuthorizerIAM:
			s.sigv4 = true
			req[SchemeSigV4] = []any{}
		case framework.AuthorizerUserPool, framework.AuthorizerCustom:
			scheme, err := s.named(r)
			if err != nil {
				return nil, err
			}
			req[scheme] = []any{}
		default:
			return nil, fmt.Errorf("openapi: %s: authorizer kind %q is unknown: use %q, %q or %q", routeLabel(r), a.Type, framework.AuthorizerIAM, framework.AuthorizerUserPool, framework.AuthorizerCustom)
		}
	}
	if len(req) == 0 {
		return nil, nil
	}
	return req, nil
}

// named checks r's user pool or custom authorizer and returns its scheme name.
func (s *security) named(r *framework.ManifestRoute) (string, error) {
	a := r.Authorizer
	bad := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("openapi: %s: authorizer %q: "+format, append([]any{routeLabel(r), a.Name}, args...)...)
	}
	switch {
	case a.Name == "":
		return bad("no name: a %s authorizer needs one (it names the authorizer in the REST API)", a.Type)
	case a.Header == "" || strings.ContainsAny(a.Header, " \t:,'"):
		return bad("header %q is not a request header name", a.Header)
	case a.TTLSeconds < 0 || a.TTLSeconds > 3600:
		return bad("TTL %d s is outside API Gateway's 0..3600", a.TTLSeconds)
	}
	switch a.Type {
	case framework.AuthorizerUserPool:
		if len(a.ProviderARNs) == 0 {
			return bad("no provider ARNs: list the Cognito user pool ARNs")
		}
		for _, arn := range a.ProviderARNs {
			if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":cognito-idp:") {
				return bad("%q is not a Cognito user pool ARN (arn:aws:cognito-idp:REGION:ACCOUNT:userpool/ID)", arn)
			}
		}
	case framework.AuthorizerCustom:
		if !strings.HasPrefix(a.AuthorizerURI, "arn:") || !strings.Contains(a.AuthorizerURI, ":lambda:path/") {
			return bad("authorizer URI %q is not a Lambda invocation URI (arn:aws:apigateway:REGION:lambda:path/2015-03-31/functions/ARN/invocations)", a.AuthorizerURI)
		}
	}
	if def := s.byName[a.Name]; def != nil {
		if !sameAuthorizer(def.decl, a) {
			return "", fmt.Errorf("openapi: %s and %s define authorizer %q differently (%s): one name is one authorizer in the REST API; give them the same definition or different names", routeLabel(def.route), routeLabel(r), a.Name, authorizerDiff(def.decl, a))
		}
		return def.scheme, nil
	}
	scheme := SchemeName(a.Name)
	if owner, taken := s.schemeOwner[scheme]; taken {
		return bad("its security scheme name %q is already the scheme of authorizer %q: rename one of them", scheme, owner)
	}
	s.schemeOwner[scheme] = a.Name
	s.byName[a.Name] = &authDef{decl: a, route: r, scheme: scheme}
	return scheme, nil
}

// ttl is the authorizer's cache TTL as the body states it: a custom
// authorizer's 0 means the default, as framework.CustomAuthorizer documents.
func ttl(a *framework.ManifestAuthorizer) int {
	if a.Type == framework.AuthorizerCustom && a.TTLSeconds == 0 {
		return defaultAuthorizerTTL
	}
	return a.TTLSeconds
}

func sortedARNs(a *framework.ManifestAuthorizer) []string {
	arns := slices.Clone(a.ProviderARNs)
	slices.Sort(arns)
	return slices.Compact(arns)
}

func sameAuthorizer(a, b *framework.ManifestAuthorizer) bool {
	return authorizerDiff(a, b) == ""
}

// authorizerDiff describes how two definitions of one authorizer differ, or
// returns "" when they are the same.
func authorizerDiff(a, b *framework.ManifestAuthorizer) string {
	var d []string
	if a.Type != b.Type {
		d = append(d, fmt.Sprintf("kind %s vs %s", a.Type, b.Type))
	}
	if a.Header != b.Header {
		d = append(d, fmt.Sprintf("header %s vs %s", a.Header, b.Header))
	}
	if !slices.Equal(sortedARNs(a), sortedARNs(b)) {
		d = append(d, fmt.Sprintf("provider ARNs %v vs %v", a.ProviderARNs, b.ProviderARNs))
	}
	if a.AuthorizerURI != b.AuthorizerURI {
		d = append(d, fmt.Sprintf("authorizer URI %s vs %s", a.AuthorizerURI, b.AuthorizerURI))
	}
	if ttl(a) != ttl(b) {
		d = append(d, fmt.Sprintf("TTL %d vs %d", ttl(a), ttl(b)))
	}
	return strings.Join(d, "; ")
}

// schemes returns components.securitySchemes, or nil when no route is protected.
func (s *security) schemes() map[string]any {
	out := map[string]any{}
	if s.apiKey {
		out[SchemeAPIKey] = map[string]any{"type": "apiKey", "name": "x-api-key", "in": "header"}
	}
	if s.sigv4 {
		out[SchemeSigV4] = map[string]any{
			"type": "apiKey", "name": "Authorization", "in": "header",
			ExtAuthType: "awsSigv4",
		}
	}
	for _, def := range s.byName {
		a := def.decl
		authorizer := map[string]any{"identitySource": "method.request.header." + a.Header}
		authType := a.Type
		switch a.Type {
		case framework.AuthorizerUserPool:
			authorizer["type"] = "cognito_user_pools"
			arns := []any{}
			for _, arn := range sortedARNs(a) {
				arns = append(arns, arn)
			}
			authorizer["providerARNs"] = arns
			if a.TTLSeconds > 0 {
				authorizer["authorizerResultTtlInSeconds"] = float64(a.TTLSeconds)
			}
		case framework.AuthorizerCustom:
			authorizer["type"] = "token"
			authorizer["authorizerUri"] = a.AuthorizerURI
			authorizer["authorizerResultTtlInSeconds"] = float64(ttl(a))
		}
		out[def.scheme] = map[string]any{
			"type": "apiKey", "name": a.Header, "in": "header",
			ExtAuthType:   authType,
			ExtAuthorizer: authorizer,
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
