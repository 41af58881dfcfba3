// Package openapi generates the whole definition of an app's API Gateway
// REST API, as one OpenAPI body with API Gateway's x-amazon-apigateway-*
// extensions, from the app's route manifest (manifest.Manifest).
//
// The construct hands the body to CDK in one piece (SpecRestApi with
// ApiDefinition.fromInline). One value for the whole API costs one jsii call
// whatever the route count, and it is one CloudFormation resource, where one
// CDK method per route would cost a round trip each and grow the stack's
// resources with the routes until CloudFormation's 500-resource limit.
//
// # Version
//
// The body is OpenAPI 3.0.1. API Gateway's REST import accepts Swagger 2.0
// and OpenAPI 3.0 alike and every extension used here applies to both; 3.0.1
// is the version API Gateway exports (oas30) and writes its extension
// examples in (the awsSigv4 authtype, security schemes under
// components.securitySchemes), so a body compared with an export or a
// document example reads the same. Swagger 2.0 brings nothing the body needs.
//
// # Mapping from the manifest to the body
//
// Build first checks the manifest with manifest.Validate, which includes the
// checks the runtime makes on the same route table (paths, methods, CORS,
// content types, routes sharing a path), so that a manifest the app
// refuses is refused here too; the CORS headers come from
// ManifestCORS.Headers and PreflightHeaders, the ones the runtime sends.
//
//   - info.title: Options.Title, else Manifest.App; info.version: "1.0".
//   - Manifest.BinaryTypes → x-amazon-apigateway-binary-media-types, in
//     manifest order, duplicates dropped, written with a plain "/"
//     ("application/octet-stream"). The "~1" escape of "/" belongs to JSON
//     Patch paths (UpdateRestApi, SAM's BinaryMediaTypes property), not to the
//     OpenAPI extension, whose documented values are plain media types; a type
//     holding "~1" is refused rather than imported as a type no request has.
//   - Each ManifestRoute.Path → paths[Path]; each of its Methods →
//     paths[Path][lower-case method], an operation with
//     x-amazon-apigateway-integration {type: aws_proxy, httpMethod: POST,
//     uri: Options.IntegrationURI, passthroughBehavior: when_no_match} and
//     one "200" response with a description (a proxy integration passes the
//     function's answer through whatever its status, so no other method
//     response is needed; OpenAPI 3.0 requires a non-empty responses object). Several routes on one path
//     share the path item; two routes declaring one method on a path are an
//     error naming both.
//   - Each {capture} of a path → a parameter {name, in: path, required: true,
//     schema: {type: string}} on every operation of the path, OPTIONS included.
//   - CORS (ManifestRoute.CORS non-nil) → an "options" operation on the path,
//     answered by API Gateway with a MOCK integration (requestTemplates
//     application/json {"statusCode": 200}) whose 200 response sets, as
//     single-quoted static values, exactly the headers framework's local
//     preflight sends: Access-Control-Allow-Methods (the path's methods sorted,
//     then OPTIONS, comma separated), Access-Control-Allow-Origin,
//     Access-Control-Allow-Headers (the defaults and the route's own, sorted,
//     comma separated), and when set Access-Control-Expose-Headers,
//     Access-Control-Max-Age and Access-Control-Allow-Credentials. The
//     operation declares the same headers in its 200 method response (API
//     Gateway maps only declared headers). Routes of one path with different
//     CORS settings, or OPTIONS on a CORS path, are errors.
//   - APIKeyRequired → security requirement "api_key", the scheme
//     {type: apiKey, name: x-api-key, in: header}, and
//     x-amazon-apigateway-api-key-source: HEADER.
//   - Authorizer iam → security requirement "sigv4", the scheme
//     {type: apiKey, name: Authorization, in: header,
//     x-amazon-apigateway-authtype: awsSigv4}.
//   - Authorizer cognito_user_pools → a scheme {type: apiKey, name: Header,
//     in: header, x-amazon-apigateway-authtype: cognito_user_pools,
//     x-amazon-apigateway-authorizer: {type: cognito_user_pools, providerARNs,
//     identitySource: method.request.header.<Header>}}, with
//     authorizerResultTtlInSeconds when TTLSeconds is set (API Gateway's
//     default, 300, otherwise).
//   - Authorizer custom → a scheme {type: apiKey, name: Header, in: header,
//     x-amazon-apigateway-authtype: custom, x-amazon-apigateway-authorizer:
//     {type: token, authorizerUri: AuthorizerURI, identitySource:
//     method.request.header.<Header>, authorizerResultTtlInSeconds:
//     TTLSeconds or 300}}.
//   - Authorizer app (an AppAuthorizer) → the same custom scheme with the
//     invocation URI of the authorizer's own function
//     (Options.AuthorizerURIs) and authorizerResultTtlInSeconds TTLSeconds
//     (0: no caching); with identity sources a {type: request} authorizer
//     whose identitySource lists method.request.header.<NAME> and
//     method.request.querystring.<NAME>, the scheme naming the first.
//   - A route with an API key and an authorizer has one security requirement
//     naming both schemes (API Gateway checks both).
//
// Security scheme names, which API Gateway also uses as the authorizers'
// names, come from the authorizer's name: the name itself when it is made of
// letters, digits, ".", "-" and "_" (what OpenAPI allows for a component key)
// and is not one of the fixed names api_key and sigv4; otherwise the name
// with every other character replaced by "_", then "_" and the first 8 hex
// digits of the name's SHA-256, so two names never share a scheme. Routes
// sharing an authorizer name share its scheme; two different definitions
// under one name are an error naming both routes.
//
// # Gateway responses
//
// API Gateway answers some requests itself (missing API key, missing token,
// unknown route, throttling, integration failure). So that a browser can
// read such a 403 or 401, it needs CORS headers, and gateway responses are
// set for the whole API, not per path. So when the app has CORS routes and all of them share one CORS
// configuration (the usual case, app.API.CORS or CORS(true) everywhere),
// x-amazon-apigateway-gateway-responses sets that configuration's headers on
// DEFAULT_4XX and DEFAULT_5XX (Allow-Methods excepted, as locally), keeping
// API Gateway's default body {"message":$context.error.messageString}.
// Non-CORS paths then get the headers too on API Gateway's own errors (an
// unknown path's 403, say): harmless, since those answers carry no data, and
// the local emulation gives them the same. When CORS routes disagree
// (different origins, say) no single set of headers is right for every
// path, and none is added rather than one path's origin being granted on
// another's errors: SharedCORS reports which case applies. The local
// emulation then adds none either, even on a CORS path's own refusals, so
// that what a browser sees locally is what it sees deployed. Apps without CORS get no gateway responses.
//
// # Content types
//
// The function itself answers 415 to a content type its route does not
// accept, locally and deployed alike; the body declares no request bodies,
// models or request validators, which would make API Gateway answer first
// with a different status and message.
//
// # Deploying the body
//
// The body describes the whole API, so the RestApi must take it in
// overwrite mode (CDK RestApiMode.OVERWRITE, CloudFormation Mode
// "overwrite"): in merge mode, API Gateway's default for PutRestApi, a
// route, binary type or gateway response removed from the body stays on the
// API.
//
// # Size
//
// The body costs about 415 bytes of compact JSON per operation (method or
// preflight), a third of it the integration URI repeated on every method
// and 32 bytes the one 200 response OpenAPI requires. 1,000 routes shaped
// like a REST API (two handlers per path, 1,417 operations) make about
// 587 KB compact; 1,000 routes on 1,000 paths with 2,333 operations and
// many captures, about 1.13 MB. An inline body counts
// towards CloudFormation's 1 MB template limit, in the template's own
// formatting, with the URI's token resolved to an Fn::Join; apps near a
// thousand routes need the body outside the template.
//
// # Value
//
// Build returns exactly what encoding/json decodes from the body's JSON:
// map[string]any objects, []any arrays, string, float64 and bool values, so
// the value survives any JSON round trip (jsii's included) unchanged.
package openapi
