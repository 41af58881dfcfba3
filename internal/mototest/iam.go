package mototest

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// CreateRole creates an IAM role in moto (its Lambda accepts a function
// only with an existing role) through IAM's query protocol, which needs no
// SDK module of its own. The request names its service in an
// Authorization header, as moto's server routes by it; moto does not check
// the signature.
func (s *Server) CreateRole(name, assumeRolePolicy string) error {
	form := url.Values{"Action": {"CreateRole"}, "Version": {"2010-05-08"}, "RoleName": {name}, "AssumeRolePolicyDocument": {assumeRolePolicy}}
	req, err := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAMOTOTEST/20260101/"+Region+"/iam/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("create role %s in moto: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("create role %s in moto: %s: %s", name, resp.Status, b)
	}
	return nil
}
