package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/framework-dev/framework/internal/wording"
)

// The front door of a stage: what answers its HTTP requests before the
// API's Lambda function does.
const (
	// APIRest is API Gateway's REST API (payload format 1.0): the default.
	APIRest = "rest"
	// APIHTTP is API Gateway's HTTP API (payload format 2.0), served at
	// its $default stage.
	APIHTTP = "http"
	// APIFunctionURL is a Lambda function URL (payload format 2.0): no
	// gateway, the function answers every request itself.
	APIFunctionURL = "function_url"
)

// Auth types of a function URL (function_url_auth).
const (
	// URLAuthNone lets anyone call the URL: the default.
	URLAuthNone = "NONE"
	// URLAuthIAM requires requests signed with SigV4 by a principal
	// allowed lambda:InvokeFunctionUrl.
	URLAuthIAM = "AWS_IAM"
)

// FrontDoorSettings choose a stage's front door, allowed at the top level
// and in a stage; a stage's value replaces the top level's.
type FrontDoorSettings struct {
	APIType         *string `json:"api_type,omitempty"`
	FunctionURLAuth *string `json:"function_url_auth,omitempty"`
}

// FrontDoor is a stage's resolved front door. Its zero value is the
// default, the REST API.
type FrontDoor struct {
	// APIType is APIHTTP or APIFunctionURL; empty means APIRest.
	APIType string
	// FunctionURLAuth is URLAuthNone or URLAuthIAM with APIFunctionURL,
	// empty otherwise.
	FunctionURLAuth string
}

// Type returns APIType with the default filled in.
func (f FrontDoor) Type() string {
	if f.APIType == "" {
		return APIRest
	}
	return f.APIType
}

// Check refuses what the manifest declares and front door f does not have
// (an API key, an authorizer it cannot wire): each error names the route
// (path and handler) and the front door, and says what to change. A REST
// API has them all. Synthesis and framework local both run it, so that a
// stage local serves is one that deploys.
func (f FrontDoor) Check(m *manifest.Manifest) error {
	typ := f.Type()
	if typ == APIRest {
		return nil
	}
	door := FrontDoorName(typ)
	var errs []error
	for _, r := range m.Routes {
		label := fmt.Sprintf("route %s (handler %s)", r.Path, r.Handler)
		if r.APIKeyRequired {
			errs = append(errs, fmt.Errorf("%s requires an API key, and this stage's front door, the %s (api_type %q), has no API keys or usage plans: remove APIKeyRequired from the route, or set api_type to %q for the stage", label, door, typ, APIRest))
		}
		if r.Authorizer != nil {
			if _, err := f.RouteAuth(r.Authorizer); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", label, err))
			}
		}
		if r.Streaming && typ == APIHTTP {
			errs = append(errs, &StreamingHTTPAPIError{Path: r.Path, Handler: r.Handler})
		}
	}
	return errors.Join(errs...)
}

// StreamingHTTPAPIError refuses a streaming route (framework.Streaming)
// on a stage whose front door is an HTTP API, which cannot stream.
type StreamingHTTPAPIError struct {
	Path, Handler string
}

func (e *StreamingHTTPAPIError) Error() string {
	return fmt.Sprintf("StreamingHTTPAPIError: route %s (handler %s) streams its response (framework.Streaming), and this stage's front door, the %s (api_type %q), cannot stream: an API Gateway HTTP API buffers every response. Set api_type to %q (a function URL in RESPONSE_STREAM mode) or %q (the REST API's streaming integration) for the stage",
		e.Path, e.Handler, FrontDoorName(APIHTTP), APIHTTP, APIFunctionURL, APIRest)
}

