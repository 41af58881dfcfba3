package config

import (
	"strings"
	"testing"
)

// A first deploy of a stage the file does not declare: a name one slip
// from a declared stage is refused as the likely typo it is, naming the
// stage meant and how to declare a new one; another name passes with a
// note that it gets the top-level settings; a declared stage passes
// silently.
func TestCheckNewStage(t *testing.T) {
	f, err := Parse(path, []byte(`{"version": "1.0", "app_name": "shop", "stages": {"dev": {}, "prod": {"lambda_memory_size": 512}, "staging-eu": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ stage, meant string }{
		{"prdo", "prod"}, {"prd", "prod"}, {"prodd", "prod"}, {"Prod", "prod"}, {"dve", "dev"},
		{"dev1", "dev"}, {"staging-ue", "staging-eu"}, {"staging-us", ""}, {"stagin-eu", "staging-eu"}, {"staging-eu2", "staging-eu"},
		{"pr-12", ""}, {"preview", ""}, {"qa", ""}, {"de", "dev"}, {"d", ""},
	} {
		note, err := f.CheckNewStage(tc.stage)
		switch {
		case tc.meant != "":
			want := `stage "` + tc.stage + `" is not declared in ` + path + ` (it declares dev, prod, staging-eu): did you mean "` + tc.meant + `"? To create a new stage "` + tc.stage + `", declare it there ("stages": {"` + tc.stage + `": {}}) and deploy again`
			if err == nil || err.Error() != want || note != "" {
				t.Errorf("CheckNewStage(%q) = %q, %v; want the error %q", tc.stage, note, err, want)
			}
		default:
			want := "Stage " + tc.stage + " is not declared in " + path + " (it declares dev, prod, staging-eu): it is created with the top-level settings; declare it under \"stages\" to give it settings of its own."
			if err != nil || note != want {
				t.Errorf("CheckNewStage(%q) = %q, %v; want the note %q", tc.stage, note, err, want)
			}
		}
	}
	for _, s := range []string{"dev", "prod", "staging-eu"} {
		if note, err := f.CheckNewStage(s); note != "" || err != nil {
			t.Errorf("CheckNewStage(%q) of a declared stage = %q, %v", s, note, err)
		}
	}
	bare, err := Parse(path, []byte(`{"version": "1.0", "app_name": "shop"}`))
	if err != nil {
		t.Fatal(err)
	}
	if note, err := bare.CheckNewStage("dev"); err != nil || !strings.Contains(note, "(it declares no stages)") {
		t.Errorf("CheckNewStage with no stages = %q, %v", note, err)
	}
}

// Meant names the declared stage an undeclared one is a slip from.
func TestMeant(t *testing.T) {
	f, err := Parse(path, []byte(`{"version": "1.0", "app_name": "shop", "stages": {"dev": {}, "prod": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for stage, want := range map[string]string{"prdo": "prod", "dve": "dev", "prod": "", "dev": "", "qa": "", "production": ""} {
		if got := f.Meant(stage); got != want {
			t.Errorf("Meant(%q) = %q, want %q", stage, got, want)
		}
	}
}
