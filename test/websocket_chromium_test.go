package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
)

// chatPage is the browser's side of chromiumChat: two WebSocket clients
// (ann, bob) connect; once both are open, an HTTP POST to the app's
// /broadcast pushes a line to both; then ann sends a message, which both
// receive too; both close, and the page reports what each received to
// /result on the page's own server.
const chatPage = `<!doctype html><html><body><script>
const wsURL = %q, apiURL = %q;
const got = {ann: [], bob: []};
let socks = {}, sent = false, done = false;
function report(r) { if (!done) { done = true; fetch('/result', {method: 'POST', body: JSON.stringify(r)}); } }
function open(name) {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(wsURL + '?name=' + name);
    s.onopen = () => resolve(s);
    s.onerror = () => reject(new Error(name + ' could not connect to ' + wsURL));
    s.onmessage = m => { got[name].push(JSON.parse(m.data)); step(); };
    socks[name] = s;
  });
}
function step() {
  if (!sent && got.ann.length >= 1 && got.bob.length >= 1) {
    sent = true;
    socks.ann.send(JSON.stringify({action: 'sendmessage', text: 'hi from ann'}));
  }
  if (got.ann.length >= 2 && got.bob.length >= 2) {
    socks.ann.close(1000, 'done'); socks.bob.close(1000, 'done');
    report({ok: true, got: got});
  }
}
Promise.all([open('ann'), open('bob')])
  .then(() => fetch(apiURL + '/broadcast', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({text: 'hello browsers'})}))
  .then(r => { if (!r.ok) throw new Error('POST /broadcast answered ' + r.status); })
  .catch(e => report({ok: false, error: String(e)}));
</script></body></html>`

// chromiumChat runs chatPage in headless Chromium (Debian's chromium
// package) against the chat app that s serves, and checks what both
// browser clients received, in order.
func chromiumChat(t *testing.T, s *localServer, wsURL string) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("headless Chromium is needed and `chromium` is not on PATH: install Debian's package (apt-get install chromium): %v", err)
	}
	results := make(chan string, 1)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, chatPage, wsURL, s.URL)
		case "/result":
			b, _ := io.ReadAll(r.Body)
			select {
			case results <- string(b):
			default:
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer page.Close()
	var out lockedbuf.Buffer
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+t.TempDir(), page.URL+"/")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var res string
	select {
	case res = <-results:
	case <-exited:
		t.Fatalf("chromium exited before the page reported; its output:\n%s", out.String())
	case <-ctx.Done():
		t.Fatalf("the page reported nothing within 2 minutes; chromium's output:\n%s", out.String())
	}
	want := `{"ok":true,"got":{"ann":[{"from":"server","text":"hello browsers"},{"from":"%[1]s","text":"hi from ann"}],"bob":[{"from":"server","text":"hello browsers"},{"from":"%[1]s","text":"hi from ann"}]}}`
	// ann's connection id is the sender of her line: read it from bob's.
	i := strings.Index(res, `"bob":[`)
	from := ""
	if j := strings.LastIndex(res, `{"from":"`); i >= 0 && j > i {
		from = res[j+len(`{"from":"`):]
		from = from[:strings.IndexByte(from, '"')]
	}
	if res != fmt.Sprintf(want, from) || from == "" || from == "server" {
		t.Fatalf("the browser clients received:\n%s\nwant:\n%s", res, fmt.Sprintf(want, "ANN'S CONNECTION ID"))
	}
	// Both closes reach the server, which runs the disconnect handler.
	for range 2 {
		if ev := s.waitEvent(t, "websocket_disconnected", time.Minute); fmt.Sprint(ev["status"]) != "1000" || ev["reason"] != "done" {
			t.Errorf("disconnected %v, want 1000 done", ev)
		}
	}
}