// RouteAuth returns the AuthorizationType of an HTTP API route with
// authorizer a, or checks that a function URL's auth type covers it. This
// is the one place an authorizer meets a front door other than the REST
// API: an IAM authorizer is AWS_IAM on both; on an HTTP API an app
// authorizer is a Lambda (CUSTOM) authorizer, a JWT authorizer and a user
// pool authorizer with one pool and its app clients are JWT authorizers;
// other kinds are refused.
func (f FrontDoor) RouteAuth(a *manifest.Authorizer) (string, error) {
	if a == nil {
		return "NONE", nil
	}
	typ := f.Type()
	door := FrontDoorName(typ)
	switch {
	case a.Type == manifest.AuthorizerIAM && typ == APIHTTP:
		return "AWS_IAM", nil
	case a.Type == manifest.AuthorizerIAM && f.FunctionURLAuth == URLAuthIAM:
		return "AWS_IAM", nil
	case a.Type == manifest.AuthorizerIAM:
		return "", fmt.Errorf("its IAM authorizer needs the function URL's auth type %s, which is one setting for every route: set \"function_url_auth\": %q for the stage (every route then needs signed requests), or set api_type to %q", URLAuthIAM, URLAuthIAM, APIHTTP)
	case a.Type == manifest.AuthorizerApp && typ == APIHTTP:
		return "CUSTOM", nil // a Lambda authorizer: the app's own function
	case (a.Type == manifest.AuthorizerJWT || a.Type == manifest.AuthorizerUserPool) && typ == APIHTTP:
		if _, _, err := a.JWTConfig(); err != nil {
			return "", fmt.Errorf("%w, or set api_type to %q for the stage", err, APIRest)
		}
		return "JWT", nil
	case a.Type == manifest.AuthorizerApp || a.Type == manifest.AuthorizerJWT:
		return "", fmt.Errorf("its authorizer %q is %s authorizer, which a function URL has not (its auth is NONE or AWS_IAM for every route): set api_type to %q for the stage", a.Name, wording.A(a.Type), APIHTTP)
	}
	return "", fmt.Errorf("its authorizer %q is %s authorizer, which this framework wires to an API Gateway REST API only, not to the %s (api_type %q): set api_type to %q for the stage, or use an IAM authorizer", a.Name, wording.A(a.Type), door, typ, APIRest)
}

// frontDoor reads one front-door key into s; it returns false for a key
// that is not one.
func (p *parser) frontDoor(s *FrontDoorSettings, prefix string, m member) bool {
	key := join(prefix, m.key)
	switch m.key {
	case "api_type":
		v := p.str(key, m.value)
		if v == nil {
			return true
		}
		switch norm := strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(*v)); {
		case *v == APIRest || *v == APIHTTP || *v == APIFunctionURL:
			s.APIType = v
		case norm == APIRest || norm == APIHTTP || norm == APIFunctionURL:
			p.errorf(key, "%q: write it %q", *v, norm)
		case norm == "http_api" || norm == "httpapi" || norm == "v2":
			p.errorf(key, "%q: write %q for API Gateway's HTTP API", *v, APIHTTP)
		case norm == "rest_api" || norm == "restapi" || norm == "v1":
			p.errorf(key, "%q: write %q for API Gateway's REST API", *v, APIRest)
		case norm == "url" || norm == "lambda_url" || norm == "function" || norm == "functionurl" || norm == "lambda":
			p.errorf(key, "%q: write %q for a Lambda function URL", *v, APIFunctionURL)
		default:
			p.errorf(key, "%q is not a front door: use %q (API Gateway REST API, the default), %q (API Gateway HTTP API) or %q (Lambda function URL)", *v, APIRest, APIHTTP, APIFunctionURL)
		}
	case "function_url_auth":
		v := p.str(key, m.value)
		if v == nil {
			return true
		}
		switch up := strings.ToUpper(*v); {
		case *v == URLAuthNone || *v == URLAuthIAM:
			s.FunctionURLAuth = v
		case up == URLAuthNone || up == URLAuthIAM:
			p.errorf(key, "%q: write it in capitals, %q", *v, up)
		case up == "IAM":
			p.errorf(key, "%q: write %q", *v, URLAuthIAM)
		default:
			p.errorf(key, "%q is not a function URL auth type: use %q (anyone may call the URL, the default) or %q (requests signed by a principal allowed lambda:InvokeFunctionUrl)", *v, URLAuthNone, URLAuthIAM)
		}
	default:
		return false
	}
	return true
}

