package local

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"
)

// Changes watches the project in dir as `framework local` does (the same
// directories, and the same files: Go sources but tests, go.mod, go.sum,
// .framework/config.json) and sends the files changed, relative to dir
// and sorted, once a burst of changes has been quiet for debounce (0 means
// 150 ms). Batches that the receiver has not taken yet are merged, so a
// slow receiver (a deploy) gets one batch of everything saved meanwhile.
// onError, when not nil, receives the watcher's errors. The channel is
// closed when ctx ends.
func Changes(ctx context.Context, dir string, debounce time.Duration, onError func(error)) (<-chan []string, error) {
	if debounce <= 0 {
		debounce = 150 * time.Millisecond
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s for changes: %w", dir, err)
	}
	w, err := newWatcher(abs)
	if err != nil {
		return nil, err
	}
	out := make(chan []string)
	go func() {
		defer close(out)
		defer w.Close()
		changed := map[string]bool{}
		var ready []string // a batch waiting for the receiver
		var timer *time.Timer
		var fire <-chan time.Time
		for {
			var send chan []string
			if ready != nil {
				send = out
			}
			select {
			case <-ctx.Done():
				return
			case ev := <-w.Events:
				if w.handle(ev) {
					changed[relName(abs, ev.Name)] = true
					if timer == nil {
						timer = time.NewTimer(debounce)
					} else {
						timer.Reset(debounce)
					}
					fire = timer.C
				}
			case err := <-w.Errors:
				if onError != nil {
					onError(err)
				}
			case <-fire:
				fire = nil
				for _, f := range ready {
					changed[f] = true
				}
				ready = slices.Sorted(maps.Keys(changed))
				changed = map[string]bool{}
			case send <- ready:
				ready = nil
			}
		}
	}()
	return out, nil
}
