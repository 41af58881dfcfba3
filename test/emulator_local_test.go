package test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/mototest"
)

// framework local started while the emulator does not answer yet creates
// the declared resources once it answers, saying so, without a reload:
// the app's parameter, set then, is what its route reads.
func TestLocalCreatesResourcesWhenTheEmulatorAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)

	// The CLI's environment, pointed at a moto not yet listening.
	env := motoEnv(t, &mototest.Server{URL: endpoint})
	dir := newProject(t, env, "shop")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(paramApp), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startLocal(t, dir, env, "--aws-endpoint", endpoint, "--no-schedules")
	if ev := s.seenEvent("resources_unavailable"); ev == nil || ev["emulator_down"] != true {
		t.Fatalf("resources_unavailable %v: want the emulator said not to answer; events: %v", ev, s.seen)
	}

	moto, err := mototest.Launch(port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(moto.Stop)
	if ev := s.waitEvent(t, "emulator_answers", 2*time.Minute); ev["endpoint"] != endpoint {
		t.Errorf("emulator_answers %v: want endpoint %s", ev, endpoint)
	}
	if ev := s.waitEvent(t, "resources", 2*time.Minute); fmt.Sprint(ev["resources"]) != "map[flags:shop-dev-flags]" || ev["where"] != endpoint {
		t.Errorf("resources %v: want the parameter created at %s", ev, endpoint)
	}
	cliRunner(t, dir, env)(0, "secret", "set", "flags", "--value", "beta=on", "--aws-endpoint", endpoint)
	resp, err := http.Get(s.URL + "/flag")
	if err != nil {
		t.Fatal(err)
	}
	if body := string(readAll(t, resp.Body)); resp.StatusCode != 200 || body != `"beta=on"` {
		t.Errorf("GET /flag once the emulator answers: %d %s, want \"beta=on\"\n%s", resp.StatusCode, body, s.stderr.String())
	}
	for _, ev := range s.seen {
		if ev["event"] == "change" {
			t.Errorf("a reload happened: %v", ev)
		}
	}
	s.stop(t)
}
