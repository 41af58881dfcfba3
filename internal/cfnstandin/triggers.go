package cfnstandin

import (
	"fmt"
	"strings"
)

// The resource types of event handlers' triggers behave as CloudFormation's
// do where a deploy tool can get them wrong: required properties are
// checked when the resource is created (a missing one fails it with
// CloudFormation's "Property validation failure" reason), physical ids and
// Fn::GetAtt Arn have the shapes AWS gives them, and the properties whose
// change replaces the resource are listed in recreate.
func init() {
	recreate["AWS::Events::Rule"] = []string{"Name", "EventBusName"}
	recreate["AWS::Lambda::EventSourceMapping"] = []string{"EventSourceArn", "StartingPosition", "StartingPositionTimestamp"}
	recreate["AWS::SNS::Subscription"] = []string{"Endpoint", "Protocol", "TopicArn"}
	recreate["Custom::S3BucketNotifications"] = []string{"BucketName"}
}

// checkTrigger validates a trigger resource about to be created; an error
// fails it.
func (s *Server) checkTrigger(st *stack, typ string, props map[string]any) error {
	missing := func(names ...string) error {
		for _, n := range names {
			if _, ok := props[n]; !ok {
				return fmt.Errorf("Properties validation failed for resource with message: #: required key [%s] not found", n)
			}
		}
		return nil
	}
	switch {
	case typ == "AWS::Events::Rule":
		_, sched := props["ScheduleExpression"]
		_, pattern := props["EventPattern"]
		if !sched && !pattern {
			return fmt.Errorf("Either ScheduleExpression or EventPattern must be specified (Service: EventBridge, Status Code: 400)")
		}
		if sched {
			if e := s.eval(st, props["ScheduleExpression"]); !strings.HasPrefix(e, "rate(") && !strings.HasPrefix(e, "cron(") {
				return fmt.Errorf("Parameter ScheduleExpression is not valid. (Service: EventBridge, Status Code: 400)")
			}
		}
	case typ == "AWS::Lambda::EventSourceMapping":
		if err := missing("FunctionName", "EventSourceArn"); err != nil {
			return err
		}
		arn := s.eval(st, props["EventSourceArn"])
		_, start := props["StartingPosition"]
		stream := strings.Contains(arn, ":kinesis:") || strings.Contains(arn, ":dynamodb:")
		switch {
		case stream && !start:
			return fmt.Errorf("1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: Member must not be null. (Service: Lambda, Status Code: 400)")
		case !stream && start:
			return fmt.Errorf("StartingPosition is not valid for an SQS event source. (Service: Lambda, Status Code: 400)")
		}
	case typ == "AWS::SNS::Subscription":
		if err := missing("Protocol", "TopicArn"); err != nil {
			return err
		}
		if p := s.eval(st, props["Protocol"]); p == "lambda" {
			return missing("Endpoint")
		}
	case strings.HasPrefix(typ, "Custom::") || typ == "AWS::CloudFormation::CustomResource":
		return missing("ServiceToken")
	}
	return nil
}

// triggerPhysicalID returns the physical id AWS gives a trigger resource,
// or "" for another type.
func triggerPhysicalID(st *stack, logical, typ string, props map[string]any) string {
	id := strings.ToLower(newID())
	switch typ {
	case "AWS::Lambda::EventSourceMapping":
		return id // a UUID
	case "AWS::SNS::Subscription":
		if t, ok := props["TopicArn"].(string); ok {
			return t + ":" + id
		}
		return "arn:aws:sns:us-east-1:123456789012:topic:" + id
	}
	return ""
}
