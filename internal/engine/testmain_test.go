package engine

import (
	"testing"

	"github.com/framework-dev/framework/internal/jsiitest"
)

func TestMain(m *testing.M) { jsiitest.Main(m) }
