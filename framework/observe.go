package framework

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/names"
)

// Correlation of one invocation (issue 32): every handler, route or event
// handler, runs inside an invocation that Logger and Metrics find in its
// context. The invocation costs one small allocation; the logger and the
// metrics are made only when a handler asks for them, and their code is
// reached only through Logger and Metrics, so the linker leaves it out of
// an app that calls neither.

// The correlation keys of Logger's records and of a metrics line.
const (
	keyRequestID = names.RequestIDKey // "request_id"
	keyFunction  = "function"
	keyHandler   = "handler"
	keyColdStart = "cold_start"
	keyTraceID   = "xray_trace_id"
	keyStage     = "stage"
	keyService   = "service"
)

// envTraceID is the variable Lambda sets to the X-Ray trace header of the
// invocation being served (aws-lambda-go sets it from the Runtime API's
// Lambda-Runtime-Trace-Id header before calling the handler).
const envTraceID = "_X_AMZN_TRACE_ID"

// lambdaTraceKey is the context key under which aws-lambda-go puts the
// invocation's trace header.
const lambdaTraceKey = "x-amzn-trace-id"

// invocation is one call of a handler, as Logger and Metrics see it.
type invocation struct {
	_         [0]func()       // not comparable: no equality function to link
	ctx       context.Context // the context before the invocation was added
	app       *App
	req       *Request // a route's request; nil for an event
	kind      HandlerKind
	handler   string // the route's or event handler's name
	function  string // the function serving it: names.APIHandlerName for routes
	requestID string
	cold      bool

	mu      sync.Mutex // guards what follows: handlers may log from several goroutines
	trace   string     // the X-Ray trace header, once traceHeader looked
	traced  bool
	logger  *slog.Logger
	metrics invocationEnd // set by Metrics; nil when the handler records none
}

// invocationEnd is what runs when an invocation ends: the metrics line.
// An interface, so that the code behind it is linked only when Metrics is.
type invocationEnd interface{ end(inv *invocation) }

type invocationKey struct{}

// warm is set once the process served its first invocation: that one is
// the cold start.
var warm atomic.Bool

// observe starts the invocation of handler (of kind, served by function)
// and returns the context handlers get, which carries it.
func (a *App) observe(ctx context.Context, req *Request, kind HandlerKind, handler, function string) (context.Context, *invocation) {
	if ctx == nil {
		ctx = context.Background()
	}
	inv := &invocation{ctx: ctx, app: a, req: req, kind: kind, handler: handler, function: function,
		cold: !warm.Swap(true)}
	return context.WithValue(ctx, invocationKey{}, inv), inv
}

// finish ends the invocation: writes its metrics line, if it has one.
func (inv *invocation) finish() {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	m := inv.metrics
	inv.mu.Unlock()
	if m != nil {
		m.end(inv)
	}
}

// invocationOf returns the invocation ctx belongs to, or nil.
func invocationOf(ctx context.Context) *invocation {
	if ctx == nil {
		return nil
	}
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	return inv
}

// ids returns the request id and the X-Ray trace id of the invocation.
func (inv *invocation) ids() (requestID, traceID string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.id(), inv.traceID()
}

// id (inv.mu held) is the invocation's request id: Lambda's, else API Gateway's (the
// local server makes one up the same way).
func (inv *invocation) id() string {
	if inv.requestID == "" {
		inv.requestID = lambdaRequestID(inv.ctx)
		if inv.requestID == "" && inv.req != nil {
			inv.requestID = inv.req.GatewayContext.RequestID
		}
	}
	return inv.requestID
}

// stage is the stage the app serves: the one frameworktest gives the
// invocation (apphook.WithStage), else FRAMEWORK_STAGE (framework local,
// invoke --local and the stack set it on every function), else the stage
// in the deployed function's name (a function deployed before the stack
// set it), else the API Gateway stage of a route.
func (inv *invocation) stage() string {
	if s := apphook.StageOf(inv.ctx); s != "" {
		return s
	}
	if s := os.Getenv(names.EnvStage); s != "" {
		return s
	}
	if s := stageOfFunction(inv.app.Name, os.Getenv("AWS_LAMBDA_FUNCTION_NAME")); s != "" {
		return s
	}
	if inv.req != nil {
		return inv.req.GatewayContext.Stage
	}
	return ""
}

// stageOfFunction returns the stage of a deployed function of app from
// its name, which CloudFormation makes from the stack's (names.StackName:
// app-stage) and the function's logical id (which starts with
// names.ConstructID): "shop-prod-AppOrdersFunction1A2B-x9Y8" is stage
// prod's. "" when the name is not of that form.
func stageOfFunction(app, function string) string {
	rest, ok := strings.CutPrefix(function, app+"-")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "-"+names.ConstructID); i > 0 {
		return rest[:i]
	}
	return ""
}

// traceHeader (inv.mu held) is the invocation's X-Ray trace header
// ("Root=1-...;Parent=...;Sampled=0"): the one Lambda gave the invocation,
// else the request's X-Amzn-Trace-Id header, else, for a route served on
// this machine, one made up in X-Ray's format, so that local lines carry
// the same keys as deployed ones.
func (inv *invocation) traceHeader() string {
	if inv.traced {
		return inv.trace
	}
	inv.traced = true
	if v, _ := inv.ctx.Value(lambdaTraceKey).(string); v != "" {
		inv.trace = v
	} else if v := os.Getenv(envTraceID); v != "" && os.Getenv(names.EnvLambdaRuntimeAPI) != "" {
		inv.trace = v
	} else if inv.req != nil {
		if v := inv.req.Headers.Get("x-amzn-trace-id"); v != "" {
			inv.trace = v
		} else {
			inv.trace = "Root=" + newTraceRoot(time.Now()) + ";Sampled=0"
		}
	}
	return inv.trace
}

