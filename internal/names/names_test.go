package names

import "testing"

func TestLooksLikeProduction(t *testing.T) {
	for stage, want := range map[string]bool{
		"prod": true, "Prod": true, "production": true, "prd": true, "live": true, "prod-eu": true, "api-live": true, "eu-prod-2": true,
		"dev": false, "staging": false, "product": false, "liveness": false, "preprod": false, "test": false, "": false, "prod_eu": false,
	} {
		if got := LooksLikeProduction(stage); got != want {
			t.Errorf("LooksLikeProduction(%q) = %v, want %v", stage, got, want)
		}
	}
}
