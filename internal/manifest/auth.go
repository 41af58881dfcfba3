package manifest

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/wording"
)

// defaultCustomTTL is the cache TTL API Gateway uses for a custom
// authorizer whose TTLSeconds is 0.
const defaultCustomTTL = 300

// methodsLabel names a route with its methods in authorizer errors:
// `route GET,POST /p (handler "h")`.
func (r *Route) methodsLabel() string {
	return fmt.Sprintf("route %s %s (handler %q)", strings.Join(r.Methods, ","), r.Path, r.Handler)
}

// validateAuthorizers checks the routes' authorizers as the REST API needs
// them: a known kind; for user pool, custom and app authorizers a name, a
// header (or an app authorizer's identity sources), a TTL within 0..3600 s,
// the user pool ARNs, the Lambda invocation URI or the app authorizer's
// function; and one definition per name across the routes.
func (m *Manifest) validateAuthorizers() []error {
	var errs []error
	first := map[string]*Route{} // authorizer name → the route that defined it first
	for i := range m.Routes {
		r := &m.Routes[i]
		a := r.Authorizer
		if a == nil {
			continue
		}
		switch a.Type {
		case AuthorizerIAM:
			continue
		case AuthorizerUserPool, AuthorizerCustom, AuthorizerApp, AuthorizerJWT:
		default:
			errs = append(errs, fmt.Errorf("%s: authorizer kind %q is unknown: use %q, %q, %q, %q or %q", r.methodsLabel(), a.Type, AuthorizerIAM, AuthorizerUserPool, AuthorizerCustom, AuthorizerApp, AuthorizerJWT))
			continue
		}
		err := a.validate()
		if err == nil && a.Type == AuthorizerApp && !m.hasAuthorizerFunction(a.Name) {
			err = fmt.Errorf("the manifest lists no function of kind %s named %q to run it (build the manifest with framework.App)", KindAuthorizer, a.Name)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: authorizer %q: %w", r.label(), a.Name, err))
			continue
		}
		if def, ok := first[a.Name]; ok {
			if d := authorizerDiff(def.Authorizer, a); d != "" {
				errs = append(errs, fmt.Errorf("%s and %s define authorizer %q differently (%s): one name is one authorizer in the REST API; give them the same definition or different names", def.methodsLabel(), r.methodsLabel(), a.Name, d))
			}
			continue
		}
		first[a.Name] = r
	}
	return errs
}

// validate checks a user pool, custom or app authorizer on its own.
func (a *Authorizer) validate() error {
	switch {
	case a.Name == "":
		return fmt.Errorf("no name: %s authorizer needs one (it names the authorizer in the REST API)", wording.A(a.Type))
	case a.Type == AuthorizerApp && !functionName(a.Name):
		return fmt.Errorf("an app authorizer's name is also its Lambda function's: use 1 to 64 letters, digits, - and _, starting with a letter")
	case a.Type == AuthorizerApp && len(a.IdentitySources) > 0:
		if a.Header != "" {
			return fmt.Errorf("both a token header (%s) and identity sources: a token authorizer has Header, a request authorizer IdentitySources; keep one", a.Header)
		}
		for _, src := range a.IdentitySources {
			if _, _, err := ParseIdentitySource(src); err != nil {
				return err
			}
		}
	case a.Header == "" || strings.ContainsAny(a.Header, " \t:,'"):
		return fmt.Errorf("header %q is not a request header name", a.Header)
	}
	if a.TTLSeconds < 0 || a.TTLSeconds > 3600 {
		return fmt.Errorf("TTL %d s is outside API Gateway's 0..3600", a.TTLSeconds)
	}
	switch a.Type {
	case AuthorizerUserPool:
		if len(a.ProviderARNs) == 0 {
			return fmt.Errorf("no provider ARNs: list the Cognito user pool ARNs (UserPoolAuthorizer.ProviderARNs)")
		}
		for _, arn := range a.ProviderARNs {
			if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":cognito-idp:") {
				return fmt.Errorf("%q is not a Cognito user pool ARN (arn:aws:cognito-idp:REGION:ACCOUNT:userpool/ID)", arn)
			}
		}
	case AuthorizerJWT:
		if u, err := url.Parse(a.Issuer); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("issuer %q is not an https URL: give the tokens' iss, for example https://cognito-idp.REGION.amazonaws.com/POOL_ID", a.Issuer)
		}
		if len(a.Audiences) == 0 {
			return fmt.Errorf("no audiences: list the aud (or client_id) values the tokens may carry (JWTAuthorizer.Audiences)")
		}
	case AuthorizerCustom:
		if !strings.HasPrefix(a.AuthorizerURI, "arn:") || !strings.Contains(a.AuthorizerURI, ":lambda:path/") {
			return fmt.Errorf("authorizer URI %q is not a Lambda invocation URI (arn:aws:apigateway:REGION:lambda:path/2015-03-31/functions/ARN/invocations)", a.AuthorizerURI)
		}
	}
	return nil
}

