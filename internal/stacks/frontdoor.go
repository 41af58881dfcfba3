package stacks

import (
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/names"
)

// frontDoorLabel names the stage's front door in the stack description.
func frontDoorLabel(cfg *constructs.Config) string {
	if cfg != nil {
		switch cfg.APIType {
		case constructs.APIHTTP:
			return "HTTP API"
		case constructs.APIFunctionURL:
			return "function URL"
		}
	}
	return "REST API"
}

// frontDoorOutputs adds the outputs of a front door other than the REST
// API: EndpointURL, which `framework url` prints, and the HTTP API's id.
func frontDoorOutputs(a *constructs.App, output func(id string, value *string, desc string)) {
	output(names.OutputEndpointURL, a.EndpointURL(), "Base URL of the deployed API: route paths are relative to it")
	if a.HTTPAPI != nil {
		output(names.OutputHTTPAPIID, a.HTTPAPI.Ref(), "ID of the HTTP API")
	}
}
