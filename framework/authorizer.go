package framework

import "github.com/framework-dev/framework/manifest"

// Authorizer protects a route; see RoleAuthorizer, UserPoolAuthorizer and
// CustomAuthorizer. API Gateway enforces it before the function runs.
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
	return &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: u.Name, Header: headerOrDefault(u.Header), ProviderARNs: append([]string(nil), u.ProviderARNs...)}
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
