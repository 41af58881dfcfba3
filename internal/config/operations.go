package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/userfile"
)

// operationKeys are the settings that run a deployed stage in production
// (concurrency, layers, VPC, tracing, logs, the REST API's endpoint and
// domain). They are allowed at the top level and in a stage, like
// settingKeys; a stage's value replaces the top level's whole.
var operationKeys = []string{
	"reserved_concurrency", "layers", "subnet_ids", "security_group_ids", "xray",
	"log_retention_in_days", "api_gateway_endpoint_type", "api_gateway_policy_file",
	"minimum_compression_size", "api_gateway_custom_domain", "access_log",
}

// customDomainKeys are the keys of api_gateway_custom_domain.
var customDomainKeys = []string{"domain_name", "certificate_arn", "base_path", "tls_version", "hosted_zone_id", "hosted_zone_name"}

// REST API endpoint types (api_gateway_endpoint_type).
const (
	EndpointEdge     = "EDGE"     // through CloudFront; the default
	EndpointRegional = "REGIONAL" // in the stack's region
	EndpointPrivate  = "PRIVATE"  // reachable only from VPC endpoints; needs a resource policy
)

// TLS versions of a custom domain (api_gateway_custom_domain.tls_version),
// API Gateway's security policies.
const (
	TLS10 = "TLS_1_0"
	TLS12 = "TLS_1_2" // the default
)

// Limits of the operation settings, as AWS enforces them.
const (
	MaxLayers                 = 5        // layers per function
	MaxSubnets                = 16       // subnets per function
	MaxSecurityGroups         = 5        // security groups per function
	MaxMinimumCompressionSize = 10485760 // bytes
)

// LogRetentionDays are the retention periods CloudWatch Logs accepts, in days.
var LogRetentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

var (
	layerARNRE   = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]{1,140}:\d+$`)
	subnetRE     = regexp.MustCompile(`^subnet-[0-9a-f]{8}(?:[0-9a-f]{9})?$`)
	secGroupRE   = regexp.MustCompile(`^sg-[0-9a-f]{8}(?:[0-9a-f]{9})?$`)
	certARNRE    = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:acm:([a-z0-9-]+):\d{12}:certificate/[A-Za-z0-9-]+$`)
	domainRE     = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
	basePathRE   = regexp.MustCompile(`^[A-Za-z0-9$_.+!*'()-]+$`)
	hostedZoneRE = regexp.MustCompile(`^Z[A-Z0-9]{1,32}$`)
)

// OperationSettings are the keys that run a deployed stage in production,
// allowed both at the top level and in a stage. A nil pointer or slice
// means the key is absent.
type OperationSettings struct {
	ReservedConcurrency    *int          `json:"reserved_concurrency,omitempty"`
	Layers                 []string      `json:"layers,omitzero"`
	SubnetIDs              []string      `json:"subnet_ids,omitzero"`
	SecurityGroupIDs       []string      `json:"security_group_ids,omitzero"`
	XRay                   *bool         `json:"xray,omitempty"`
	LogRetentionInDays     *int          `json:"log_retention_in_days,omitempty"`
	APIGatewayEndpointType *string       `json:"api_gateway_endpoint_type,omitempty"`
	APIGatewayPolicyFile   *string       `json:"api_gateway_policy_file,omitempty"`
	MinimumCompressionSize *int          `json:"minimum_compression_size,omitempty"`
	APIGatewayCustomDomain *CustomDomain `json:"api_gateway_custom_domain,omitempty"`
	AccessLog              *bool         `json:"access_log,omitempty"`
}

// CustomDomain is api_gateway_custom_domain: a domain name of the
// stage's REST API.
type CustomDomain struct {
	// DomainName is the domain, such as api.example.com.
	DomainName string `json:"domain_name"`
	// CertificateArn is the ACM certificate of the domain; in us-east-1
	// for an EDGE endpoint, in the stack's region for a REGIONAL one.
	CertificateArn string `json:"certificate_arn"`
	// BasePath is the path under the domain the stage answers at; empty
	// means the domain's root.
	BasePath string `json:"base_path,omitempty"`
	// TLSVersion is the minimum TLS version, TLS12 (empty) or TLS10.
	TLSVersion string `json:"tls_version,omitempty"`
	// HostedZoneID and HostedZoneName name the Route 53 hosted zone that
	// gets an alias record for the domain; neither means no record.
	HostedZoneID   string `json:"hosted_zone_id,omitempty"`
	HostedZoneName string `json:"hosted_zone_name,omitempty"`
}