// resolveFrontDoor sets s.FrontDoor from the top level and the stage, then
// refuses the settings the chosen front door does not have, naming the key
// and the front door: a setting is never silently dropped.
func resolveFrontDoor(path, name string, s *Stage, top, st Settings, keyOf func(string, bool) string) []error {
	fd := FrontDoor{}
	for _, l := range []FrontDoorSettings{top.FrontDoorSettings, st.FrontDoorSettings} {
		if l.APIType != nil {
			fd.APIType = *l.APIType
		}
		if l.FunctionURLAuth != nil {
			fd.FunctionURLAuth = *l.FunctionURLAuth
		}
	}
	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if fd.APIType == APIRest {
		fd.APIType = "" // the default: the zero value
	}
	if fd.APIType != APIFunctionURL {
		if fd.FunctionURLAuth != "" {
			fail(keyOf("function_url_auth", st.FunctionURLAuth != nil), "applies to api_type %q only, and stage %q has api_type %q: remove the key, or set api_type to %q", APIFunctionURL, name, fd.Type(), APIFunctionURL)
		}
		fd.FunctionURLAuth = ""
	} else if fd.FunctionURLAuth == "" {
		fd.FunctionURLAuth = URLAuthNone
	}
	s.FrontDoor = fd
	if fd.APIType == "" {
		return errs
	}
	door := FrontDoorName(fd.APIType)
	// restOnly reports a key of the REST API that the stage sets.
	restOnly := func(key string, inTop, inStage bool, why string) {
		if inTop || inStage {
			fail(keyOf(key, inStage), "stage %q has api_type %q (%s), which has no %s: remove the key, or set api_type to %q", name, fd.APIType, door, why, APIRest)
		}
	}
	restOnly("api_gateway_stage", top.APIGatewayStage != nil, st.APIGatewayStage != nil,
		"named stage (it serves at its root URL, with no stage segment; `framework url` prints it)")
	if t := st.APIGatewayEndpointType; t != nil && *t != EndpointRegional {
		restOnly("api_gateway_endpoint_type", false, true, *t+" endpoint type (it is regional)")
	} else if t := top.APIGatewayEndpointType; st.APIGatewayEndpointType == nil && t != nil && *t != EndpointRegional {
		restOnly("api_gateway_endpoint_type", true, false, *t+" endpoint type (it is regional)")
	}
	restOnly("api_gateway_policy_file", top.APIGatewayPolicyFile != nil, st.APIGatewayPolicyFile != nil, "resource policy")
	restOnly("minimum_compression_size", top.MinimumCompressionSize != nil, st.MinimumCompressionSize != nil, "response compression (compress in the handler and set Content-Encoding)")
	d := st.APIGatewayCustomDomain
	if d == nil {
		d = top.APIGatewayCustomDomain
	}
	if d != nil {
		dkey := keyOf("api_gateway_custom_domain", st.APIGatewayCustomDomain != nil)
		switch {
		case fd.APIType == APIFunctionURL:
			fail(dkey, "stage %q has api_type %q: a Lambda function URL takes no custom domain (put a CloudFront distribution in front of it yourself); remove the key, or set api_type to %q or %q", name, fd.APIType, APIHTTP, APIRest)
		case d.TLSVersion == TLS10:
			fail(join(dkey, "tls_version"), "stage %q has api_type %q: an HTTP API's custom domain supports %s only; remove tls_version", name, fd.APIType, TLS12)
		}
	}
	return errs
}

// FrontDoorName is the name of a front door for messages: "REST API",
// "HTTP API" or "function URL".
func FrontDoorName(apiType string) string {
	switch apiType {
	case APIHTTP:
		return "API Gateway HTTP API"
	case APIFunctionURL:
		return "Lambda function URL"
	}
	return "API Gateway REST API"
}
