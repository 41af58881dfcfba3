package cfnstandin

import (
	"fmt"
	"strings"
)

// The resource types an app declares (tables, queues, topics, buckets,
// secrets, parameters) get the physical ids and Fn::GetAtt attributes AWS
// gives them, so that what the stack hands to its functions and outputs
// has the real shapes: a queue's physical id is its URL, a topic's and a
// secret's their ARN, a table's and a parameter's their name, and a
// bucket's name is in lower case.

// declaredPhysicalID returns the physical id of a resource of these types
// whose name CloudFormation generates from the stack, the logical id and
// a random suffix (name), or "" for another type.
func declaredPhysicalID(st *stack, typ, logical, name string, props map[string]any) string {
	region, account := stackEnv(st)
	switch typ {
	case "AWS::S3::Bucket":
		return strings.ToLower(name)
	case "AWS::SQS::Queue":
		if fifo, _ := props["FifoQueue"].(bool); fifo {
			name += ".fifo"
		}
		return fmt.Sprintf("https://sqs.%s.amazonaws.com/%s/%s", region, account, name)
	case "AWS::SNS::Topic":
		return fmt.Sprintf("arn:aws:sns:%s:%s:%s", region, account, name)
	case "AWS::SecretsManager::Secret":
		// The generated name is the logical id and a random part (which
		// the AWS CDK relies on to read the name back from the ARN);
		// Secrets Manager adds six characters to it.
		random := strings.ReplaceAll(newID(), "-", "")
		return fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s-%s-%s", region, account, logical, random[:12], random[12:18])
	case "AWS::SSM::Parameter":
		return "CFN-" + name
	}
	return ""
}

// stackEnv returns the region and account of a stack, from its id.
func stackEnv(st *stack) (region, account string) {
	parts := strings.Split(st.id, ":")
	if len(parts) < 5 {
		return "us-east-1", "123456789012"
	}
	return parts[3], parts[4]
}

// declaredAttr returns the Fn::GetAtt attributes of these types.
func (s *Server) declaredAttr(r *Resource, attr string) (string, bool) {
	last := r.PhysicalID[strings.LastIndexAny(r.PhysicalID, "/:")+1:]
	switch r.Type + "." + attr {
	case "AWS::DynamoDB::Table.Arn":
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", s.Region, s.Account, r.PhysicalID), true
	case "AWS::DynamoDB::Table.StreamArn":
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s/stream/2026-01-01T00:00:00.000", s.Region, s.Account, r.PhysicalID), true
	case "AWS::SQS::Queue.Arn":
		return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", s.Region, s.Account, last), true
	case "AWS::SQS::Queue.QueueName":
		return last, true
	case "AWS::SQS::Queue.QueueUrl":
		return r.PhysicalID, true
	case "AWS::SNS::Topic.TopicArn":
		return r.PhysicalID, true
	case "AWS::SNS::Topic.TopicName":
		return last, true
	case "AWS::SSM::Parameter.Value":
		v, _ := r.Properties["Value"].(string)
		return v, true
	}
	return "", false
}
