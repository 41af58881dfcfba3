package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Patterns of the operation settings' values, as AWS checks them.
var (
	layerARNRE   = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]{1,140}:\d+$`)
	subnetRE     = regexp.MustCompile(`^subnet-[0-9a-f]{8}(?:[0-9a-f]{9})?$`)
	secGroupRE   = regexp.MustCompile(`^sg-[0-9a-f]{8}(?:[0-9a-f]{9})?$`)
	certARNRE    = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:acm:([a-z0-9-]+):\d{12}:certificate/[A-Za-z0-9-]+$`)
	domainRE     = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
	basePathRE   = regexp.MustCompile(`^[A-Za-z0-9$_.+!*'()-]+$`)
	hostedZoneRE = regexp.MustCompile(`^Z[A-Z0-9]{1,32}$`)
)

// operation reads one operation key into s; it returns false for a key
// that is not one.
func (p *parser) operation(s *OperationSettings, prefix string, m member) bool {
	key := join(prefix, m.key)
	switch m.key {
	case "reserved_concurrency":
		if v := p.integer(key, m.value, "concurrent executions"); v != nil {
			if *v < 0 {
				p.errorf(key, "%d is negative: give the number of concurrent executions to reserve for the function (0 stops every invocation), or remove the key", *v)
			} else {
				s.ReservedConcurrency = v
			}
		}
	case "layers":
		if l := p.strlist(key, m.value, MaxLayers, "layers", func(v string) error {
			if !layerARNRE.MatchString(v) {
				return fmt.Errorf("%q is not a Lambda layer version ARN: expected arn:aws:lambda:<region>:<account>:layer:<name>:<version>", v)
			}
			return nil
		}); l != nil {
			s.Layers = l
		}
	case "subnet_ids":
		if l := p.strlist(key, m.value, MaxSubnets, "subnets", func(v string) error {
			if !subnetRE.MatchString(v) {
				return fmt.Errorf("%q is not a subnet ID: expected subnet- and 8 or 17 hexadecimal digits", v)
			}
			return nil
		}); l != nil {
			s.SubnetIDs = l
		}
	case "security_group_ids":
		if l := p.strlist(key, m.value, MaxSecurityGroups, "security groups", func(v string) error {
			if !secGroupRE.MatchString(v) {
				return fmt.Errorf("%q is not a security group ID: expected sg- and 8 or 17 hexadecimal digits", v)
			}
			return nil
		}); l != nil {
			s.SecurityGroupIDs = l
		}
	case "xray":
		s.XRay = p.boolean(key, m.value)
	case "access_log":
		s.AccessLog = p.boolean(key, m.value)
	case "log_retention_in_days":
		if v := p.integer(key, m.value, "days"); v != nil {
			if !slices.Contains(LogRetentionDays, *v) {
				p.errorf(key, "%d is not a retention CloudWatch Logs accepts: use one of %s (days)%s", *v, joinInts(LogRetentionDays), nearestRetention(*v))
			} else {
				s.LogRetentionInDays = v
			}
		}
	case "api_gateway_endpoint_type":
		if v := p.str(key, m.value); v != nil {
			switch up := strings.ToUpper(*v); {
			case *v == EndpointEdge || *v == EndpointRegional || *v == EndpointPrivate:
				s.APIGatewayEndpointType = v
			case up == EndpointEdge || up == EndpointRegional || up == EndpointPrivate:
				p.errorf(key, "%q: write it in capitals, %q", *v, up)
			default:
				p.errorf(key, "%q is not an API Gateway endpoint type: use %q (the default, through CloudFront), %q or %q", *v, EndpointEdge, EndpointRegional, EndpointPrivate)
			}
		}
	case "api_gateway_policy_file":
		if v := p.str(key, m.value); v != nil {
			if strings.TrimSpace(*v) == "" {
				p.errorf(key, "is empty: give the path of the REST API's resource policy file, relative to %s, or remove the key", Dir)
			} else {
				s.APIGatewayPolicyFile = v
			}
		}
	case "minimum_compression_size":
		if v := p.integer(key, m.value, "bytes"); v != nil {
			if *v < 0 || *v > MaxMinimumCompressionSize {
				p.errorf(key, "%d is out of range: API Gateway allows 0 to %d bytes (remove the key to turn compression off)", *v, MaxMinimumCompressionSize)
			} else {
				s.MinimumCompressionSize = v
			}
		}
	case "api_gateway_custom_domain":
		if d := p.customDomain(key, m.value); d != nil {
			s.APIGatewayCustomDomain = d
		}
	default:
		return false
	}
	return true
}

