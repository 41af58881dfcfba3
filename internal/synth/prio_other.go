//go:build !linux

package synth

// inBackground runs f. Outside Linux the nice value belongs to the whole
// process, so f keeps the program's priority.
func inBackground(f func()) { f() }
