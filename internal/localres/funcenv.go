package localres

import (
	"net/url"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
)

// Uses returns, by function (policy.APIFunction for the API's), the
// declared resources of m each function may use: those whose
// FRAMEWORK_RES_* variables its deployed function gets
// (perms.FunctionPolicy.Resources, which the construct reads too). They
// follow from the declarations alone, so the code need not be scanned.
func Uses(m *manifest.Manifest) map[string][]string {
	// Without calls, Compute finds no call beyond a declaration: its
	// error is always nil here.
	p, _ := perms.Compute(perms.Input{Manifest: m})
	out := map[string][]string{}
	for _, f := range p.Functions {
		out[f.Function] = f.Resources
	}
	return out
}

// FunctionEnv is what the process of a function that may use the
// declared resources uses (Uses) gets of r, as its deployed function
// gets it: the FRAMEWORK_RES_* variables of those resources, and of no
// other. With proxy, the URL of the local IAM check (see
// internal/localiam), the function reaches AWS through it only: of Env's
// AWS settings, only AWS_REGION is kept (the proxy's environment gives the
// endpoint and the credentials), and an attribute that is a URL of the
// emulator (a queue's URL, which SQS clients may send to) names the proxy
// instead, the same path (/ACCOUNT/NAME) after it, so that no variable
// holds an address that walks around the check. Against a deployed
// stage, the URLs are AWS's own, which the proxy's credentials do not
// open, and stay. Without proxy, the rest of Env is kept as it is.
func (r *Resources) FunctionEnv(uses []string, proxy string) []string {
	if r == nil {
		return nil
	}
	own := map[string]bool{}
	for _, name := range uses {
		for attr := range r.Attrs[name] {
			own[manifest.ResourceEnv(name, attr)] = true
		}
	}
	atEmulator := r.Client != nil && r.Client.endpoint != ""
	var out []string
	for _, kv := range r.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "FRAMEWORK_RES_"):
			if !own[k] {
				continue
			}
			if proxy != "" && atEmulator {
				v = atProxy(v, proxy)
			}
			out = append(out, k+"="+v)
		case proxy == "" || k == "AWS_REGION":
			out = append(out, kv)
		}
	}
	return out
}

// atProxy returns v, when it is an http(s) URL, with the scheme and host
// of proxy; any other value as it is.
func atProxy(v, proxy string) string {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return v
	}
	p, err := url.Parse(proxy)
	if err != nil {
		return v
	}
	u.Scheme, u.Host, u.User = p.Scheme, p.Host, nil
	return u.String()
}

// ProxyEndpoints are the environment entries that point every AWS
// endpoint variable env sets (AWS_ENDPOINT_URL_<SERVICE>, which an SDK
// prefers to AWS_ENDPOINT_URL) at proxy, the local IAM check's URL, and
// turn off AWS_IGNORE_CONFIGURED_ENDPOINT_URLS, which would send the calls
// past it; and FRAMEWORK_LOCAL_RESOURCES (names.EnvLocalResources), which
// says where the resources behind the proxy are without naming an
// address: "emulator" when endpoint, the emulator's URL, is set, else
// "stage".
func ProxyEndpoints(env []string, proxy, endpoint string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AWS_ENDPOINT_URL_") && !slices.Contains(out, k+"="+proxy) {
			out = append(out, k+"="+proxy)
		}
	}
	where := names.LocalResourcesStage
	if endpoint != "" {
		where = names.LocalResourcesEmulator
	}
	return append(out, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=", names.EnvLocalResources+"="+where)
}
