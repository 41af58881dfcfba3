package manifest_test

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

func TestParsePath(t *testing.T) {
	for pattern, want := range map[string]string{
		"/": "", "/users": "", "/users/{name}": "name", "/a/{x}/b/{y_2}": "x,y_2", "/a:b/@x~y": "", "/it's/(ok)": "",
	} {
		got, err := manifest.ParsePath(pattern)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", pattern, got, err, want)
		}
	}
	for pattern, word := range map[string]string{
		"users": `start with "/"`, "/users/": `end with "/"`, "/a//b": "empty path segment", "/a/{1d}": "malformed",
		"/a/x{id}": "malformed", "/a/{proxy+}": "malformed", "/a/{id}/{id}": "appears twice", "/a b": "characters",
	} {
		if _, err := manifest.ParsePath(pattern); err == nil || !strings.Contains(err.Error(), word) {
			t.Errorf("ParsePath(%q) = %v, want an error saying %q", pattern, err, word)
		}
	}
}

func TestValidMethod(t *testing.T) {
	for _, m := range manifest.SupportedMethods() {
		if !manifest.ValidMethod(m) {
			t.Errorf("ValidMethod(%q) = false", m)
		}
	}
	for _, m := range []string{"get", "FETCH", "", "CONNECT"} {
		if manifest.ValidMethod(m) {
			t.Errorf("ValidMethod(%q) = true", m)
		}
	}
	if got := strings.Join(manifest.SupportedMethods(), ","); got != "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS" {
		t.Errorf("SupportedMethods() = %s", got)
	}
}

// TestManifestCORSHeaders: the headers a CORS setting makes, defaults
// filled in, in the order the runtime sends them.
func TestManifestCORSHeaders(t *testing.T) {
	c := &manifest.CORS{AllowHeaders: []string{"X-Special", "Authorization"}, ExposeHeaders: []string{"X-Total", "X-Next"}, MaxAge: 600, AllowCredentials: true}
	var got []string
	for _, h := range c.PreflightHeaders([]string{"PUT", "GET"}) {
		got = append(got, h.Name+": "+h.Value)
	}
	want := []string{
		"Access-Control-Allow-Methods: GET,PUT,OPTIONS",
		"Access-Control-Allow-Origin: *",
		"Access-Control-Allow-Headers: Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key,X-Special",
		"Access-Control-Expose-Headers: X-Total,X-Next",
		"Access-Control-Max-Age: 600",
		"Access-Control-Allow-Credentials: true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("preflight headers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	same := &manifest.CORS{AllowOrigin: "*", AllowHeaders: []string{"X-Api-Key"}}
	if !same.Equal(&manifest.CORS{}) || same.Equal(c) || same.Equal(nil) || !(*manifest.CORS)(nil).Equal(nil) {
		t.Error("Equal does not compare the headers the settings make")
	}
}

// TestManifestValidate: the checks that need no handler run on a manifest
// as written, each error naming its route.
func TestManifestValidate(t *testing.T) {
	r := func(path, handler string, methods ...string) manifest.Route {
		return manifest.Route{Path: path, Methods: methods, Handler: handler, ContentTypes: []string{"application/json"}}
	}
	cors := &manifest.CORS{AllowOrigin: "*"}
	withCORS := func(x manifest.Route) manifest.Route { x.CORS = cors; return x }
	ok := &manifest.Manifest{Version: manifest.Version, App: "a", Routes: []manifest.Route{
		r("/", "index", "GET"), withCORS(r("/u/{id}", "get", "GET")), withCORS(r("/u/{id}", "put", "PUT")),
	}}
	if err := manifest.Validate(ok); err != nil {
		t.Fatalf("a valid manifest: %v", err)
	}
	bad := &manifest.Manifest{Version: manifest.Version, App: "a", BinaryTypes: []string{"image~1png"}, Routes: []manifest.Route{
		r("/x/", "trailing", "GET"),
		r("/m", "lower", "get"),
		withCORS(r("/o", "own", "OPTIONS")),
		r("/s", "one", "GET", "POST"), r("/s", "two", "POST"),
		r("/u/{a}", "ua", "GET"), r("/u/{b}", "ub", "POST"),
	}}
	err := manifest.Validate(bad)
	if err == nil {
		t.Fatal("Validate() = nil on an invalid manifest")
	}
	for _, w := range []string{
		`"image~1png"`, `route /x/ (handler "trailing")`, `route /m (handler "lower"): method "get"`, `route /o (handler "own"): OPTIONS`,
		`route /s: method POST is served by both "one" and "two"`, `/s (handler "one") and /s (handler "two") both declare POST`, "routes /u/{a} and /u/{b}",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %q, does not say %q", err, w)
		}
	}
}

