package manifest

import (
	"fmt"
	"slices"
	"strings"
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
// them: a known kind; for user pool and custom authorizers a name, a header,
// a TTL within 0..3600 s, the user pool ARNs or the Lambda invocation URI;
// and one definition per name across the routes.
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
		case AuthorizerUserPool, AuthorizerCustom:
		default:
			errs = append(errs, fmt.Errorf("%s: authorizer kind %q is unknown: use %q, %q or %q", r.methodsLabel(), a.Type, AuthorizerIAM, AuthorizerUserPool, AuthorizerCustom))
			continue
		}
		if err := a.validate(); err != nil {
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

// validate checks a user pool or custom authorizer on its own.
func (a *Authorizer) validate() error {
	switch {
	case a.Name == "":
		return fmt.Errorf("no name: a %s authorizer needs one (it names the authorizer in the REST API)", a.Type)
	case a.Header == "" || strings.ContainsAny(a.Header, " \t:,'"):
		return fmt.Errorf("header %q is not a request header name", a.Header)
	case a.TTLSeconds < 0 || a.TTLSeconds > 3600:
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
