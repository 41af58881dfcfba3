package localiam

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// snsTopicARN is a topic's ARN; snsTargetARN a topic's or a platform
// endpoint's (Publish's TargetArn).
var (
	snsTopicARN  = regexp.MustCompile(`^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$`)
	snsTargetARN = regexp.MustCompile(`^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:[0-9]{12}:([A-Za-z0-9_-]{1,256}(\.fifo)?|endpoint/[A-Za-z0-9_./-]+)$`)
	snsTopicName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}(\.fifo)?$`)
)

// snsByTopic are the SNS operations on the topic of their TopicArn.
var snsByTopic = map[string]bool{"DeleteTopic": true, "GetTopicAttributes": true, "SetTopicAttributes": true,
	"ListSubscriptionsByTopic": true, "AddPermission": true, "RemovePermission": true, "ConfirmSubscription": true,
	"GetDataProtectionPolicy": true, "PutDataProtectionPolicy": true}

// snsSubscribeProtocols are the Subscribe protocols whose endpoint is not
// an AWS resource: an SQS queue, a Lambda function or a Firehose stream
// receives only what its own resource policy allows, which the check does
// not model (the emulator delivers regardless).
var snsSubscribeProtocols = map[string]bool{"http": true, "https": true, "email": true, "email-json": true, "sms": true}

func classifySNS(c *Call, r *http.Request, body []byte, e Env) error {
	q, err := formParams(r, body)
	if err != nil {
		return err
	}
	op := q.Get("Action")
	c.Operation = op
	action := "sns:" + op
	topic := func(param string) (string, error) {
		v := q.Get(param)
		if !snsTopicARN.MatchString(v) {
			return "", fmt.Errorf("%s %q is not a topic's ARN", param, v)
		}
		return v, nil
	}
	switch {
	case op == "":
		return errors.New("the request names no operation (Action)")
	case op == "Publish":
		// Publish goes to one of TopicArn, TargetArn and PhoneNumber;
		// given two, services differ on which wins.
		var given []string
		for _, k := range []string{"TopicArn", "TargetArn", "PhoneNumber"} {
			if q.Has(k) {
				given = append(given, k)
			}
		}
		if len(given) != 1 {
			return fmt.Errorf("Publish takes exactly one of TopicArn, TargetArn and PhoneNumber, not %d (%s)", len(given), strings.Join(given, ", "))
		}
		switch given[0] {
		case "TopicArn":
			t, err := topic("TopicArn")
			if err != nil {
				return err
			}
			c.add("sns:Publish", t)
		case "TargetArn":
			t := q.Get("TargetArn")
			if !snsTargetARN.MatchString(t) {
				return fmt.Errorf("TargetArn %q is not a topic's or a platform endpoint's ARN", t)
			}
			c.add("sns:Publish", t)
		default:
			c.add("sns:Publish", "*") // an SMS to a phone number
		}
	case op == "PublishBatch":
		// Every entry goes to the one TopicArn; entries name no target.
		if q.Has("TargetArn") || q.Has("PhoneNumber") {
			return errors.New("PublishBatch takes TopicArn only, not TargetArn or PhoneNumber")
		}
		t, err := topic("TopicArn")
		if err != nil {
			return err
		}
		c.add("sns:Publish", t)
	case op == "Subscribe":
		t, err := topic("TopicArn")
		if err != nil {
			return err
		}
		if p := q.Get("Protocol"); !snsSubscribeProtocols[p] {
			return fmt.Errorf("a subscription of protocol %q delivers to an AWS resource whose own policy decides, which the check does not model; declare the subscription instead", p)
		}
		c.add(action, t)
	case op == "ListTopics", op == "ListSubscriptions", op == "ListPlatformApplications", op == "GetSMSAttributes", op == "CheckIfPhoneNumberIsOptedOut":
		c.add(action, "*")
	case op == "CreateTopic":
		name := q.Get("Name")
		if !snsTopicName.MatchString(name) {
			return fmt.Errorf("Name %q is not a topic name", name)
		}
		c.add(action, e.arn("sns", name))
	case op == "TagResource", op == "UntagResource", op == "ListTagsForResource":
		t, err := topic("ResourceArn")
		if err != nil {
			return err
		}
		c.add(action, t)
	case snsByTopic[op]:
		t, err := topic("TopicArn")
		if err != nil {
			return err
		}
		c.add(action, t)
	default:
		return fmt.Errorf("%s is not an SNS operation the check models", op)
	}
	return nil
}