// traceID is the Root of the trace header: X-Ray's trace id.
func (inv *invocation) traceID() string {
	return traceRoot(inv.traceHeader())
}

// traceRoot returns the Root field of an X-Ray trace header, or the
// header itself when it has none.
func traceRoot(h string) string {
	for f := range strings.SplitSeq(h, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(f), "Root="); ok {
			return v
		}
	}
	return h
}

// newTraceRoot makes an X-Ray trace id: 1-<seconds, 8 hex>-<96 random bits>.
func newTraceRoot(t time.Time) string {
	var b strings.Builder
	b.WriteString("1-")
	b.WriteString(strconv.FormatInt(t.Unix(), 16))
	b.WriteByte('-')
	for range 2 {
		s := strconv.FormatUint(rand.Uint64()>>16, 16) // 48 bits
		b.WriteString(strings.Repeat("0", 12-len(s)))
		b.WriteString(s)
	}
	return b.String()
}

// Logger returns the log/slog logger of the invocation ctx belongs to
// (a route's Request.Context(), an event handler's ctx): every record
// carries request_id, function, handler, cold_start, xray_trace_id, stage
// and service, so that the lines of one invocation can be found together,
// routes and event handlers alike. Deployed it writes JSON lines on
// stdout; under framework local, the readable lines of the app's other
// logs. Its level is the stage's log_level (.framework/config.json;
// default info), lowered to debug for a share log_sample_rate of the
// invocations. Outside an invocation it returns slog.Default().
func Logger(ctx context.Context) *slog.Logger {
	inv := invocationOf(ctx)
	if inv == nil {
		return slog.Default()
	}
	return inv.log()
}

// log is the invocation's logger, made on first use.
func (inv *invocation) log() *slog.Logger {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.logger == nil {
		level := logSettings().level
		if r := logSettings().sample; r > 0 && rand.Float64() < r {
			level = slog.LevelDebug
		}
		h := baseLogHandler().WithAttrs(inv.attrs())
		inv.logger = slog.New(&levelHandler{Handler: h, min: level})
	}
	return inv.logger
}

// attrs are the invocation's correlation attributes.
func (inv *invocation) attrs() []slog.Attr {
	return []slog.Attr{
		slog.String(keyRequestID, inv.id()),
		slog.String(keyFunction, inv.function),
		slog.String(keyHandler, inv.handler),
		slog.Bool(keyColdStart, inv.cold),
		slog.String(keyTraceID, inv.traceID()),
		slog.String(keyStage, inv.stage()),
		slog.String(keyService, inv.app.Name),
	}
}

// levelHandler passes on the records of level min and above.
type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h *levelHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *levelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &levelHandler{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h *levelHandler) WithGroup(name string) slog.Handler {
	return &levelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}

// logConfig is the log level and the debug sampling rate of the stage:
// names.EnvLogLevel and names.EnvLogSampleRate, which framework deploy
// and framework local set from log_level and log_sample_rate.
type logConfig struct {
	level  slog.Level
	sample float64
}

// logSettings returns the logConfig of the process, read once. (A
// function, not a sync.OnceValue variable, so that the linker drops it
// from an app that never calls Logger.)
func logSettings() logConfig {
	logOnce.Do(func() {
		c := logConfig{level: slog.LevelInfo}
		switch strings.ToLower(os.Getenv(names.EnvLogLevel)) {
		case "debug":
			c.level = slog.LevelDebug
		case "warn", "warning":
			c.level = slog.LevelWarn
		case "error":
			c.level = slog.LevelError
		}
		if r, err := strconv.ParseFloat(os.Getenv(names.EnvLogSampleRate), 64); err == nil && r > 0 && r <= 1 {
			c.sample = r
		}
		logCfg = c
	})
	return logCfg
}

var (
	logOnce sync.Once
	logCfg  logConfig
)

// baseLogHandler is the handler Logger's loggers write through: the app's
// own slog default when it set one, else JSON lines on stdout in Lambda,
// else the process's log format on stderr (logtext.go), as the app's
// other lines.
func baseLogHandler() slog.Handler {
	baseOnce.Do(func() {
		baseHandler = appLogHandler
		if baseHandler == nil {
			baseHandler = logHandlerFor(logFormat(), os.Stdout, os.Stderr)
		}
	})
	return baseHandler
}

var (
	baseOnce    sync.Once
	baseHandler slog.Handler
)

// appLogHandler is the slog default handler the app set before Run, if it
// set one (installLogHandler, installLocalLogHandler).
var appLogHandler slog.Handler

// logHandlerFor is the handler of format: JSON lines on stdout in
// Lambda, else newLogHandler's on stderr.
func logHandlerFor(format string, stdout, stderr io.Writer) slog.Handler {
	if format == names.LogJSON && os.Getenv(names.EnvLambdaRuntimeAPI) != "" {
		return slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	if format == names.LogJSON || textLogHandler == nil {
		return slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	return textLogHandler(stderr, format == names.LogColor)
}
