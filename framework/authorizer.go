package framework

import (
	"slices"

	"github.com/framework-dev/framework/internal/manifest"
)

// Authorizer protects a route; see RoleAuthorizer, UserPoolAuthorizer,
// CustomAuthorizer, JWTAuthorizer and AppAuthorizer. The front door
// enforces it before the function runs.
type Authorizer interface {
	manifest() *manifest.Authorizer
}

// RoleAuthorizer requires requests signed with AWS Signature Version 4 by an
// IAM principal allowed to invoke the API.
type RoleAuthorizer struct{}

// UserPoolAuthorizer validates the token in Header against Cognito user pools.
type UserPoolAuthorizer struct {
	// Name is the authorizer's name in the REST API.
	Name string
	// Header carries the token; default Authorization.
	Header string
	// ProviderARNs are the ARNs of the user pools that may issue tokens.
	ProviderARNs []string
	// ClientIDs are the user pool's app clients whose tokens are accepted.
	// A REST API does not check them; an HTTP API, which checks a user
	// pool's tokens with a JWT authorizer, needs them (and one pool).
	ClientIDs []string
}

// JWTAuthorizer validates the JSON Web Token in Header (a bearer token) on
// an HTTP API: its signature, expiry, issuer and audience. The handler
// finds its claims in Request.GatewayContext.Authorizer["claims"]. A REST
// API has no JWT authorizers: use UserPoolAuthorizer there.
type JWTAuthorizer struct {
	// Name is the authorizer's name in the HTTP API.
	Name string
	// Header carries the token; default Authorization ("Bearer " prefix
	// optional).
	Header string
	// Issuer is the tokens' issuer, their iss claim: an https URL whose
	// OpenID configuration names its keys (for a Cognito user pool,
	// https://cognito-idp.REGION.amazonaws.com/POOL_ID).
	Issuer string
	// Audiences are the accepted aud (or client_id) claims: at least one.
	Audiences []string
}

// CustomAuthorizer lets a Lambda function validate the token in Header
// (a TOKEN authorizer).
type CustomAuthorizer struct {
	// Name is the authorizer's name in the REST API.
	Name string
	// Header carries the token; default Authorization.
	Header string
	// AuthorizerURI is the Lambda invocation URI of the authorizer function:
	// arn:aws:apigateway:REGION:lambda:path/2015-03-31/functions/FUNCTION_ARN/invocations
	AuthorizerURI string
	// TTLSeconds is how long API Gateway caches a decision (default 300; 0..3600).
	TTLSeconds int
}

func (RoleAuthorizer) manifest() *manifest.Authorizer {
	return &manifest.Authorizer{Type: manifest.AuthorizerIAM}
}

func (u UserPoolAuthorizer) manifest() *manifest.Authorizer {
	return &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: u.Name, Header: headerOrDefault(u.Header), ProviderARNs: append([]string(nil), u.ProviderARNs...), Audiences: slices.Clone(u.ClientIDs)}
}

func (j JWTAuthorizer) manifest() *manifest.Authorizer {
	return &manifest.Authorizer{Type: manifest.AuthorizerJWT, Name: j.Name, Header: headerOrDefault(j.Header), Issuer: j.Issuer, Audiences: slices.Clone(j.Audiences)}
}

func (c CustomAuthorizer) manifest() *manifest.Authorizer {
	ttl := c.TTLSeconds
	if ttl == 0 {
		ttl = 300
	}
	return &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: c.Name, Header: headerOrDefault(c.Header), AuthorizerURI: c.AuthorizerURI, TTLSeconds: ttl}
}

func headerOrDefault(h string) string {
	if h == "" {
		return "Authorization"
	}
	return h
}
