package framework

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// CORSConfig is the CORS configuration of a route (spec 2.6). The zero
// AllowOrigin means "*".
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

func (c *CORSConfig) origin() string {
	if c.AllowOrigin == "" {
		return "*"
	}
	return c.AllowOrigin
}

func (c *CORSConfig) validate() error {
	o := strings.TrimSpace(c.origin())
	if strings.ContainsAny(o, " ,") {
		return errors.New("CORS AllowOrigin " + strconv.Quote(c.AllowOrigin) + " lists several origins: it must be a single origin (a list does not work in every browser); answer OPTIONS yourself to pick one per request")
	}
	if c.MaxAge < 0 {
		return errors.New("CORS MaxAge is negative")
	}
	return nil
}

// allowHeaders is the sorted union of the defaults and the route's own headers.
func (c *CORSConfig) allowHeaders() []string {
	set := map[string]bool{}
	for _, h := range DefaultCORSHeaders {
		set[h] = true
	}
	for _, h := range c.AllowHeaders {
		set[h] = true
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

func (c *CORSConfig) equal(o *CORSConfig) bool {
	if c == nil || o == nil {
		return c == nil && o == nil
	}
	return c.origin() == o.origin() && c.MaxAge == o.MaxAge && c.AllowCredentials == o.AllowCredentials &&
		strings.Join(c.allowHeaders(), ",") == strings.Join(o.allowHeaders(), ",") &&
		strings.Join(c.ExposeHeaders, ",") == strings.Join(o.ExposeHeaders, ",")
}

// responseHeaders are the headers every response of a CORS route carries.
func (c *CORSConfig) responseHeaders() []headerField {
	h := []headerField{
		{"Access-Control-Allow-Origin", c.origin()},
		{"Access-Control-Allow-Headers", strings.Join(c.allowHeaders(), ",")},
	}
	if len(c.ExposeHeaders) > 0 {
		h = append(h, headerField{"Access-Control-Expose-Headers", strings.Join(c.ExposeHeaders, ",")})
	}
	if c.MaxAge > 0 {
		h = append(h, headerField{"Access-Control-Max-Age", strconv.Itoa(c.MaxAge)})
	}
	if c.AllowCredentials {
		h = append(h, headerField{"Access-Control-Allow-Credentials", "true"})
	}
	return h
}

func (c *CORSConfig) manifest() *ManifestCORS {
	if c == nil {
		return nil
	}
	return &ManifestCORS{
		AllowOrigin:      c.origin(),
		AllowHeaders:     c.allowHeaders(),
		ExposeHeaders:    append([]string(nil), c.ExposeHeaders...),
		MaxAge:           c.MaxAge,
		AllowCredentials: c.AllowCredentials,
	}
}
