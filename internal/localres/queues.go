package localres

import "github.com/framework-dev/framework/internal/manifest"

// isDLQAttr reports whether attribute a is one of a queue's dead-letter
// queue.
func isDLQAttr(a string) bool {
	return a == manifest.AttrDLQName || a == manifest.AttrDLQURL || a == manifest.AttrDLQARN
}
