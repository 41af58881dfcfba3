package framework

import (
	"encoding/json"

	"github.com/framework-dev/framework/internal/manifest"
)

// SNSFilter makes an SNS handler's subscription a filtered one: SNS
// delivers to the handler only the messages whose message attributes match
// policy, an SNS filter policy such as
//
//	map[string]any{"kind": []any{"order", "refund"}, "total": []any{map[string]any{"numeric": []any{">=", 100}}}}
//
// (each key an attribute, each value a list of the values to match or of
// rule objects: prefix, suffix, anything-but, numeric, exists,
// equals-ignore-case, cidr). The others are not delivered, and not billed
// as invocations. The policy is checked when the app starts; `framework
// local` applies it with the emulator's own filtering (the subscription of
// the handler's local queue carries it), as SNS does deployed.
func SNSFilter(policy map[string]any) FunctionOption {
	return snsFilter("SNSFilter", manifest.FilterOnAttributes, policy)
}

// SNSBodyFilter is SNSFilter matching the message body instead, which must
// then be a JSON object: policy's keys are the body's fields, and may nest
// (map[string]any{"order": map[string]any{"status": []any{"paid"}}}). A
// message whose body is not JSON matches no body policy.
func SNSBodyFilter(policy map[string]any) FunctionOption {
	return snsFilter("SNSBodyFilter", manifest.FilterOnBody, policy)
}

func snsFilter(name, scope string, policy map[string]any) FunctionOption {
	return FunctionOption{name: name, kinds: []HandlerKind{KindSNS}, apply: func(m *manifest.Function) {
		if m.FilterPolicyScope != "" {
			m.FilterPolicyScope = manifest.FilterOnAttributes + "+" + manifest.FilterOnBody // reported: two filters
			return
		}
		b, err := json.Marshal(policy)
		if err != nil || policy == nil {
			b = []byte("null") // reported: not a JSON object
		}
		m.FilterPolicy, m.FilterPolicyScope = b, scope
	}}
}
