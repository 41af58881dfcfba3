package config_test

import (
	"fmt"

	"github.com/framework-dev/framework/internal/config"
)

// A stage inherits the top-level settings and overrides some of them; maps
// merge, the stage winning.
func ExampleFile_Stage() {
	f, err := config.Parse(".framework/config.json", []byte(`{
  "version": "1.0",
  "app_name": "hello",
  "environment_variables": {"LOG_LEVEL": "info", "MODE": "dev"},
  "stages": {
    "prod": {"lambda_memory_size": 512, "environment_variables": {"MODE": "prod"}}
  }
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	prod, _ := f.Stage("prod")
	fmt.Println(prod.LambdaMemorySize, prod.LambdaTimeout, prod.Architecture, prod.APIGatewayStage, prod.Environ())
	// Output: 512 60 arm64 prod [LOG_LEVEL=info MODE=prod]
}

// Problems name the file and the key path.
func ExampleParse_error() {
	_, err := config.Parse(".framework/config.json", []byte(`{"stages": {"prod": {"lambda_memory_size": 20000}}}`))
	fmt.Println(err)
	// Output: .framework/config.json: stages.prod.lambda_memory_size: 20000 is out of range: Lambda allows 128 to 10240 MB
}