// URL returns the domain's base URL: https://{domain}/{base path}/.
func (d *CustomDomain) URL() string {
	if d.BasePath == "" {
		return "https://" + d.DomainName + "/"
	}
	return "https://" + d.DomainName + "/" + d.BasePath + "/"
}

// Operations are the resolved operation settings of a stage. Their zero
// value is every default: no reserved concurrency, layers, VPC, tracing or
// owned log group, an EDGE endpoint, no resource policy, no compression,
// no custom domain, access lines on.
type Operations struct {
	// ReservedConcurrency is the function's reserved concurrency; nil
	// leaves it unreserved (0 stops every invocation).
	ReservedConcurrency *int
	// Layers are the ARNs of the function's layers, in order.
	Layers []string
	// SubnetIDs and SecurityGroupIDs put the function in a VPC; both or
	// neither are set.
	SubnetIDs        []string
	SecurityGroupIDs []string
	// XRay turns on active tracing on the function and the API stage.
	XRay bool
	// LogRetentionInDays, when not 0, makes the stack own the function's
	// log group with that retention.
	LogRetentionInDays int
	// APIGatewayEndpointType is EndpointRegional or EndpointPrivate; empty
	// means EndpointEdge.
	APIGatewayEndpointType string
	// APIGatewayPolicyFile is the REST API's resource policy file as
	// written, relative to the configuration directory; see
	// LoadAPIGatewayPolicy.
	APIGatewayPolicyFile string
	// MinimumCompressionSize, when not nil, turns on response compression
	// for bodies of at least that many bytes.
	MinimumCompressionSize *int
	// APIGatewayCustomDomain is the stage's custom domain, or nil.
	APIGatewayCustomDomain *CustomDomain
	// NoAccessLog is true when access_log is false: the function writes no
	// access line per request.
	NoAccessLog bool

	// configPath and policyKey name the file and the key of
	// APIGatewayPolicyFile in errors.
	configPath, policyKey string
}

// EndpointType returns APIGatewayEndpointType with the default filled in.
func (o *Operations) EndpointType() string {
	if o.APIGatewayEndpointType == "" {
		return EndpointEdge
	}
	return o.APIGatewayEndpointType
}

// LoadAPIGatewayPolicy reads the resource policy file of
// api_gateway_policy_file (a path relative to the configuration
// directory, or absolute); it returns nil when the key is not set. The
// file must be a regular file (or a symbolic link to one) of at most
// userfile.MaxProjectFile bytes holding an IAM policy document with at
// least one statement.
func (o *Operations) LoadAPIGatewayPolicy() (map[string]any, error) {
	if o.APIGatewayPolicyFile == "" {
		return nil, nil
	}
	file := o.APIGatewayPolicyFile
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(o.configPath), file)
	}
	fail := func(format string, args ...any) error {
		return &Error{Path: o.configPath, Key: o.policyKey, Msg: fmt.Sprintf(format, args...)}
	}
	data, err := userfile.Read(file, "the REST API's resource policy", userfile.MaxProjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fail("%s does not exist: write the REST API's resource policy there (an IAM policy document), or fix the path, which is relative to %s", file, filepath.Dir(o.configPath))
	}
	if userfile.IsRefused(err) {
		return nil, fail("%v", err)
	}
	if err != nil {
		return nil, fail("read the resource policy: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		line, col := 0, 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col = lineColumn(data, int(se.Offset)-1)
		}
		if line > 0 {
			return nil, fail("%s:%d:%d is not a JSON object: %v", file, line, col, err)
		}
		return nil, fail("%s is not a JSON object: %v", file, err)
	}
	stmts, ok := doc["Statement"]
	if !ok {
		return nil, fail("%s has no Statement: a resource policy is {\"Version\": \"2012-10-17\", \"Statement\": [...]}", file)
	}
	if l, isList := stmts.([]any); isList && len(l) == 0 {
		return nil, fail("%s has an empty Statement list: give the REST API at least one statement", file)
	}
	if _, ok := doc["Version"]; !ok {
		doc["Version"] = "2012-10-17"
	}
	return doc, nil
}

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

