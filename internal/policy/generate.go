package policy

// Generate returns the policy for the app whose Go module is in dir.
// Placeholder until the gen-policy work lands: CloudWatch Logs only.
func Generate(dir string) (*Document, error) {
	return &Document{Version: PolicyVersion, Statement: []Statement{{
		Sid: "AllowLogging", Effect: "Allow",
		Action:   []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"},
		Resource: []string{"arn:*:logs:*:*:*"},
	}}}, nil
}
