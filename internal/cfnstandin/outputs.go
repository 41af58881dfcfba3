package cfnstandin

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// setOutputs evaluates the template's Outputs against the stack's
// resources and pseudo parameters.
func (s *Server) setOutputs(st *stack) {
	st.outputs = nil
	outs, _ := st.template["Outputs"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(outs)) {
		o, _ := outs[k].(map[string]any)
		desc, _ := o["Description"].(string)
		st.outputs = append(st.outputs, [3]string{k, s.eval(st, o["Value"]), desc})
	}
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

// eval returns the string value of a template expression: literals, Ref,
// Fn::GetAtt, Fn::Join, Fn::Sub and Fn::Select (of a list or of Fn::Split)
// over the stack's resources.
func (s *Server) eval(st *stack, v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return fmt.Sprint(t)
	case bool:
		return fmt.Sprint(t)
	case map[string]any:
		if r, ok := t["Ref"].(string); ok {
			return s.ref(st, r)
		}
		if ga, ok := t["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return s.getAtt(st, fmt.Sprint(ga[0]), fmt.Sprint(ga[1]))
		}
		if j, ok := t["Fn::Join"].([]any); ok && len(j) == 2 {
			sep, _ := j[0].(string)
			parts, _ := j[1].([]any)
			strs := make([]string, len(parts))
			for i, p := range parts {
				strs[i] = s.eval(st, p)
			}
			return strings.Join(strs, sep)
		}
		if sub, ok := t["Fn::Sub"]; ok {
			tpl, _ := sub.(string)
			if l, ok := sub.([]any); ok && len(l) > 0 {
				tpl, _ = l[0].(string)
			}
			return subVar.ReplaceAllStringFunc(tpl, func(m string) string {
				name := m[2 : len(m)-1]
				if i := strings.IndexByte(name, '.'); i > 0 {
					return s.getAtt(st, name[:i], name[i+1:])
				}
				return s.ref(st, name)
			})
		}
		if sel, ok := t["Fn::Select"].([]any); ok && len(sel) == 2 {
			var idx int
			fmt.Sscan(s.eval(st, sel[0]), &idx)
			if l, ok := sel[1].([]any); ok && idx < len(l) {
				return s.eval(st, l[idx])
			}
			if sp, ok := sel[1].(map[string]any)["Fn::Split"].([]any); ok && len(sp) == 2 {
				sep, _ := sp[0].(string)
				if parts := strings.Split(s.eval(st, sp[1]), sep); sep != "" && idx < len(parts) {
					return parts[idx]
				}
			}
		}
	}
	return ""
}

func (s *Server) ref(st *stack, name string) string {
	switch name {
	case "AWS::Region":
		return s.Region
	case "AWS::AccountId":
		return s.Account
	case "AWS::Partition":
		return "aws"
	case "AWS::URLSuffix":
		return "amazonaws.com"
	case "AWS::StackName":
		return st.name
	case "AWS::StackId":
		return st.id
	}
	if r := st.resources[name]; r != nil {
		return r.PhysicalID
	}
	return ""
}

func (s *Server) getAtt(st *stack, logical, attr string) string {
	r := st.resources[logical]
	if r == nil {
		return ""
	}
	if v, ok := s.typeAttr(r, attr); ok {
		return v
	}
	switch attr {
	case "Arn":
		switch r.Type {
		case "AWS::IAM::Role":
			return fmt.Sprintf("arn:aws:iam::%s:role/%s", s.Account, r.PhysicalID)
		case "AWS::Lambda::Function":
			return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", s.Region, s.Account, r.PhysicalID)
		case "AWS::S3::Bucket":
			return "arn:aws:s3:::" + r.PhysicalID
		case "AWS::Events::Rule":
			return fmt.Sprintf("arn:aws:events:%s:%s:rule/%s", s.Region, s.Account, r.PhysicalID)
		}
		return fmt.Sprintf("arn:aws:%s:%s:%s:%s", strings.ToLower(strings.Split(r.Type, "::")[1]), s.Region, s.Account, r.PhysicalID)
	case "RootResourceId":
		return r.PhysicalID + "root"
	case "RoleId":
		return "AROASTANDIN" + strings.ToUpper(logical)
	}
	return r.PhysicalID + "." + attr
}
