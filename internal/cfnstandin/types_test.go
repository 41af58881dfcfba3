package cfnstandin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
)

// domainTpl is a stage's log group and custom domain with its mapping and
// alias record; RETENTION, TYPES, CERTKEY and CERT are filled in per case.
const domainTpl = `{"Resources":{
"Fn":{"Type":"AWS::Lambda::Function","Properties":{"Runtime":"provided.al2023"}},
"Logs":{"Type":"AWS::Logs::LogGroup","Properties":{"LogGroupName":{"Fn::Join":["",["/aws/lambda/",{"Ref":"Fn"}]]},"RetentionInDays":RETENTION}},
"Api":{"Type":"AWS::ApiGateway::RestApi","Properties":{"Name":"a"}},
"Domain":{"Type":"AWS::ApiGateway::DomainName","Properties":{"DomainName":"api.example.com","EndpointConfiguration":{"Types":["TYPES"]},"CERTKEY":"CERT"}},
"Map":{"Type":"AWS::ApiGateway::BasePathMapping","Properties":{"DomainName":{"Ref":"Domain"},"RestApiId":{"Ref":"Api"},"BasePath":"v1"}},
"Record":{"Type":"AWS::Route53::RecordSet","Properties":{"Name":"api.example.com.","Type":"A","HostedZoneId":"Z0123456789ABCDEFGHIJ",
  "AliasTarget":{"DNSName":{"Fn::GetAtt":["Domain","DistributionDomainName"]},"HostedZoneId":{"Fn::GetAtt":["Domain","DistributionHostedZoneId"]}}}}},
"Outputs":{"Group":{"Value":{"Ref":"Logs"}},"GroupArn":{"Value":{"Fn::GetAtt":["Logs","Arn"]}},"Alias":{"Value":{"Fn::GetAtt":["Domain","DistributionDomainName"]}},
"Regional":{"Value":{"Fn::GetAtt":["Domain","RegionalDomainName"]}},"Record":{"Value":{"Ref":"Record"}},"Map":{"Value":{"Ref":"Map"}}}}`

func domainTemplate(retention, typ, certKey, cert string) string {
	return strings.NewReplacer("RETENTION", retention, "TYPES", typ, "CERTKEY", certKey, "CERT", cert).Replace(domainTpl)
}

const edgeCert = "arn:aws:acm:us-east-1:123456789012:certificate/abc"

func TestStageResourceTypes(t *testing.T) {
	tests := []struct {
		name, tpl string
		status    string
		reason    string
	}{
		{"edge domain and log group", domainTemplate("14", "EDGE", "CertificateArn", edgeCert), "CREATE_COMPLETE", ""},
		{"regional domain", domainTemplate("30", "REGIONAL", "RegionalCertificateArn", "arn:aws:acm:us-east-1:123456789012:certificate/abc"), "CREATE_COMPLETE", ""},
		{"retention CloudWatch refuses", domainTemplate("10", "EDGE", "CertificateArn", edgeCert), "ROLLBACK_COMPLETE", "Invalid value for RetentionInDays: 10"},
		{"edge certificate outside us-east-1", domainTemplate("14", "EDGE", "CertificateArn", "arn:aws:acm:eu-west-1:123456789012:certificate/abc"), "ROLLBACK_COMPLETE", "Certificate must be in 'us-east-1'"},
		{"regional domain without its certificate", domainTemplate("14", "REGIONAL", "CertificateArn", edgeCert), "ROLLBACK_COMPLETE", "A regional certificate is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Three attempts: a call here may meet the stand-in's
			// connection just as the SDK gives it up (its "failed to
			// discard remaining HTTP response body" warning); what this
			// test checks is CloudFormation's answer, not the transport.
			a, c, _ := clients(t, 3)
			ctx := context.Background()
			deploy(t, c, types.ChangeSetTypeCreate, tt.tpl)
			if s := a.CFN.Status("s"); s != tt.status {
				t.Fatalf("status %s, want %s", s, tt.status)
			}
			if tt.reason != "" {
				ev, err := c.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String("s")})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, e := range ev.StackEvents {
					found = found || strings.Contains(aws.ToString(e.ResourceStatusReason), tt.reason)
				}
				if !found {
					t.Errorf("no event gives the reason %q", tt.reason)
				}
				return
			}
			_, o := describeStack(t, c)
			if !strings.HasPrefix(o["Group"], "/aws/lambda/s-Fn-") || o["GroupArn"] != "arn:aws:logs:us-east-1:123456789012:log-group:"+o["Group"]+":*" {
				t.Errorf("log group outputs %v", o)
			}
			if !strings.HasSuffix(o["Alias"], ".cloudfront.net") || !strings.HasSuffix(o["Regional"], ".execute-api.us-east-1.amazonaws.com") ||
				o["Record"] != "api.example.com" || o["Map"] != "api.example.com/v1" {
				t.Errorf("domain outputs %v", o)
			}
		})
	}
}
