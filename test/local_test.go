package test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"
)

// TestNewProjectLocalReload is the development loop of a new user:
// new-project, local, curl, an edit that breaks the build, one that fixes it.
func TestNewProjectLocalReload(t *testing.T) {
	work := t.TempDir()
	env := testEnv(t)

	stdout, stderr, code := runCLI(t, work, env, "new-project", "shop")
	if code != 0 {
		t.Fatalf("new-project exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	proj := filepath.Join(work, "shop")
	for _, f := range []string{"go.mod", "go.sum", "main.go", ".framework/config.json"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
			t.Errorf("new-project did not write %s: %v", f, err)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(proj, ".framework", "config.json"))
	if !strings.Contains(string(cfg), `"app_name": "shop"`) {
		t.Errorf("config.json does not name the app shop:\n%s", cfg)
	}

	// Refusals write nothing.
	before := listDir(t, work)
	for _, tc := range []struct{ name, want string }{
		{"shop", "already exists"},
		{"9lives", "not a valid app name"},
		{"has_underscore", "not a valid app name"},
	} {
		_, stderr, code := runCLI(t, work, env, "new-project", tc.name)
		if code == 0 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("new-project %s: exit %d, stderr %q; want a non-zero exit and one line saying %q", tc.name, code, stderr, tc.want)
		}
	}
	if after := listDir(t, work); after != before {
		t.Errorf("a refused new-project changed the directory:\nbefore %s\nafter  %s", before, after)
	}

	// The human-readable serving line of spec 4.6.
	checkServingLine(t, proj, env)

	s := startLocal(t, proj, env)
	if got := get(t, s.URL+"/", nil); got.status != 200 || got.body != `{"hello":"world"}` {
		t.Fatalf("GET / = %d %s", got.status, got.body)
	}

	main := filepath.Join(proj, "main.go")
	src, _ := os.ReadFile(main)
	broken := strings.Replace(string(src), `"hello": "world"}`, `"hello": "world", "n": undefinedName}`, 1)
	writeFile(t, main, broken)
	ev := s.waitEvent(t, "build_failed", 2*time.Minute)
	if msg, _ := ev["error"].(string); !strings.Contains(msg, "main.go") || !strings.Contains(msg, "undefinedName") {
		t.Errorf("build_failed event does not show the compiler's message: %q", msg)
	}
	if got := get(t, s.URL+"/", nil); got.status != 200 || got.body != `{"hello":"world"}` {
		t.Errorf("while the build is broken the previous version must answer; GET / = %d %s", got.status, got.body)
	}

	fixed := strings.Replace(string(src), `"hello": "world"}`, `"hello": "again"}`, 1)
	writeFile(t, main, fixed)
	s.waitEvent(t, "reloaded", 2*time.Minute)
	if got := get(t, s.URL+"/", nil); got.status != 200 || got.body != `{"hello":"again"}` {
		t.Errorf("after the fix GET / = %d %s, want the new version's answer", got.status, got.body)
	}
}

// TestLocalFirstBuildBroken: with no good build yet, requests get 503 and
// the compiler's message, and the first good build starts serving.
func TestLocalFirstBuildBroken(t *testing.T) {
	env := testEnv(t)
	proj := newProject(t, env, "broken")
	main := filepath.Join(proj, "main.go")
	src, _ := os.ReadFile(main)
	writeFile(t, main, strings.Replace(string(src), "app.Run()", "app.Run() +", 1))

	s := startLocal(t, proj, env)
	got := get(t, s.URL+"/", nil)
	if got.status != 503 || !strings.Contains(got.body, "main.go") {
		t.Errorf("GET / with a broken first build = %d %q; want 503 with the compiler's message", got.status, got.body)
	}
	writeFile(t, main, string(src))
	s.waitEvent(t, "started", 2*time.Minute)
	if got := get(t, s.URL+"/", nil); got.status != 200 {
		t.Errorf("after the fix GET / = %d %s", got.status, got.body)
	}
}

// TestLocalKitchensink checks real HTTP answers of `framework local` for
// the kitchensink example, the API Gateway emulation included.
func TestLocalKitchensink(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "kitchensink")
	s := startLocal(t, dir, testEnv(t, "KITCHENSINK_DEBUG=1"), "--no-autoreload")
	for _, c := range kitchensinkCases() {
		t.Run(c.name, func(t *testing.T) {
			got := do(t, s.URL, c.req)
			c.check(t, got)
		})
	}

	t.Run("chunked body", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			for _, part := range []string{`{"chunk`, `ed": [1, `, `2, 3]}`} {
				pw.Write([]byte(part))
				time.Sleep(10 * time.Millisecond)
			}
			pw.Close()
		}()
		req, _ := http.NewRequest("POST", s.URL+"/echo", pr)
		req.ContentLength = -1 // sent with Transfer-Encoding: chunked
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "*/*")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp.Body)
		var v struct {
			JSONBody map[string]any `json:"json_body"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(body, &v) != nil || len(v.JSONBody["chunked"].([]any)) != 3 {
			t.Errorf("chunked POST /echo = %d %s", resp.StatusCode, body)
		}
	})

	t.Run("body over 10 MB", func(t *testing.T) {
		got := do(t, s.URL, request{method: "POST", path: "/echo", body: bytes.Repeat([]byte("x"), 10<<20+1), headers: map[string]string{"Content-Type": "application/json"}})
		if got.status != 413 || got.body != `{"message":"Request Too Long"}` {
			t.Errorf("10 MB + 1 body = %d %s, want 413 Request Too Long", got.status, got.body)
		}
	})

	t.Run("concurrent requests", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for i := 0; i < 64; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				name := "user" + strings.Repeat("x", i%5)
				req, _ := http.NewRequest("GET", s.URL+"/users/"+name, nil)
				req.Header.Set("Accept", "*/*")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(b), `"name":"`+name+`"`) {
					errs <- string(b)
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("concurrent request got another request's answer or failed: %s", e)
		}
	})
}

// checkServingLine runs `framework local` without --json and checks the
// line of spec 4.6, then stops it with SIGINT.
func checkServingLine(t *testing.T, dir string, env []string) {
	t.Helper()
	cmd := exec.Command(frameworkCLI(t), "local", "--port", "0", "--no-autoreload")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(os.Interrupt)
	r := bufio.NewReader(out)
	// Said at once, before the build: the first build on a machine
	// compiles for a minute.
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "Building the app") || !strings.HasSuffix(line, "...\n") {
		t.Fatalf("framework local printed %q first (%v), want \"Building the app...\"", line, err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("framework local printed nothing after the building line: %v", err)
	}
	m := regexp.MustCompile(`^Serving on localhost:(\d+)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("framework local printed %q, want \"Serving on localhost:<port>\"", line)
	}
	if got := get(t, "http://localhost:"+m[1]+"/", nil); got.status != 200 {
		t.Errorf("GET / on the announced port = %d %s", got.status, got.body)
	}
}

