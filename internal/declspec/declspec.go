// Package declspec is the one truth about what an app declares under a
// stage's configuration, for every command that runs or deploys it:
//
//   - Check refuses what the stage would refuse (framework synth and
//     deploy, through the construct, and framework local and invoke
//     --local all call it, so that what serves locally synthesizes);
//   - QueueOf gives the attributes a declared queue gets, its defaults
//     written out, which the construct puts in the stack and framework
//     local gives the emulator's queue (QueueAttrs).
//
// It imports neither CDK nor an AWS SDK: the local path stays light.
package declspec

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
)

// Stage is what the checks and defaults read of a stage's configuration.
// The zero value is the configuration of a project without
// .framework/config.json.
type Stage struct {
	// TimeoutSeconds is the functions' timeout (lambda_timeout); 0 means
	// config.DefaultLambdaTimeout.
	TimeoutSeconds int
	// FunctionTimeouts are the timeouts of the functions named in
	// lambda_functions, by handler name; 0 means TimeoutSeconds.
	FunctionTimeouts map[string]int
	// FrontDoor is the stage's front door (api_type, function_url_auth).
	FrontDoor config.FrontDoor
}

// FromConfig is the Stage of a resolved stage of .framework/config.json.
func FromConfig(st *config.Stage) Stage {
	out := Stage{TimeoutSeconds: st.LambdaTimeout, FrontDoor: st.FrontDoor}
	if len(st.LambdaFunctions) > 0 {
		out.FunctionTimeouts = make(map[string]int, len(st.LambdaFunctions))
		for name, fc := range st.LambdaFunctions {
			out.FunctionTimeouts[name] = fc.LambdaTimeout
		}
	}
	return out
}

// Load reads the Stage named stage of the project in dir; a project
// without .framework/config.json gets the zero Stage.
func Load(dir, stage string) (Stage, error) {
	f, err := config.Load(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Stage{}, nil
		}
		return Stage{}, err
	}
	st, err := f.Stage(stage)
	if err != nil {
		return Stage{}, err
	}
	return FromConfig(st), nil
}

// Timeout is the timeout in seconds of the function serving handler.
func (st Stage) Timeout(handler string) int {
	if t := st.FunctionTimeouts[handler]; t != 0 {
		return t
	}
	if st.TimeoutSeconds != 0 {
		return st.TimeoutSeconds
	}
	return config.DefaultLambdaTimeout
}

// ErrFrontDoor marks the errors of Check that the stage's front door
// causes (config.FrontDoor.Check).
var ErrFrontDoor = errors.New("front door")

// Check refuses what m declares that stage st cannot deploy, with an error
// that names the declaration and says what to change: a lambda_functions
// entry naming no function, a queue that would hide a message for less
// time than the function it feeds may run or give a FIFO handler more than
// 10 messages at once, a route the front door cannot serve. Synthesis and
// framework local and invoke --local all call it.
func Check(m *manifest.Manifest, st Stage) error {
	if err := checkFunctionNames(m, st); err != nil {
		return err
	}
	if err := checkQueues(m, st); err != nil {
		return err
	}
	if err := st.FrontDoor.Check(m); err != nil {
		return frontDoorError{err}
	}
	return nil
}

// frontDoorError is an error of the front door's check.
type frontDoorError struct{ error }

func (e frontDoorError) Is(target error) bool { return target == ErrFrontDoor }
func (e frontDoorError) Unwrap() error        { return e.error }

// checkFunctionNames refuses a lambda_functions entry that names no event
// handler or plain function of m.
func checkFunctionNames(m *manifest.Manifest, st Stage) error {
	known := map[string]bool{}
	for _, f := range m.Functions {
		known[f.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(st.FunctionTimeouts)) {
		if known[name] {
			continue
		}
		fns := slices.Sorted(maps.Keys(known))
		if len(fns) == 0 {
			return fmt.Errorf("lambda_functions.%s: the app %s has no event handler or plain function: remove the entry", name, m.App)
		}
		return fmt.Errorf("lambda_functions.%s: the app %s has no function %q; its functions are: %s", name, m.App, name, strings.Join(fns, ", "))
	}
	return nil
}

// checkQueues checks the queues that feed handlers beyond
// manifest.Validate, which Lambda would otherwise refuse at deploy time: a
// queue feeding a handler must keep a message hidden at least as long as
// the handler may run, and a FIFO queue gives batches of 10 messages at
// most.
func checkQueues(m *manifest.Manifest, st Stage) error {
	for _, f := range m.Functions {
		r := m.Resource(f.SourceResource)
		if r == nil || r.Kind != manifest.ResourceQueue {
			continue
		}
		if r.FIFO && f.BatchSize > 10 {
			return fmt.Errorf("%s: batch size %d is too large for the FIFO %s it reads: use 1 to 10", f.Label(), f.BatchSize, r.Label())
		}
		if r.FIFO && f.MaxBatchingWindowSeconds > 0 {
			return fmt.Errorf("%s: Lambda has no batching window for the FIFO %s it reads (a batch takes what the queue gives at once): remove MaxBatchingWindow", f.Label(), r.Label())
		}
		if r.VisibilityTimeoutSeconds == 0 {
			continue
		}
		if t := st.Timeout(f.Name); r.VisibilityTimeoutSeconds < t {
			return fmt.Errorf("%s: visibility timeout %d s is shorter than the %d s timeout of the %s it feeds, so Lambda would refuse the event source mapping: raise it to at least %d s (AWS advises 6 times the timeout, %d s), or leave it unset to get %d s",
				r.Label(), r.VisibilityTimeoutSeconds, t, f.Label(), t, min(6*t, maxVisibility), defaultVisibility(m, st, r))
		}
	}
	return nil
}
