package diff

import (
	"fmt"
	"testing"
)

// BenchmarkTemplates compares two templates of a 300-route API that differ
// in one route and one statement, the size where a per-route resource tree
// would near CloudFormation's 500-resource limit.
func BenchmarkTemplates(b *testing.B) {
	paths := func(extra bool) map[string]any {
		p := map[string]any{}
		for i := 0; i < 300; i++ {
			p[fmt.Sprintf("/items%d/{id}", i)] = map[string]any{"get": proxy("f"), "put": proxy("f"), "options": preflightOp("'*'")}
		}
		if extra {
			p["/users/{name}"] = map[string]any{"post": proxy("f")}
		}
		return p
	}
	old := tpl(paths(false), allow("logs:PutLogEvents"))
	neu := tpl(paths(true), allow("logs:PutLogEvents"), allow("s3:GetObject"))
	b.SetBytes(int64(len(old) + len(neu)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Templates("s", old, neu)
		if err != nil || len(r.Routes) != 1 || len(r.IAM) != 1 {
			b.Fatalf("%v %+v", err, r)
		}
	}
}