// CacheTTL is the authorizer's cache TTL as API Gateway applies it: a custom
// authorizer's 0 means the default of 300 s.
func (a *Authorizer) CacheTTL() int {
	if a.Type == AuthorizerCustom && a.TTLSeconds == 0 {
		return defaultCustomTTL
	}
	return a.TTLSeconds
}

// authorizerDiff describes how two definitions of one authorizer differ, or
// returns "" when they are the same.
func authorizerDiff(a, b *Authorizer) string {
	var d []string
	if a.Type != b.Type {
		d = append(d, fmt.Sprintf("kind %s vs %s", a.Type, b.Type))
	}
	if a.Header != b.Header {
		d = append(d, fmt.Sprintf("header %s vs %s", a.Header, b.Header))
	}
	if a.Issuer != b.Issuer {
		d = append(d, fmt.Sprintf("issuer %s vs %s", a.Issuer, b.Issuer))
	}
	if !slices.Equal(sortedUnique(a.Audiences), sortedUnique(b.Audiences)) {
		d = append(d, fmt.Sprintf("audiences %v vs %v", a.Audiences, b.Audiences))
	}
	if !slices.Equal(a.IdentitySources, b.IdentitySources) {
		d = append(d, fmt.Sprintf("identity sources %v vs %v", a.IdentitySources, b.IdentitySources))
	}
	if !slices.Equal(sortedUnique(a.ProviderARNs), sortedUnique(b.ProviderARNs)) {
		d = append(d, fmt.Sprintf("provider ARNs %v vs %v", a.ProviderARNs, b.ProviderARNs))
	}
	if a.AuthorizerURI != b.AuthorizerURI {
		d = append(d, fmt.Sprintf("authorizer URI %s vs %s", a.AuthorizerURI, b.AuthorizerURI))
	}
	if a.CacheTTL() != b.CacheTTL() {
		d = append(d, fmt.Sprintf("TTL %d vs %d", a.CacheTTL(), b.CacheTTL()))
	}
	return strings.Join(d, "; ")
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// Identity source places, as ParseIdentitySource returns them.
const (
	IdentityHeader = "header"
	IdentityQuery  = "query"
)

// ParseIdentitySource splits an app authorizer's identity source,
// "header.NAME" or "query.NAME", into its place (IdentityHeader or
// IdentityQuery) and name.
func ParseIdentitySource(src string) (place, name string, err error) {
	place, name, _ = strings.Cut(src, ".")
	switch {
	case place == IdentityHeader && name != "" && !strings.ContainsAny(name, " \t:,'"):
		return place, name, nil
	case place == IdentityQuery && queryName(name):
		return place, name, nil
	}
	return "", "", fmt.Errorf("identity source %q: write header.NAME (a request header) or query.NAME (a query string parameter)", src)
}

// hasAuthorizerFunction reports whether m lists a function of kind
// KindAuthorizer named name.
func (m *Manifest) hasAuthorizerFunction(name string) bool {
	for _, f := range m.Functions {
		if f.Kind == KindAuthorizer && f.Name == name {
			return true
		}
	}
	return false
}

// JWTConfig returns what an HTTP API's JWT authorizer checks for a JWT
// authorizer, or for a user pool authorizer with one user pool and its app
// client IDs (the pool's issuer, the clients as audiences); an error says
// why a user pool authorizer cannot be one.
func (a *Authorizer) JWTConfig() (issuer string, audiences []string, err error) {
	switch a.Type {
	case AuthorizerJWT:
		return a.Issuer, slices.Clone(a.Audiences), nil
	case AuthorizerUserPool:
		pools := sortedUnique(a.ProviderARNs)
		if len(pools) != 1 {
			return "", nil, fmt.Errorf("user pool authorizer %q trusts %d user pools, and an HTTP API's JWT authorizer one issuer: keep one pool, or one authorizer per pool", a.Name, len(pools))
		}
		if len(a.Audiences) == 0 {
			return "", nil, fmt.Errorf("user pool authorizer %q names no app client: an HTTP API checks a user pool's tokens with a JWT authorizer, which needs the app client IDs (UserPoolAuthorizer.ClientIDs)", a.Name)
		}
		// arn:aws:cognito-idp:REGION:ACCOUNT:userpool/POOL_ID
		parts := strings.Split(pools[0], ":")
		id, ok := strings.CutPrefix(parts[len(parts)-1], "userpool/")
		if len(parts) != 6 || !ok || id == "" {
			return "", nil, fmt.Errorf("%q is not a Cognito user pool ARN (arn:aws:cognito-idp:REGION:ACCOUNT:userpool/ID)", pools[0])
		}
		return fmt.Sprintf("https://cognito-idp.%s.amazonaws.com/%s", parts[3], id), slices.Clone(a.Audiences), nil
	}
	return "", nil, fmt.Errorf("%s authorizer is not a JWT authorizer", wording.A(a.Type))
}
