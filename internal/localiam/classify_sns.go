package localiam

import "net/http"

func classifySNS(c *Call, r *http.Request, body []byte, e Env) error {
	q := queryParams(r, body)
	op := q.Get("Action")
	c.Operation = op
	action := "sns:" + op
	switch op {
	case "":
		return errUnmodeled
	case "Publish", "PublishBatch":
		action = "sns:Publish"
		switch {
		case q.Get("TopicArn") != "":
			c.add(action, q.Get("TopicArn"))
		case q.Get("TargetArn") != "":
			c.add(action, q.Get("TargetArn"))
		default:
			c.add(action, "*") // an SMS to a phone number
		}
	case "ListTopics", "ListSubscriptions", "ListPlatformApplications", "GetSMSAttributes", "CheckIfPhoneNumberIsOptedOut":
		c.add(action, "*")
	case "CreateTopic":
		if q.Get("Name") == "" {
			return errUnmodeled
		}
		c.add(action, e.arn("sns", q.Get("Name")))
	case "TagResource", "UntagResource", "ListTagsForResource":
		if q.Get("ResourceArn") == "" {
			return errUnmodeled
		}
		c.add(action, q.Get("ResourceArn"))
	default:
		if q.Get("TopicArn") == "" {
			return errUnmodeled
		}
		c.add(action, q.Get("TopicArn"))
	}
	return nil
}
