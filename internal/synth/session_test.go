package synth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// sessionEngine is an engine program speaking the serve protocol: each
// request's answer names the program's process and how many requests it
// has answered; stage "broken" gets an error, stage "crash" ends it.
const sessionEngine = `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != "serve" {
		os.Exit(2)
	}
	fmt.Println(` + "`" + `{"ready":true}` + "`" + `)
	sc := bufio.NewScanner(os.Stdin)
	n := 0
	for sc.Scan() {
		var req struct{ Options struct{ Stage string } }
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			os.Exit(2)
		}
		n++
		switch req.Options.Stage {
		case "broken":
			fmt.Println(` + "`" + `{"error":"main.go:3:1: the app does not compile"}` + "`" + `)
			continue
		case "crash":
			fmt.Fprintln(os.Stderr, "engine crashed")
			os.Exit(3)
		}
		fmt.Printf("{\"progress\":\"synthesizing %d\"}\n", n)
		fmt.Printf("{\"result\":{\"StackName\":\"%d/%d\"}}\n", os.Getpid(), n)
	}
}
`

// TestSessionKeepsOneEngine: a session's syntheses run in one engine
// program (Node.js and the CDK stay loaded), through the app's errors,
// until it has served its share; an engine that ends is replaced at the
// next synthesis, with the reason given for the one it failed.
func TestSessionKeepsOneEngine(t *testing.T) {
	e, _ := sourceEngine(t, sessionEngine)
	s := e.Session()
	s.max = 4
	defer s.Close()
	var progress strings.Builder
	synth := func(stage string) (string, error) {
		res, err := s.Synth(context.Background(), Options{Stage: stage, Progress: &progress})
		if err != nil {
			return "", err
		}
		return res.StackName, nil
	}
	first, err := synth("dev")
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.Split(first, "/")[0]
	if _, err := synth("broken"); err == nil || !strings.Contains(err.Error(), "the app does not compile") {
		t.Fatalf("the engine's error: %v", err)
	}
	third, err := synth("dev")
	if err != nil || third != pid+"/3" {
		t.Fatalf("after the app's error: %q, %v; want the same engine's third answer %s/3", third, err, pid)
	}
	if !strings.Contains(progress.String(), "synthesizing 3") {
		t.Errorf("progress %q lacks the engine's lines", progress.String())
	}
	fourth, err := synth("dev")
	if err != nil || fourth != pid+"/4" || s.started != 1 {
		t.Fatalf("fourth synthesis %q, %v, %d engines started; want %s/4 from one", fourth, err, s.started, pid)
	}
	// It has served its 4: the next synthesis starts another.
	fifth, err := synth("dev")
	if err != nil || strings.HasPrefix(fifth, pid+"/") || !strings.HasSuffix(fifth, "/1") || s.started != 2 {
		t.Fatalf("fifth synthesis %q, %v, %d engines started; want the first answer of a second engine", fifth, err, s.started)
	}
	// An engine that ends says why, and the next synthesis has a new one.
	if _, err := synth("crash"); err == nil || !strings.Contains(err.Error(), "ended without an answer") || !strings.Contains(err.Error(), "engine crashed") {
		t.Fatalf("synthesis in an engine that crashed: %v", err)
	}
	if got, err := synth("dev"); err != nil || !strings.HasSuffix(got, "/1") || s.started != 3 {
		t.Fatalf("after a crash: %q, %v, %d engines started; want a third engine's first answer", got, err, s.started)
	}
}

// TestSessionStoppedByContext: a synthesis whose context ends asks the
// engine to stop and says so; the session's next synthesis starts another.
func TestSessionStoppedByContext(t *testing.T) {
	e, _ := sourceEngine(t, sessionEngine)
	s := e.Session()
	defer s.Close()
	if _, err := s.Synth(context.Background(), Options{Stage: "dev"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Synth(ctx, Options{Stage: "dev"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("synthesis with its context ended: %v, want context.Canceled", err)
	}
	if res, err := s.Synth(context.Background(), Options{Stage: "dev"}); err != nil || !strings.HasSuffix(res.StackName, "/1") || s.started != 2 {
		t.Fatalf("next synthesis: %+v, %v, %d engines started; want a new engine's first answer", res, err, s.started)
	}
}
