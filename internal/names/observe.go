package names

// Variables of the deployed and the local functions that set the log
// level of framework.Logger (config.json: log_level, log_sample_rate).
const (
	// EnvLogLevel is the lowest level framework.Logger writes: debug,
	// info (the default), warn or error.
	EnvLogLevel = "FRAMEWORK_LOG_LEVEL"
	// EnvLogSampleRate is the share of invocations, 0 to 1, whose
	// framework.Logger writes debug records whatever EnvLogLevel says.
	EnvLogSampleRate = "FRAMEWORK_LOG_SAMPLE_RATE"
)

// MetricsEventType is the "event" of the JSON line `framework local
// --json` prints for a metrics line of the app (CloudWatch EMF).
const MetricsEventType = "metrics"
