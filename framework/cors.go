package framework

import "github.com/framework-dev/framework/internal/manifest"

// CORSConfig is the CORS configuration of a route. The zero AllowOrigin
// means "*". API Gateway answers the OPTIONS preflight of a CORS route, and
// every answer of the route, the function's and API Gateway's own, carries
// the CORS headers (see manifest.CORS.Headers).
type CORSConfig struct {
	// AllowOrigin is the single origin sent in Access-Control-Allow-Origin.
	AllowOrigin string
	// AllowHeaders are added to the default allowed headers.
	AllowHeaders []string
	// ExposeHeaders are sent in Access-Control-Expose-Headers.
	ExposeHeaders []string
	// MaxAge, when positive, is sent in Access-Control-Max-Age (seconds).
	MaxAge int
	// AllowCredentials sends Access-Control-Allow-Credentials: true.
	AllowCredentials bool
}

// manifest returns c with every default filled in, or nil when c is nil.
func (c *CORSConfig) manifest() *manifest.CORS {
	if c == nil {
		return nil
	}
	return (&manifest.CORS{
		AllowOrigin:      c.AllowOrigin,
		AllowHeaders:     c.AllowHeaders,
		ExposeHeaders:    c.ExposeHeaders,
		MaxAge:           c.MaxAge,
		AllowCredentials: c.AllowCredentials,
	}).WithDefaults()
}
