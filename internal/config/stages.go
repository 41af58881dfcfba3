package config

import (
	"fmt"
	"strings"
)

// CheckNewStage checks the first deploy of stage name against the stages
// the file declares. A declared stage passes with no note. A stage the file
// does not declare gets the top-level settings: when its name is one slip
// (a letter added, dropped or changed, two letters swapped, or another
// case) away from a declared stage, it is most likely a typo of that
// stage, and CheckNewStage returns an error naming it and saying how to
// declare the new stage instead; otherwise it returns a note saying the
// stage is new and undeclared, for the deploy to print.
func (f *File) CheckNewStage(name string) (note string, err error) {
	if _, ok := f.Stages[name]; ok {
		return "", nil
	}
	declared := f.declared()
	if s := f.Meant(name); s != "" {
		return "", fmt.Errorf("stage %q is not declared in %s (it %s): did you mean %q? To create a new stage %q, declare it there (\"stages\": {%q: {}}) and deploy again", name, f.Path, declared, s, name, name)
	}
	return fmt.Sprintf("Stage %s is not declared in %s (it %s): it is created with the top-level settings; declare it under \"stages\" to give it settings of its own.", name, f.Path, declared), nil
}

// CheckStageTypo refuses stage name when the file does not declare it and
// it is one slip from a stage the file declares (devv for dev), as the
// first deploy does (CheckNewStage), for a command that would otherwise
// use the typo as a stage of its own: framework local, which creates the
// stage's resources in an emulator.
func (f *File) CheckStageTypo(name string) error {
	s := f.Meant(name)
	if s == "" {
		return nil
	}
	return fmt.Errorf("stage %q is not declared in %s (it %s): did you mean %q? To use a new stage %q, declare it there (\"stages\": {%q: {}})", name, f.Path, f.declared(), s, name, name)
}

// declared says which stages the file declares, for messages.
func (f *File) declared() string {
	if names := f.StageNames(); len(names) > 0 {
		return "declares " + strings.Join(names, ", ")
	}
	return "declares no stages"
}

// Meant returns the declared stage that name, a stage the file does not
// declare, is one slip from (see CheckNewStage): the stage a user who
// typed name most likely meant. It returns "" for a declared stage and
// when no declared stage is that near.
func (f *File) Meant(name string) string {
	if _, ok := f.Stages[name]; ok {
		return ""
	}
	for _, s := range f.StageNames() {
		if oneSlip(name, s) {
			return s
		}
	}
	return ""
}

// oneSlip reports whether a and b differ by one typing slip: one letter
// added, dropped or changed, two adjacent letters swapped, or case alone.
func oneSlip(a, b string) bool {
	if a == b {
		return false
	}
	if strings.EqualFold(a, b) {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) < len(b) { // one letter added: the rest must match after it
		return a[i:] == b[i+1:]
	}
	if a[i+1:] == b[i+1:] { // one letter changed
		return true
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // two swapped
}
