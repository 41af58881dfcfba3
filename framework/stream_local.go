package framework

import (
	"net/http"
	"time"
)

// httpSink sends a stream on the local server's connection, flushing each
// write, as a front door that streams passes each chunk on.
type httpSink struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s *httpSink) start(res *result) error {
	h := s.w.Header()
	setResultHeaders(h, res)
	delete(h, "Content-Length") // the length is not known: chunked
	s.w.WriteHeader(res.status)
	return s.rc.Flush()
}

func (s *httpSink) write(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return err
	}
	return s.rc.Flush()
}

// writeStream sends res, a streamed answer, on w: its status and headers,
// then each write of its body as it is made; or, when the body fails
// before its first byte, the error's answer. A body that fails after its
// first byte (an error or a panic) cuts the connection without the
// chunked body's last chunk, as a deployed stream that fails is cut: the
// client sees an incomplete answer (an unexpected EOF), never a complete
// one.
func writeStream(w http.ResponseWriter, res *result) {
	rc := http.NewResponseController(w)
	// A stream lasts as long as its body writes: the server's write
	// timeout would cut it, and its read timeout (the whole request's,
	// still running) would cancel the request's context (deployed, the
	// function's timeout ends it).
	_ = rc.SetWriteDeadline(time.Time{})
	_ = rc.SetReadDeadline(time.Time{})
	instead, err := res.stream.run(&httpSink{w: w, rc: rc}, res)
	if instead != nil {
		writeResult(w, instead)
		return
	}
	if err != nil {
		abortStream(rc)
	}
}

// abortStream closes the connection of a stream that failed after its
// first byte, leaving its chunked body unterminated. A writer that cannot
// give up its connection (a test's recorder) is left as it is.
func abortStream(rc *http.ResponseController) {
	if conn, _, err := rc.Hijack(); err == nil {
		_ = conn.Close()
	}
}
