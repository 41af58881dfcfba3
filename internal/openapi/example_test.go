package openapi_test

import (
	"fmt"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/openapi"
)

func ExampleBuild() {
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) { return id, nil },
		framework.Methods("GET", "PUT"), framework.CORS(true), framework.APIKeyRequired())
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		panic(err)
	}
	doc, err := openapi.Build(m, openapi.Options{
		Title:          "shop-dev",
		IntegrationURI: "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:shop/invocations",
	})
	if err != nil {
		panic(err)
	}
	item := doc["paths"].(map[string]any)["/items/{id}"].(map[string]any)
	get := item["get"].(map[string]any)
	fmt.Println(get["x-amazon-apigateway-integration"].(map[string]any)["type"], get["security"])
	preflight := item["options"].(map[string]any)["x-amazon-apigateway-integration"].(map[string]any)
	headers := preflight["responses"].(map[string]any)["default"].(map[string]any)["responseParameters"].(map[string]any)
	fmt.Println(preflight["type"], headers["method.response.header.Access-Control-Allow-Methods"])
	fmt.Println(doc["x-amazon-apigateway-api-key-source"])
	// Output:
	// aws_proxy [map[api_key:[]]]
	// mock 'GET,PUT,OPTIONS'
	// HEADER
}
