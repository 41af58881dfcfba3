package deploy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// RecordDir returns the directory of the deploy records under a CLI cache
// directory (FRAMEWORK_CACHE_DIR, else <user cache dir>/framework when
// cacheDir is empty).
//
// The records live on the machine, not in the project nor in the account:
// a record says what this machine last deployed to each function of a
// stack, so that a function whose code differs from it was changed by
// someone else (a teammate's deploy or hotswap, the console, another
// tool). Losing a record is safe: the next hotswap deploys fully once and
// writes it again.
func RecordDir(cacheDir string) (string, error) {
	if cacheDir != "" {
		return filepath.Join(cacheDir, "deployed"), nil
	}
	ucd, err := os.UserCacheDir()
	if err != nil || ucd == "" {
		return "", fmt.Errorf("find a directory for the deploy records (set FRAMEWORK_CACHE_DIR): %w", err)
	}
	return filepath.Join(ucd, "framework", "deployed"), nil
}

// Record is what this machine last deployed to a stack's functions.
type Record struct {
	// Stack is the stack's name, Account and Region where it is.
	Stack   string `json:"stack"`
	Account string `json:"account"`
	Region  string `json:"region"`
	// Functions is the code last deployed to each function, by logical id.
	Functions map[string]DeployedCode `json:"functions"`
	// Updated is when the record was written.
	Updated time.Time `json:"updated"`
}

// recordPath is the record file of a stack in an account and region.
func recordPath(dir string, env Env, stack string) string {
	return filepath.Join(dir, env.Account+"-"+env.Region+"-"+stack+".json")
}

// LoadRecord reads the record of the stack in env from dir; a missing
// record is nil and no error.
func LoadRecord(dir string, env Env, stack string) (*Record, error) {
	path := recordPath(dir, env, stack)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the deploy record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read the deploy record %s (delete it; the next hotswap deploys fully and writes it again): %w", path, err)
	}
	return &r, nil
}

// SaveRecord writes the record of the stack in env to dir, atomically.
func SaveRecord(dir string, env Env, stack string, fns map[string]DeployedCode) error {
	r := Record{Stack: stack, Account: env.Account, Region: env.Region, Functions: fns, Updated: time.Now().UTC()}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write the deploy record: %w", err)
	}
	path := recordPath(dir, env, stack)
	tmp, err := os.CreateTemp(dir, ".record-*.json")
	if err != nil {
		return fmt.Errorf("write the deploy record: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write the deploy record %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the deploy record %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the deploy record %s: %w", path, err)
	}
	return nil
}
