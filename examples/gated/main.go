// Command gated protects its routes with authorizers written in the app
// itself: a token authorizer on a bearer token and a request authorizer on
// a tenant header and an API key in the query string. Each runs in a
// Lambda function of its own, built from this package, which API Gateway
// calls before the route; `framework local` calls it in the same way. A
// third route takes a Cognito user pool's tokens. The stage http puts the
// app behind an HTTP API instead of a REST API.
package main

import (
	"context"
	"crypto/subtle"
	"strings"

	"github.com/framework-dev/framework/framework"
)

// tokens stands for a real token check (a JWT library, a session store).
var tokens = map[string]struct{ user, role string }{
	"t-alice": {"alice", "admin"},
	"t-bob":   {"bob", "reader"},
}

// bearer decides on "Authorization: Bearer <token>": an unknown token is
// 401, a known one is allowed with the user's role passed on.
var bearer = framework.AppAuthorizer{
	Name: "bearer",
	Func: func(ctx context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
		tok, ok := strings.CutPrefix(in.Token, "Bearer ")
		who, known := tokens[tok]
		if !ok || !known {
			return framework.AuthResult{}, framework.UnauthorizedError{Message: "unknown token"}
		}
		return framework.AuthResult{Allow: true, PrincipalID: who.user, Context: map[string]any{"role": who.role}}, nil
	},
}

// tenantKey decides per request (no caching) on the X-Tenant header and
// the key query parameter: each tenant has its own key.
var tenantKey = framework.AppAuthorizer{
	Name:            "tenant-key",
	IdentitySources: []string{"header.X-Tenant", "query.key"},
	TTLSeconds:      -1,
	Func: func(ctx context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
		tenant := in.Headers.Get("x-tenant")
		want := map[string]string{"acme": "k-acme", "globex": "k-globex"}[tenant]
		ok := want != "" && subtle.ConstantTimeCompare([]byte(in.QueryParams["key"][0]), []byte(want)) == 1
		return framework.AuthResult{Allow: ok, PrincipalID: tenant, Context: map[string]any{"tenant": tenant, "paid": tenant == "acme"}}, nil
	},
}

// pool accepts the ID and access tokens of one Cognito user pool's app
// client: a Cognito authorizer behind a REST API, a JWT authorizer (the
// pool as issuer, the client as audience) behind an HTTP API.
var pool = framework.UserPoolAuthorizer{
	Name:         "pool",
	ProviderARNs: []string{"arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_Example"},
	ClientIDs:    []string{"example-client-id"},
}

func newApp() *framework.App {
	app := framework.New("gated")
	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "anyone"}, nil
	})
	app.Route("/me", func(r *framework.Request) (any, error) {
		a := r.GatewayContext.Authorizer
		return map[string]any{"user": a["principalId"], "role": a["role"]}, nil
	}, framework.WithAuthorizer(bearer))
	app.Route("/tenants/{name}/report", func(r *framework.Request, name string) (any, error) {
		a := r.GatewayContext.Authorizer
		if a["tenant"] != name {
			return nil, framework.ForbiddenError{Message: "this key is for tenant " + a["tenant"].(string)}
		}
		return map[string]any{"tenant": name, "paid": a["paid"] == "true"}, nil
	}, framework.WithAuthorizer(tenantKey))
	app.Route("/profile", func(r *framework.Request) (any, error) {
		return r.GatewayContext.Authorizer["claims"], nil
	}, framework.WithAuthorizer(pool))
	return app
}

func main() { newApp().Run() }
