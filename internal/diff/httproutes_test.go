package diff

import (
	"strings"
	"testing"
)

// TestHTTPAPIRouteChanges: a route added to an HTTP API, one removed, an
// authorization changed and a CORS preflight route added show as route
// changes, as a REST API's do.
func TestHTTPAPIRouteChanges(t *testing.T) {
	route := func(key, auth string) string {
		a := ""
		if auth != "" {
			a = `,"AuthorizationType":"` + auth + `"`
		}
		return `{"Type":"AWS::ApiGatewayV2::Route","Properties":{"ApiId":{"Ref":"Api"},"RouteKey":"` + key + `","Target":"integrations/x"` + a + `}}`
	}
	old := `{"Resources":{"Api":{"Type":"AWS::ApiGatewayV2::Api","Properties":{"Name":"a"}},
"R1":` + route("GET /", "") + `,"R2":` + route("GET /users/{name}", "") + `,"R3":` + route("DELETE /users/{name}", "") + `}}`
	neu := `{"Resources":{"Api":{"Type":"AWS::ApiGatewayV2::Api","Properties":{"Name":"a"}},
"R1":` + route("GET /", "AWS_IAM") + `,"R2":` + route("GET /users/{name}", "") + `,"R4":` + route("OPTIONS /users/{name}", "") + `,"R5":` + route("POST /orders", "") + `}}`
	r, err := Templates("shop-dev", []byte(old), []byte(neu))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.Routes {
		got = append(got, c.Action+" "+c.Method+" "+c.Path+" "+strings.Join(c.Changes, ","))
	}
	want := []string{"modify GET / authorization", "add POST /orders ", "modify GET /users/{name} cors enabled", "remove DELETE /users/{name} "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("route changes\n%q\nwant\n%q", got, want)
	}
}
