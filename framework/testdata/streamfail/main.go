// Command streamfail is the app of the stream failure tests
// (stream_failure_test.go): streaming routes that record a metric in
// their body, then end well, return an error or panic after their first
// byte.
package main

import (
	"errors"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("streamfail")
	stream := func(name string, end func() error) {
		app.Route("/"+name, func(r *framework.Request) (*framework.Response, error) {
			return framework.Stream("text/plain", func(w *framework.StreamWriter) error {
				if _, err := w.WriteString("part"); err != nil {
					return err
				}
				framework.Metrics(w.Request().Context()).Count("Streamed_" + name)
				return end()
			}), nil
		}, framework.Name(name), framework.Streaming())
	}
	stream("ok", func() error { return nil })
	stream("broke", func() error { return errors.New("the database went away") })
	stream("panics", func() error { panic("index out of range") })
	app.Run()
}
