package framework

import "sort"

// ManifestVersion is the version of the route manifest format written by
// (*App).Manifest. Readers must refuse a manifest whose version they do not know.
const ManifestVersion = 1

// Manifest is the machine-readable route table of an app. The app prints it
// as JSON when it runs in manifest mode (see Run); synthesis builds the REST
// API from it, so it carries every route feature API Gateway needs to know.
type Manifest struct {
	// Version is ManifestVersion.
	Version int `json:"version"`
	// App is the app's name.
	App string `json:"app"`
	// BinaryTypes are the content types the app treats as binary; API
	// Gateway's binaryMediaTypes are set from them.
	BinaryTypes []string `json:"binary_types"`
	// Routes lists one entry per handler, sorted by path and then by the
	// first method.
	Routes []ManifestRoute `json:"routes"`
}

// ManifestRoute is one handler of one path in a Manifest.
type ManifestRoute struct {
	// Path is the route pattern, for example "/users/{name}".
	Path string `json:"path"`
	// Methods are the upper-case HTTP methods the handler serves, sorted;
	// never OPTIONS on a CORS route (API Gateway answers the preflight).
	Methods []string `json:"methods"`
	// Handler is the handler's name, unique per path.
	Handler string `json:"handler"`
	// ContentTypes are the request content types the route accepts.
	ContentTypes []string `json:"content_types"`
	// CORS is nil when CORS is off for the route; otherwise the headers to send.
	CORS *ManifestCORS `json:"cors"`
	// APIKeyRequired is true when requests must carry a valid X-Api-Key.
	APIKeyRequired bool `json:"api_key_required"`
	// Authorizer is nil when the route has no authorizer.
	Authorizer *ManifestAuthorizer `json:"authorizer"`
}

// ManifestCORS is the CORS configuration of a route with every default filled in.
type ManifestCORS struct {
	AllowOrigin      string   `json:"allow_origin"`
	AllowHeaders     []string `json:"allow_headers"` // full list sent in Access-Control-Allow-Headers, defaults included
	ExposeHeaders    []string `json:"expose_headers,omitempty"`
	MaxAge           int      `json:"max_age,omitempty"` // seconds; 0 means not sent
	AllowCredentials bool     `json:"allow_credentials,omitempty"`
}

// Authorizer kinds as they appear in ManifestAuthorizer.Type.
const (
	AuthorizerIAM      = "iam"
	AuthorizerUserPool = "cognito_user_pools"
	AuthorizerCustom   = "custom"
)

// ManifestAuthorizer describes a route's authorizer.
type ManifestAuthorizer struct {
	// Type is AuthorizerIAM, AuthorizerUserPool or AuthorizerCustom.
	Type string `json:"type"`
	// Name is the authorizer's name (empty for IAM).
	Name string `json:"name,omitempty"`
	// Header is the request header carrying the token (user pool and custom).
	Header string `json:"header,omitempty"`
	// ProviderARNs are the Cognito user pool ARNs (user pool only).
	ProviderARNs []string `json:"provider_arns,omitempty"`
	// AuthorizerURI is the Lambda invocation URI of a custom authorizer.
	AuthorizerURI string `json:"authorizer_uri,omitempty"`
	// TTLSeconds is how long API Gateway caches the authorizer's answer (custom and user pool).
	TTLSeconds int `json:"ttl_seconds,omitempty"`
}

// Manifest returns the app's route table, or the declaration errors.
func (a *App) Manifest() (*Manifest, error) {
	t, err := a.compiled()
	if err != nil {
		return nil, err
	}
	m := &Manifest{Version: ManifestVersion, App: a.Name, BinaryTypes: append([]string{}, a.API.BinaryTypes...), Routes: []ManifestRoute{}}
	for _, r := range t.routes {
		e := t.byPattern[r.Path]
		m.Routes = append(m.Routes, ManifestRoute{
			Path: r.Path, Methods: append([]string(nil), r.Methods...), Handler: r.Name,
			ContentTypes: append([]string(nil), r.ContentTypes...), CORS: e.cors.manifest(),
			APIKeyRequired: r.APIKeyRequired, Authorizer: r.authorizerDecl,
		})
	}
	sort.SliceStable(m.Routes, func(i, j int) bool {
		if m.Routes[i].Path != m.Routes[j].Path {
			return m.Routes[i].Path < m.Routes[j].Path
		}
		return m.Routes[i].Methods[0] < m.Routes[j].Methods[0]
	})
	return m, nil
}
