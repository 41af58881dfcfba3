package cfnstandin

import (
	"maps"
	"slices"
	"strings"
)

// listStackResources answers ListStackResources: the live resources of
// the stack, sorted by logical id, on one page.
func (s *Server) listStackResources(f form) (string, *apiError) {
	ref := f.get("StackName")
	st := s.find(ref)
	if st == nil {
		return "", notExist(ref)
	}
	var b strings.Builder
	b.WriteString("<StackResourceSummaries>")
	for _, id := range slices.Sorted(maps.Keys(st.resources)) {
		r := st.resources[id]
		b.WriteString("<member>" + el("LogicalResourceId", r.LogicalID) + el("PhysicalResourceId", r.PhysicalID) + el("ResourceType", r.Type) +
			el("ResourceStatus", "CREATE_COMPLETE") + el("LastUpdatedTimestamp", ts(s.now)) + "</member>")
	}
	b.WriteString("</StackResourceSummaries>")
	return b.String(), nil
}
