package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/manifest"
)

var projectionTypes = map[string]awsdynamodb.ProjectionType{
	manifest.ProjectionAll: awsdynamodb.ProjectionType_ALL, manifest.ProjectionKeysOnly: awsdynamodb.ProjectionType_KEYS_ONLY,
	manifest.ProjectionInclude: awsdynamodb.ProjectionType_INCLUDE,
}

// tableProtection sets the declared table d's point-in-time recovery and
// deletion protection for stage (manifest.Resource.TableProtection). An
// option off by the stage's default is left out of the template, so that
// the templates of the stages that do not keep data stay as they were; an
// option turned off in the declaration is written off, so that turning it
// off on a table that has it takes effect.
func tableProtection(props *awsdynamodb.TableProps, d *manifest.Resource, stage string) {
	pitr, protect := d.TableProtection(stage)
	if pitr || d.PointInTimeRecovery != nil {
		props.PointInTimeRecoverySpecification = &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(pitr)}
	}
	if protect || d.DeletionProtection != nil {
		props.DeletionProtection = jsii.Bool(protect)
	}
}

func cdkKey(k *manifest.KeyAttr) *awsdynamodb.Attribute {
	if k == nil {
		return nil
	}
	return &awsdynamodb.Attribute{Name: jsii.String(k.Name), Type: keyTypes[k.Type]}
}

func nonKey(x *manifest.Index) *[]*string {
	if len(x.NonKeyAttributes) == 0 {
		return nil
	}
	return jsii.Strings(x.NonKeyAttributes...)
}

// addIndexes adds the declared table d's secondary indexes to table: one
// jsii call per index.
func addIndexes(table awsdynamodb.Table, d *manifest.Resource) {
	for i := range d.GlobalIndexes {
		x := &d.GlobalIndexes[i]
		table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName: jsii.String(x.Name), PartitionKey: cdkKey(x.PartitionKey), SortKey: cdkKey(x.SortKey),
			ProjectionType: projectionTypes[x.ProjectionType()], NonKeyAttributes: nonKey(x),
		})
	}
	for i := range d.LocalIndexes {
		x := &d.LocalIndexes[i]
		table.AddLocalSecondaryIndex(&awsdynamodb.LocalSecondaryIndexProps{
			IndexName: jsii.String(x.Name), SortKey: cdkKey(x.SortKey),
			ProjectionType: projectionTypes[x.ProjectionType()], NonKeyAttributes: nonKey(x),
		})
	}
}
