package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/framework-dev/framework/internal/diff"
)

// useColor reports whether to color what goes to env's stdout: a
// terminal, and NO_COLOR not set.
func useColor(env *Env) bool {
	return env.StdoutIsTerminal() && env.Getenv("NO_COLOR") == ""
}

// confirmData warns, in red on a terminal, that the deploy replaces or
// deletes resources holding data, and asks whether to go on: yes (--yes)
// answers, and without a terminal to ask on the deploy stops.
func confirmData(ctx context.Context, env *Env, yes bool, risk []diff.DataChange) (bool, error) {
	red, reset := "", ""
	if useColor(env) {
		red, reset = "\x1b[31m", "\x1b[0m"
	}
	var b strings.Builder
	b.WriteString(red + "WARNING: this deploy replaces or deletes resources that hold data:" + reset + "\n")
	for _, c := range risk {
		fmt.Fprintf(&b, "%s  ! %s%s\n", red, c.Line(), reset)
	}
	io.WriteString(env.Stdout, b.String())
	if yes {
		return true, nil
	}
	if !env.StdinIsTerminal() {
		return false, errors.New("the deploy replaces or deletes resources that hold data (see above) and stdin is not a terminal to confirm it: nothing was changed; run deploy on a terminal, or pass --yes to accept the loss")
	}
	return ask(ctx, env, "Replace or delete them and lose what they hold? [y/N]: ", false)
}