// strlist reads an array of strings, each checked by check, at most max of them.
func (p *parser) strlist(key string, raw json.RawMessage, max int, what string, check func(string) error) []string {
	if t := jsonType(raw); t != "an array" {
		hint := ""
		if t == "a string" {
			hint = fmt.Sprintf(": write [%s]", strings.TrimSpace(string(raw)))
		}
		p.errorf(key, "must be an array of strings, not %s%s", t, hint)
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		p.errorf(key, "invalid JSON array: %v", err)
		return nil
	}
	out := make([]string, 0, len(items))
	ok := true
	for i, item := range items {
		k := fmt.Sprintf("%s[%d]", key, i)
		var v string
		if jsonType(item) != "a string" || json.Unmarshal(item, &v) != nil {
			p.errorf(k, "must be a string, not %s", jsonType(item))
			ok = false
			continue
		}
		if err := check(v); err != nil {
			p.errorf(k, "%v", err)
			ok = false
			continue
		}
		if slices.Contains(out, v) {
			p.errorf(k, "%q is listed twice: keep one", v)
			ok = false
			continue
		}
		out = append(out, v)
	}
	if len(items) > max {
		p.errorf(key, "%d %s: Lambda allows %d at most", len(items), what, max)
		ok = false
	}
	if !ok {
		return nil
	}
	return out
}

// customDomain reads api_gateway_custom_domain.
func (p *parser) customDomain(key string, raw json.RawMessage) *CustomDomain {
	members, ok := p.object(key, raw)
	if !ok {
		return nil
	}
	before := len(p.errs)
	d := &CustomDomain{}
	for _, m := range members {
		k := join(key, m.key)
		if !slices.Contains(customDomainKeys, m.key) {
			msg := "unknown key of a custom domain"
			if s := closest(m.key, customDomainKeys); s != "" {
				msg += fmt.Sprintf(": did you mean %q?", s)
			} else {
				msg += ": its keys are " + strings.Join(customDomainKeys, ", ")
			}
			p.errorf(k, "%s", msg)
			continue
		}
		v := p.str(k, m.value)
		if v == nil {
			continue
		}
		var err error
		switch m.key {
		case "domain_name":
			d.DomainName, err = *v, checkDomainName(*v)
		case "certificate_arn":
			d.CertificateArn = *v
			if !certARNRE.MatchString(*v) {
				err = fmt.Errorf("%q is not an ACM certificate ARN: expected arn:aws:acm:<region>:<account>:certificate/<id>", *v)
			}
		case "base_path":
			d.BasePath = strings.Trim(*v, "/")
			if d.BasePath != "" && !basePathRE.MatchString(d.BasePath) {
				err = fmt.Errorf("%q is not a base path API Gateway accepts: use one segment of letters, digits and $_.+!*'()-, such as v1, or remove the key to serve at the domain's root", *v)
			}
		case "tls_version":
			d.TLSVersion = *v
			if *v != TLS10 && *v != TLS12 {
				err = fmt.Errorf("%q is not a TLS version API Gateway offers: use %q (the default) or %q", *v, TLS12, TLS10)
			}
		case "hosted_zone_id":
			d.HostedZoneID = *v
			if !hostedZoneRE.MatchString(*v) {
				err = fmt.Errorf("%q is not a Route 53 hosted zone ID: expected Z and capitals and digits, as in Z0123456789ABCDEFGHIJ", *v)
			}
		case "hosted_zone_name":
			d.HostedZoneName = strings.TrimSuffix(*v, ".")
			if checkDomainName(d.HostedZoneName) != nil {
				err = fmt.Errorf("%q is not a hosted zone name such as example.com", *v)
			}
		}
		if err != nil {
			p.errorf(k, "%v", err)
		}
	}
	bad := len(p.errs) > before
	for _, req := range []struct{ name, value string }{{"domain_name", d.DomainName}, {"certificate_arn", d.CertificateArn}} {
		if req.value == "" && !bad {
			p.errorf(key, "%s is missing: a custom domain needs domain_name and certificate_arn (an ACM certificate for the domain)", req.name)
		}
	}
	if d.HostedZoneName != "" && !bad && d.DomainName != d.HostedZoneName && !strings.HasSuffix(d.DomainName, "."+d.HostedZoneName) {
		p.errorf(join(key, "hosted_zone_name"), "%q is not in the hosted zone %q: the alias record must be inside the zone", d.DomainName, d.HostedZoneName)
	}
	if len(p.errs) > before {
		return nil
	}
	return d
}

func checkDomainName(name string) error {
	switch {
	case name == "":
		return errors.New("is empty: give the domain the API answers at, such as api.example.com")
	case strings.Contains(name, "://") || strings.Contains(name, "/"):
		return fmt.Errorf("%q is not a domain name: give the host name alone, such as api.example.com", name)
	case name != strings.ToLower(name):
		return fmt.Errorf("%q has capitals: API Gateway takes domain names in lower case, %q", name, strings.ToLower(name))
	case len(name) > 253 || !domainRE.MatchString(name):
		return fmt.Errorf("%q is not a domain name such as api.example.com", name)
	}
	return nil
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// nearestRetention suggests the accepted retention nearest to v.
func nearestRetention(v int) string {
	best := LogRetentionDays[0]
	for _, d := range LogRetentionDays {
		if abs(d-v) < abs(best-v) {
			best = d
		}
	}
	return fmt.Sprintf(": did you mean %d?", best)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
