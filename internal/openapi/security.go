package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

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
	sum := sha256.Sum256([]byte(name))
	return componentSafe(name) + "_" + hex.EncodeToString(sum[:4])
}

// authDef is one named authorizer, as first declared.
type authDef struct {
	decl   *manifest.Authorizer
	route  *manifest.Route
	scheme string
}

// security collects the security schemes the routes use.
type security struct {
	apiKey, sigv4 bool
	byName        map[string]*authDef
	schemeOwner   map[string]string // scheme name → authorizer name
	appURIs       map[string]string // app authorizer name → its function's invocation URI
	extension     bool              // building API Gateway's definition (Build), which needs appURIs
}

func newSecurity() *security {
	return &security{byName: map[string]*authDef{}, schemeOwner: map[string]string{}}
}

// requirement returns the security requirement of r's operations, or nil
// when r is open to anyone.
func (s *security) requirement(r *manifest.Route) (map[string]any, error) {
	req := map[string]any{}
	if r.APIKeyRequired {
		s.apiKey = true
		req[SchemeAPIKey] = []any{}
	}
	if a := r.Authorizer; a != nil {
		switch a.Type {
		case manifest.AuthorizerIAM:
			s.sigv4 = true
			req[SchemeSigV4] = []any{}
		case manifest.AuthorizerJWT:
			if s.extension {
				return nil, fmt.Errorf("openapi: %s: JWT authorizer %q: a REST API has no JWT authorizers, an HTTP API does: set \"api_type\": \"http\" for the stage, or protect the route with a UserPoolAuthorizer (Cognito) or an AppAuthorizer", routeLabel(r), a.Name)
			}
			scheme, err := s.named(r)
			if err != nil {
				return nil, err
			}
			req[scheme] = []any{}
		case manifest.AuthorizerUserPool, manifest.AuthorizerCustom, manifest.AuthorizerApp:
			if a.Type == manifest.AuthorizerApp && s.extension && s.appURIs[a.Name] == "" {
				return nil, fmt.Errorf("openapi: %s: app authorizer %q: Options.AuthorizerURIs has no invocation URI for its function", routeLabel(r), a.Name)
			}
			scheme, err := s.named(r)
			if err != nil {
				return nil, err
			}
			req[scheme] = []any{}
		}
	}
	if len(req) == 0 {
		return nil, nil
	}
	return req, nil
}

// named returns the scheme name of r's user pool or custom authorizer,
// which manifest.Validate has checked (one definition per name).
func (s *security) named(r *manifest.Route) (string, error) {
	a := r.Authorizer
	if def := s.byName[a.Name]; def != nil {
		return def.scheme, nil
	}
	scheme := SchemeName(a.Name)
	if owner, taken := s.schemeOwner[scheme]; taken {
		return "", fmt.Errorf("openapi: %s: authorizer %q: its security scheme name %q is already the scheme of authorizer %q: rename one of them", routeLabel(r), a.Name, scheme, owner)
	}
	s.schemeOwner[scheme] = a.Name
	s.byName[a.Name] = &authDef{decl: a, route: r, scheme: scheme}
	return scheme, nil
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
		case manifest.AuthorizerUserPool:
			authorizer["type"] = "cognito_user_pools"
			arns := []any{}
			arnList := slices.Clone(a.ProviderARNs)
			slices.Sort(arnList)
			for _, arn := range slices.Compact(arnList) {
				arns = append(arns, arn)
			}
			authorizer["providerARNs"] = arns
			if a.TTLSeconds > 0 {
				authorizer["authorizerResultTtlInSeconds"] = float64(a.TTLSeconds)
			}
		case manifest.AuthorizerCustom:
			authorizer["type"] = "token"
			authorizer["authorizerUri"] = a.AuthorizerURI
			authorizer["authorizerResultTtlInSeconds"] = float64(a.CacheTTL())
		case manifest.AuthorizerApp:
			// A Lambda authorizer whose function is the app's own.
			authType = "custom"
			authorizer["type"] = "token"
			authorizer["authorizerUri"] = s.appURIs[a.Name]
			authorizer["authorizerResultTtlInSeconds"] = float64(a.TTLSeconds)
			if len(a.IdentitySources) > 0 {
				authorizer["type"] = "request"
				sources := make([]string, len(a.IdentitySources))
				for i, src := range a.IdentitySources {
					place, n, _ := manifest.ParseIdentitySource(src)
					sources[i] = "method.request.header." + n
					if place == manifest.IdentityQuery {
						sources[i] = "method.request.querystring." + n
					}
				}
				authorizer["identitySource"] = strings.Join(sources, ", ")
			}
		}
		name, in := schemeKey(a)
		out[def.scheme] = map[string]any{
			"type": "apiKey", "name": name, "in": in,
			ExtAuthType:   authType,
			ExtAuthorizer: authorizer,
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// schemeKey is where the security scheme of a user pool, custom or app
// authorizer says its credential is: the token header, or a request
// authorizer's first identity source.
func schemeKey(a *manifest.Authorizer) (name, in string) {
	if a.Type != manifest.AuthorizerApp || len(a.IdentitySources) == 0 {
		return a.Header, "header"
	}
	place, name, _ := manifest.ParseIdentitySource(a.IdentitySources[0])
	if place == manifest.IdentityQuery {
		return name, "query"
	}
	return name, "header"
}
