package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	cwltypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
)

// LogsAPI is the part of the CloudWatch Logs client the reader uses.
type LogsAPI interface {
	FilterLogEvents(ctx context.Context, in *cloudwatchlogs.FilterLogEventsInput, opts ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error)
}

// ErrNoLogGroup is returned when the log group does not exist: Lambda
// creates it on the function's first invocation.
var ErrNoLogGroup = errors.New("the log group does not exist")

// Event is one log event.
type Event struct {
	// ID is CloudWatch Logs' event ID.
	ID string
	// Time is the event's timestamp.
	Time time.Time
	// Stream is the name of the log stream holding the event.
	Stream string
	// Message is the event's text, without its trailing newline.
	Message string
}

// TimeFormat is how log lines show an event's time: UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// ShortStream abbreviates a Lambda log stream name
// (2026/11/23/[$LATEST]0123456789abcdef...) to the first 8 characters of the
// execution environment's ID that ends it, enough to tell concurrent
// environments apart; other names keep their last 8 characters.
func ShortStream(name string) string {
	if i := strings.LastIndexByte(name, ']'); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
		if len(name) > 8 {
			name = name[:8]
		}
		return name
	}
	if len(name) > 8 {
		name = name[len(name)-8:]
	}
	return name
}

// Line formats the event as one compact line: time, short stream, message
// (an access line of the framework's Lambda adapter made compact, see Compact).
func (e Event) Line() string {
	return e.Time.UTC().Format(TimeFormat) + " " + ShortStream(e.Stream) + " " + Compact(e.Message)
}

// Reader reads the events of one log group.
type Reader struct {
	// Client is the CloudWatch Logs client.
	Client LogsAPI
	// Group is the log group's name.
	Group string
	// PollInterval is the time between two looks for new events when
	// following (default 2 s).
	PollInterval time.Duration
	// Lag is how far back each look reaches before the newest event seen,
	// so that an event CloudWatch Logs ingests late (its timestamp older than
	// one already printed) is still printed, once (default 10 s).
	Lag time.Duration
}

// Fetch returns the group's events with start <= time (and time < end when
// end is not zero), oldest first, following every page. It returns
// ErrNoLogGroup (wrapped) when the group does not exist.
func (r *Reader) Fetch(ctx context.Context, start, end time.Time) ([]Event, error) {
	in := &cloudwatchlogs.FilterLogEventsInput{
		LogGroupName: aws.String(r.Group),
		StartTime:    aws.Int64(start.UnixMilli()),
	}
	if !end.IsZero() {
		in.EndTime = aws.Int64(end.UnixMilli() - 1)
	}
	var evs []Event
	for {
		out, err := r.Client.FilterLogEvents(ctx, in)
		if err != nil {
			var nf *cwltypes.ResourceNotFoundException
			if errors.As(err, &nf) {
				return nil, fmt.Errorf("read log group %s: %w", r.Group, ErrNoLogGroup)
			}
			return nil, fmt.Errorf("read log group %s: %w", r.Group, err)
		}
		for _, e := range out.Events {
			evs = append(evs, Event{
				ID:      aws.ToString(e.EventId),
				Time:    time.UnixMilli(aws.ToInt64(e.Timestamp)).UTC(),
				Stream:  aws.ToString(e.LogStreamName),
				Message: strings.TrimRight(aws.ToString(e.Message), "\r\n"),
			})
		}
		next := aws.ToString(out.NextToken)
		if next == "" || next == aws.ToString(in.NextToken) {
			break
		}
		in.NextToken = aws.String(next)
	}
	// Pages and streams need not come in time order: sort, keeping the
	// order of a stream's events that share a millisecond.
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	return evs, nil
}

// Follow calls emit with the group's events from start on, oldest first,
// then polls for new ones every PollInterval until ctx is done, when it
// returns nil. While the group does not exist it calls waiting once (when
// not nil) and keeps looking. An error of emit or of CloudWatch Logs ends
// it.
func (r *Reader) Follow(ctx context.Context, start time.Time, emit func(Event) error, waiting func()) error {
	interval, lag := r.PollInterval, r.Lag
	if interval <= 0 {
		interval = 2 * time.Second
	}
	if lag <= 0 {
		lag = 10 * time.Second
	}
	seen := map[string]time.Time{} // IDs of the events printed within lag of newest
	var newest time.Time
	from := start
	announced := false
	for {
		evs, err := r.Fetch(ctx, from, time.Time{})
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, ErrNoLogGroup):
			if !announced && waiting != nil {
				waiting()
			}
			announced = true
		case err != nil:
			return err
		}
		for _, e := range evs {
			if _, ok := seen[e.ID]; ok {
				continue
			}
			if err := emit(e); err != nil {
				return err
			}
			seen[e.ID] = e.Time
			if e.Time.After(newest) {
				newest = e.Time
			}
		}
		if !newest.IsZero() {
			if f := newest.Add(-lag); f.After(start) {
				from = f
			}
			for id, t := range seen {
				if t.Before(from) {
					delete(seen, id)
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// ParseSince reads --since: a Go duration before now (10m, 1h30m) or an
// RFC 3339 time (2026-11-23T16:00:00Z).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			d = -d
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration before now such as 10m or 2h, or an RFC 3339 time such as 2026-11-23T16:00:00Z", s)
}
