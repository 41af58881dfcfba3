package constructs

import (
	"strings"
	"testing"
)

func TestConfigResolvedOperations(t *testing.T) {
	neg, big := -1, 20<<20
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"negative concurrency", Config{ReservedConcurrency: &neg}, "reserved concurrency -1 is negative"},
		{"subnets alone", Config{SubnetIDs: []string{"subnet-0123abcd"}}, "needs both SubnetIDs and SecurityGroupIDs"},
		{"odd retention", Config{LogRetentionDays: 10}, "log retention of 10 days"},
		{"private without policy", Config{EndpointType: EndpointPrivate}, "PRIVATE endpoint needs APIPolicy"},
		{"unknown endpoint", Config{EndpointType: "GLOBAL"}, `endpoint type "GLOBAL"`},
		{"compression", Config{MinimumCompressionSize: &big}, "minimum compression size"},
		{"domain without certificate", Config{CustomDomain: &CustomDomain{DomainName: "api.example.com"}}, "needs DomainName and CertificateArn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.cfg.resolved("dev"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	zero := 0
	ok := Config{ReservedConcurrency: &zero, SubnetIDs: []string{"subnet-0123abcd"}, SecurityGroupIDs: []string{"sg-0123abcd"}, LogRetentionDays: 30,
		EndpointType: EndpointPrivate, APIPolicy: map[string]any{"Statement": []any{}}}
	if _, err := ok.resolved("dev"); err != nil {
		t.Errorf("valid settings refused: %v", err)
	}
}
