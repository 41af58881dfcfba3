package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	awsconstructs "github.com/aws/constructs-go/constructs/v10"
)

// roleDependency drops the DependsOn of a function's CloudFormation
// resource on its role: the Lambda construct makes the function depend on
// everything under its role, the role itself included, but the function's
// Role property (Fn::GetAtt) already orders the two, and cfn-lint flags the
// redundant DependsOn (W3005). The dependency on the role's default policy
// (the grants of triggers and of the host app) stays: nothing else makes
// the function wait for it.
//
// It works as a validation because CDK turns the construct tree's
// dependencies into DependsOn entries after the tree is built and before
// it validates it: that is the one moment the entry exists and can be
// removed.
type roleDependency struct {
	fn awslambda.Function
}

// dropRoleDependency registers the removal for fn, whose role is role.
func dropRoleDependency(fn awslambda.Function, role awsconstructs.IConstruct) {
	if _, ok := role.Node().DefaultChild().(awscdk.CfnResource); !ok {
		return // an imported role: no resource of this stack
	}
	fn.Node().AddValidation(&roleDependency{fn: fn})
}

// Validate removes the dependency; it never reports a problem.
func (d *roleDependency) Validate() *[]*string {
	cfnFn, ok := d.fn.Node().DefaultChild().(awscdk.CfnResource)
	if !ok {
		return &[]*string{}
	}
	if cfnRole, ok := d.fn.Role().Node().DefaultChild().(awscdk.CfnResource); ok {
		cfnFn.RemoveResourceDependency(cfnRole)
	}
	return &[]*string{}
}
