package framework

// CORSConfig is the CORS configuration of a route. The zero AllowOrigin
// means "*". API Gateway answers the OPTIONS preflight of a CORS route, and
// every answer of the route, the function's and API Gateway's own, carries
// the CORS headers (see ManifestCORS.Headers).
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

// DefaultCORSHeaders are the request headers every CORS route allows.
var DefaultCORSHeaders = []string{"Authorization", "Content-Type", "X-Amz-Date", "X-Amz-Security-Token", "X-Api-Key"}

// manifest returns c with every default filled in, or nil when c is nil.
func (c *CORSConfig) manifest() *ManifestCORS {
	if c == nil {
		return nil
	}
	m := &ManifestCORS{
		AllowOrigin:      c.AllowOrigin,
		AllowHeaders:     corsAllowHeaders(c.AllowHeaders),
		ExposeHeaders:    append([]string(nil), c.ExposeHeaders...),
		MaxAge:           c.MaxAge,
		AllowCredentials: c.AllowCredentials,
	}
	m.AllowOrigin = m.origin()
	return m
}