// merge applies one layer (the top level, then the stage) of
// operation settings: a key the layer sets replaces the value whole.
func (o *Operations) merge(l OperationSettings, configPath, policyKey string) {
	if l.ReservedConcurrency != nil {
		o.ReservedConcurrency = l.ReservedConcurrency
	}
	if l.Layers != nil {
		o.Layers = slices.Clone(l.Layers)
	}
	if l.SubnetIDs != nil {
		o.SubnetIDs = slices.Clone(l.SubnetIDs)
	}
	if l.SecurityGroupIDs != nil {
		o.SecurityGroupIDs = slices.Clone(l.SecurityGroupIDs)
	}
	if l.XRay != nil {
		o.XRay = *l.XRay
	}
	if l.LogRetentionInDays != nil {
		o.LogRetentionInDays = *l.LogRetentionInDays
	}
	if l.APIGatewayEndpointType != nil {
		o.APIGatewayEndpointType = *l.APIGatewayEndpointType
	}
	if l.APIGatewayPolicyFile != nil {
		o.APIGatewayPolicyFile, o.configPath, o.policyKey = *l.APIGatewayPolicyFile, configPath, policyKey
	}
	if l.MinimumCompressionSize != nil {
		o.MinimumCompressionSize = l.MinimumCompressionSize
	}
	if l.APIGatewayCustomDomain != nil {
		d := *l.APIGatewayCustomDomain
		o.APIGatewayCustomDomain = &d
	}
	if l.AccessLog != nil {
		o.NoAccessLog = !*l.AccessLog
	}
	if o.APIGatewayEndpointType == EndpointEdge {
		o.APIGatewayEndpointType = "" // the default: the zero value
	}
}

// resolveOperations merges the operation settings of the top level and of
// a stage into s, then checks the rules that span keys. keyOf names a
// key's path as resolve does.
func resolveOperations(path, name string, s *Stage, top, st OperationSettings, keyOf func(string, bool) string) []error {
	o := &s.Operations
	o.merge(top, path, keyOf("api_gateway_policy_file", false))
	o.merge(st, path, keyOf("api_gateway_policy_file", true))

	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case len(o.SubnetIDs) > 0 && len(o.SecurityGroupIDs) == 0:
		fail(keyOf("subnet_ids", st.SubnetIDs != nil), "stage %q puts the function in subnets without security_group_ids: Lambda needs both to reach a VPC; add security_group_ids", name)
	case len(o.SecurityGroupIDs) > 0 && len(o.SubnetIDs) == 0:
		fail(keyOf("security_group_ids", st.SecurityGroupIDs != nil), "stage %q gives security groups without subnet_ids: Lambda needs both to reach a VPC; add subnet_ids", name)
	}
	typ := o.EndpointType()
	inStage := st.APIGatewayEndpointType != nil
	if typ == EndpointPrivate && o.APIGatewayPolicyFile == "" {
		fail(keyOf("api_gateway_endpoint_type", inStage), "PRIVATE for stage %q requires api_gateway_policy_file: a private REST API answers only requests its resource policy allows (for example from your VPC endpoint)", name)
	}
	if d := o.APIGatewayCustomDomain; d != nil {
		dkey := keyOf("api_gateway_custom_domain", st.APIGatewayCustomDomain != nil)
		switch m := certARNRE.FindStringSubmatch(d.CertificateArn); {
		case typ == EndpointPrivate:
			fail(dkey, "stage %q has a PRIVATE endpoint: this framework sets custom domains on EDGE and REGIONAL endpoints only; remove the domain or change api_gateway_endpoint_type", name)
		case typ == EndpointEdge && m != nil && m[1] != "us-east-1":
			fail(join(dkey, "certificate_arn"), "the certificate is in %s, but an EDGE endpoint (the default) is served by CloudFront, which takes certificates from us-east-1 only: use a certificate from us-east-1, or set api_gateway_endpoint_type to REGIONAL with a certificate in the stack's region", m[1])
		}
	}
	return errs
}