// request is one HTTP request of a case.
type request struct {
	method, path string
	body         []byte
	headers      map[string]string // Accept defaults to */* like curl's
}

// clientHeaders are the request's headers as the test clients send them:
// Accept: */* unless the case removes it, and a header whose value is ""
// removed.
func (r request) clientHeaders() map[string]string {
	headers := map[string]string{"Accept": "*/*"}
	for k, v := range r.headers {
		if v == "" {
			delete(headers, k)
		} else {
			headers[k] = v
		}
	}
	return headers
}

// response is what came back.
type response struct {
	status  int
	header  http.Header
	body    string
	rawBody []byte
}

// kcase is one kitchensink case, checked the same way locally and through
// the Lambda adapter.
type kcase struct {
	name  string
	req   request
	check func(t *testing.T, got response)
}

func kitchensinkCases() []kcase {
	binaryIn := make([]byte, 256)
	for i := range binaryIn {
		binaryIn[i] = byte(i)
	}
	return []kcase{
		{"GET /", request{method: "GET", path: "/"}, func(t *testing.T, got response) {
			wantJSON(t, got, 200, `{"hello":"world"}`)
		}},
		{"uri params", request{method: "PUT", path: "/users/j%C3%BCrgen", body: []byte(`{"age": 3}`), headers: map[string]string{"Content-Type": "application/json"}}, func(t *testing.T, got response) {
			wantJSON(t, got, 200, `{"json_body":{"age":3},"method":"PUT","name":"jürgen","uri_params":{"name":"jürgen"}}`)
		}},
		{"CORS preflight", request{method: "OPTIONS", path: "/cors", headers: map[string]string{"Origin": "https://a.example", "Access-Control-Request-Method": "POST"}}, func(t *testing.T, got response) {
			wantStatus(t, got, 200)
			wantHeader(t, got, "Access-Control-Allow-Origin", "*")
			wantHeader(t, got, "Access-Control-Allow-Methods", "GET,POST,OPTIONS")
			wantHeader(t, got, "Access-Control-Allow-Headers", "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key")
		}},
		{"CORS header on a route's answer", request{method: "POST", path: "/cors"}, func(t *testing.T, got response) {
			wantJSON(t, got, 200, `{"cors":"default","method":"POST"}`)
			wantHeader(t, got, "Access-Control-Allow-Origin", "*")
		}},
		{"CORSConfig headers", request{method: "GET", path: "/cors-custom"}, func(t *testing.T, got response) {
			wantHeader(t, got, "Access-Control-Allow-Origin", "https://foo.example.com")
			wantHeader(t, got, "Access-Control-Expose-Headers", "X-Special-Header")
			wantHeader(t, got, "Access-Control-Max-Age", "600")
			wantHeader(t, got, "Access-Control-Allow-Credentials", "true")
		}},
		{"415 for a content type the route does not accept", request{method: "POST", path: "/form", body: []byte(`{}`), headers: map[string]string{"Content-Type": "application/json"}}, func(t *testing.T, got response) {
			wantJSON(t, got, 415, `{"message":"Unsupported Media Type"}`)
		}},
		{"form body", request{method: "POST", path: "/form", body: []byte("a=1&a=2&b=x"), headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, func(t *testing.T, got response) {
			wantJSON(t, got, 200, `{"json_body":null,"parsed":{"a":["1","2"],"b":["x"]},"raw_body":"a=1\u0026a=2\u0026b=x"}`)
		}},
		{"binary round trip", request{method: "POST", path: "/binary", body: binaryIn, headers: map[string]string{"Content-Type": "application/octet-stream", "Accept": "application/octet-stream"}}, func(t *testing.T, got response) {
			wantStatus(t, got, 200)
			wantHeader(t, got, "Content-Type", "application/octet-stream")
			if !bytes.Equal(got.rawBody, binaryIn) {
				t.Errorf("binary echo returned %d bytes, not the 256 sent", len(got.rawBody))
			}
		}},
		{"binary response without Accept", request{method: "GET", path: "/binary-out", headers: map[string]string{"Accept": ""}}, func(t *testing.T, got response) {
			wantStatus(t, got, 400)
			var e struct{ Code, Message string }
			if json.Unmarshal(got.rawBody, &e) != nil || e.Code != "BadRequest" || !strings.Contains(e.Message, "Accept") {
				t.Errorf("binary without Accept: body %s, want Code BadRequest and a message about Accept", got.body)
			}
		}},
		{"binary route without Content-Type", request{method: "POST", path: "/binary", body: []byte{1, 2}, headers: map[string]string{"Accept": "application/octet-stream"}}, func(t *testing.T, got response) {
			wantStatus(t, got, 415)
		}},
		{"built-in error", request{method: "GET", path: "/error/notfound"}, func(t *testing.T, got response) {
			wantJSON(t, got, 404, `{"Code":"NotFoundError","Message":"NotFoundError raised"}`)
		}},
		{"debug 500", request{method: "GET", path: "/boom"}, func(t *testing.T, got response) {
			wantStatus(t, got, 500)
			if !strings.HasPrefix(got.header.Get("Content-Type"), "text/plain") || !strings.Contains(got.body, "kaboom: something broke") {
				t.Errorf("debug 500: %s %q, want text/plain with the error and its trace", got.header.Get("Content-Type"), got.body)
			}
		}},
		{"unknown path", request{method: "GET", path: "/no/such/route"}, func(t *testing.T, got response) {
			wantJSON(t, got, 403, `{"message":"Missing Authentication Token"}`)
		}},
		{"undeclared method", request{method: "DELETE", path: "/"}, func(t *testing.T, got response) {
			wantJSON(t, got, 403, `{"message":"Missing Authentication Token"}`)
		}},
		{"created", request{method: "POST", path: "/created"}, func(t *testing.T, got response) {
			wantStatus(t, got, 201)
			if got.body != "created!" {
				t.Errorf("body %q", got.body)
			}
		}},
		{"gzip", request{method: "GET", path: "/gzip", headers: map[string]string{"Accept-Encoding": "gzip"}}, func(t *testing.T, got response) {
			wantStatus(t, got, 200)
			wantHeader(t, got, "Content-Encoding", "gzip")
			zr, err := gzip.NewReader(bytes.NewReader(got.rawBody))
			if err != nil {
				t.Fatalf("gzip body: %v", err)
			}
			plain, _ := io.ReadAll(zr)
			if !strings.Contains(string(plain), `"compressed"`) {
				t.Errorf("gunzipped body %s", plain)
			}
		}},
		{"two Set-Cookie headers", request{method: "GET", path: "/headers"}, func(t *testing.T, got response) {
			if c := got.header.Values("Set-Cookie"); len(c) != 2 {
				t.Errorf("Set-Cookie = %q, want two", c)
			}
		}},
	}
}

// do sends r to base and returns the answer; the client does not
// decompress, so the bytes are the server's.
func do(t *testing.T, base string, r request) response {
	t.Helper()
	req, err := http.NewRequest(r.method, base+r.path, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.body == nil {
		req.Body = nil
	}
	req.Header.Set("Accept", "*/*")
	for k, v := range r.headers {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	b := readAll(t, resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b), rawBody: b}
}

func get(t *testing.T, url string, headers map[string]string) response {
	t.Helper()
	i := strings.Index(url[len("http://"):], "/") + len("http://")
	return do(t, url[:i], request{method: "GET", path: url[i:], headers: headers})
}

func wantStatus(t *testing.T, got response, status int) {
	t.Helper()
	if got.status != status {
		t.Errorf("status %d, want %d (body %q)", got.status, status, got.body)
	}
}

func wantHeader(t *testing.T, got response, name, value string) {
	t.Helper()
	if v := got.header.Get(name); v != value {
		t.Errorf("header %s = %q, want %q", name, v, value)
	}
}

// wantJSON checks the status and that the body is the JSON value want.
func wantJSON(t *testing.T, got response, status int, want string) {
	t.Helper()
	wantStatus(t, got, status)
	var g, w any
	if err := json.Unmarshal(got.rawBody, &g); err != nil {
		t.Errorf("body %q is not JSON: %v", got.body, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("body %s, want %s", gb, wb)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listDir lists dir's entries recursively, for before/after comparisons.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	return strings.Join(names, " ")
}

// TestLocalStageEnvironment: `framework local --stage S` gives the app the
// environment variables of stage S from .framework/config.json, as the
// deployed function would have them, and S in the request context.
func TestLocalStageEnvironment(t *testing.T) {
	env := testEnv(t, "TABLE=from-the-shell", "KEEP=user-env")
	proj := newProject(t, env, "envapp")
	writeFile(t, filepath.Join(proj, ".framework", "config.json"), `{
  "version": "1.0",
  "app_name": "envapp",
  "environment_variables": {"TABLE": "top-level", "COLOR": "blue"},
  "stages": {
    "dev": {},
    "prod": {"environment_variables": {"TABLE": "prod-table"}}
  }
}
`)
	writeFile(t, filepath.Join(proj, "main.go"), `package main

import (
	"os"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("envapp")
	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"table": os.Getenv("TABLE"), "color": os.Getenv("COLOR"), "keep": os.Getenv("KEEP"), "stage": r.GatewayContext.Stage, "tmp": os.TempDir()}, nil
	})
	app.Run()
}
`)
	for _, tc := range []struct{ stage, want string }{
		{"dev", `{"color":"blue","keep":"user-env","stage":"dev","table":"top-level"`},
		{"prod", `{"color":"blue","keep":"user-env","stage":"prod","table":"prod-table"`},
		{"qa", `{"color":"blue","keep":"user-env","stage":"qa","table":"top-level"`}, // undeclared stage: defaults
	} {
		t.Run(tc.stage, func(t *testing.T) {
			s := startLocal(t, proj, env, "--stage", tc.stage, "--no-autoreload")
			// The app's temporary directory is the user's, not the CLI
			// run's private one that goes when the run ends.
			tmp, _ := json.Marshal(envValue(env, "TMPDIR"))
			wantJSON(t, get(t, s.URL+"/", nil), 200, tc.want+`,"tmp":`+string(tmp)+`}`)
			s.stop(t)
		})
	}

	// A broken configuration stops local with the file and key named.
	writeFile(t, filepath.Join(proj, ".framework", "config.json"), `{"version": "1.0", "lambda_memory_size": "big"}`)
	_, stderr, code := runCLI(t, proj, env, "local", "--port", "0")
	if code == 0 || !strings.Contains(stderr, "config.json") || !strings.Contains(stderr, "lambda_memory_size") {
		t.Errorf("local with a broken config: exit %d, stderr %q; want an error naming the file and the key", code, stderr)
	}
}
