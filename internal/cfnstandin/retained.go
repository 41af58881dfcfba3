package cfnstandin

import (
	"slices"
	"strings"
)

// retained reports whether a resource definition keeps the resource when
// its stack is deleted (DeletionPolicy Retain or RetainExceptOnCreate).
func retained(def map[string]any) bool {
	p, _ := def["DeletionPolicy"].(string)
	return p == "Retain" || p == "RetainExceptOnCreate"
}

// listStacks answers ListStacks: every stack ever created, deleted ones
// included, newest first, filtered by StackStatusFilter when given, on one
// page.
func (s *Server) listStacks(f form) (string, *apiError) {
	filter := f.list("StackStatusFilter")
	var b strings.Builder
	b.WriteString("<StackSummaries>")
	for i := len(s.stacks) - 1; i >= 0; i-- {
		st := s.stacks[i]
		if len(filter) > 0 && !slices.Contains(filter, st.status) {
			continue
		}
		b.WriteString("<member>" + el("StackId", st.id) + el("StackName", st.name) + el("StackStatus", st.status) +
			el("CreationTime", ts(st.created)))
		if st.status == "DELETE_COMPLETE" {
			b.WriteString(el("DeletionTime", ts(st.updated)))
		}
		b.WriteString("</member>")
	}
	b.WriteString("</StackSummaries>")
	return b.String(), nil
}