func TestResourceDeclarationsChecked(t *testing.T) {
	m := manifest.Manifest{
		Version: manifest.Version,
		Resources: []manifest.Resource{
			{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, Stream: "NEW_IMAGE"},
			{Name: "Todos", Kind: manifest.ResourceQueue},
			{Name: "alerts", Kind: manifest.ResourceTopic, FIFO: true},
			{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 3},
			{Name: "files", Kind: manifest.ResourceBucket, FIFO: true},
		},
		Grants: []manifest.Grant{{Resource: "nosuch", Access: manifest.AccessRead}, {Resource: "jobs", Access: manifest.AccessPublish}},
		Functions: []manifest.Function{
			{Name: "onjob", Kind: manifest.KindSQS, SourceResource: "jobs"},
			{Name: "onalert", Kind: manifest.KindSQS, SourceResource: "alerts"},
			{Name: "ontodo", Kind: manifest.KindDynamoDB, SourceResource: "todos", StartingPosition: manifest.StartLatest},
		},
	}
	err := manifest.Validate(&m)
	if err == nil {
		t.Fatal("Validate accepted bad declarations")
	}
	for _, want := range []string{
		`queue "Todos": two resources are named "Todos"`,
		`bucket "files": only a queue or a topic can be FIFO`,
		`the app: access "read" to resource "nosuch", which the app does not declare`,
		`the app: access "publish" on queue "jobs"`,
		`sqs handler "onalert": its source topic "alerts" cannot feed an sqs handler`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the errors do not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "onjob") || strings.Contains(err.Error(), "ontodo") {
		t.Errorf("a handler fed by a declared resource was refused:\n%v", err)
	}
	if got := manifest.ResourceEnv("todos", manifest.AttrStreamARN); got != "FRAMEWORK_RES_TODOS_STREAM_ARN" {
		t.Errorf("ResourceEnv = %q", got)
	}
	if got := manifest.ResourceOutput("todos", manifest.AttrStreamARN); got != "ResTodosStreamArn" {
		t.Errorf("ResourceOutput = %q", got)
	}
}

// TestScheduleChecked: a schedule expression is checked as EventBridge
// checks it: 256 characters at most, parts separated by single spaces, a
// rate of a whole number and its unit (singular for 1).
func TestScheduleChecked(t *testing.T) {
	for expr, want := range map[string]string{
		"rate(5 minutes)": "", "rate(1 day)": "", "rate(12 hours)": "", "cron(0 12 * * ? *)": "",
		"rate(5\tminutes)": "a number and a unit separated by one space",
		"rate(5  minutes)": "a number and a unit separated by one space",
		"rate(1 minutes)":  "rate(1 minute)",
		"rate(5 minute)":   "rate(5 minutes)",
		"rate(0 minutes)":  `"0" is not a whole number of at least 1`,
		"rate(5 weeks)":    `unit "weeks" is not minute(s), hour(s) or day(s)`,
		"rate(" + strings.Repeat("1", 300) + " minutes)": "characters long: EventBridge takes at most 256",
		"cron(0 12 * * ? *\n)":                           `"\n" after field year`,
		"cron( 0 12 * * ? *)":                            "an extra space before the first field",
		"every day":                                      "is not a rate(...) or cron(...) expression",
	} {
		err := manifest.CheckSchedule(expr)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckSchedule(%q) = %v, want %q", expr, err, want)
		}
	}
}
