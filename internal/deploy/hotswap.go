package deploy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/framework-dev/framework/internal/diff"
	"github.com/framework-dev/framework/internal/wording"
)

// lambdaFunctionType is the CloudFormation type of a Lambda function.
const lambdaFunctionType = "AWS::Lambda::Function"

// FunctionCode is the code of one Lambda function of a synthesized
// template: where the template says it is and its hash as Lambda reports
// it.
type FunctionCode struct {
	// LogicalID is the function's logical id in the template.
	LogicalID string
	// Bucket and Key are the S3 object of the package, resolved.
	Bucket, Key string
	// CodeSHA256 is the package's SHA-256 in base64, as Lambda's
	// CodeSha256 reports it.
	CodeSHA256 string
	// Asset is the file asset that publishes the package.
	Asset FileAsset
}

// HotswapError is returned by Hotswap when the plan cannot be carried out
// by updating function code alone; nothing has been changed, and a full
// deploy is what to do instead. Reason says why, for one line.
type HotswapError struct {
	Reason string
}

func (e *HotswapError) Error() string { return "hotswap not possible: " + e.Reason }

// ErrCodeChanged is wrapped by Hotswap's error when a function no longer
// runs the code last deployed to it from this machine: someone else
// changed it, and a hotswap would silently overwrite their change.
var ErrCodeChanged = errors.New("function code changed since the last deploy from here")

// DeployedCode is what this machine last deployed to one function: the
// record a hotswap checks the function against.
type DeployedCode struct {
	// CodeSHA256 is the code's SHA-256 in base64, as Lambda reports it.
	CodeSHA256 string `json:"code_sha256"`
	// Hotswapped is true when the code was put there by a hotswap, so that
	// the stack's template does not say so; a full deploy reconciles it.
	Hotswapped bool `json:"hotswapped,omitempty"`
}

// HotswapOptions are the choices of Hotswap beyond the plan.
type HotswapOptions struct {
	// Deployed is the code last deployed from this machine to each
	// function of the stack, by logical id. A function missing from it
	// makes Hotswap return a HotswapError: nothing tells what it should
	// be running.
	Deployed map[string]DeployedCode
	// Force updates functions whose code someone else changed, instead of
	// returning ErrCodeChanged.
	Force bool
}

// UpdatedFunction is one function a hotswap updated.
type UpdatedFunction struct {
	LogicalID, FunctionName string
	// Elapsed is the time from UpdateFunctionCode to the update done.
	Elapsed time.Duration
}

// HotswapResult describes a finished hotswap.
type HotswapResult struct {
	// Updated are the functions whose code was updated, by logical id.
	Updated []UpdatedFunction
	// Unchanged counts the functions already running the new code.
	Unchanged int
	// Elapsed is the hotswap's time, from the plan to the last update done.
	Elapsed time.Duration
	// Deployed is the record to keep for the next hotswap.
	Deployed map[string]DeployedCode
}

// Hotswappable decides from the plan whether a hotswap can carry it out:
// the stack is deployed and its template differs from the synthesized one
// only in the Code of AWS::Lambda::Function resources, each a file asset
// of the assembly. It returns the code of every function of the
// synthesized template (changed or not, since a function may run code its
// template does not show after an earlier hotswap), or the reason, for
// one line, why a full deploy is needed.
func Hotswappable(p *Plan) ([]FunctionCode, string) {
	switch p.Action {
	case Create:
		return nil, fmt.Sprintf("stack %s is not deployed yet", p.Assembly.StackName)
	case Recreate:
		return nil, fmt.Sprintf("stack %s must be created again (%s)", p.Assembly.StackName, p.Reason)
	case Refuse:
		return nil, p.Reason
	}
	if len(p.PolicyAdded) > 0 || len(p.PolicyRemoved) > 0 {
		return nil, "an IAM change: the function's role " + policyWords(p.PolicyAdded, p.PolicyRemoved)
	}
	if len(p.PermissionChanges) > 0 {
		return nil, "an IAM change (" + p.PermissionChanges[0] + ")"
	}
	var deployed, synthesized map[string]any
	if err := decodeJSON(p.DeployedTemplate, &deployed); err != nil {
		return nil, "the deployed template cannot be read: " + err.Error()
	}
	if err := decodeJSON(p.Assembly.Template, &synthesized); err != nil {
		return nil, "the synthesized template cannot be read: " + err.Error()
	}
	// The synthesized template with every function's Code as deployed
	// must be the deployed template.
	same := maps.Clone(synthesized)
	oldRes, _ := deployed["Resources"].(map[string]any)
	newRes, _ := synthesized["Resources"].(map[string]any)
	sameRes := map[string]any{}
	var fns []FunctionCode
	for _, id := range slices.Sorted(maps.Keys(newRes)) {
		sameRes[id] = newRes[id]
		def, _ := newRes[id].(map[string]any)
		if def["Type"] != lambdaFunctionType {
			continue
		}
		props, _ := def["Properties"].(map[string]any)
		code, err := functionCode(p, id, props["Code"])
		old, _ := oldRes[id].(map[string]any)
		oldProps, _ := old["Properties"].(map[string]any)
		if err != nil {
			if !reflect.DeepEqual(props["Code"], oldProps["Code"]) {
				return nil, err.Error()
			}
			continue // unchanged code that is not an asset: nothing to swap
		}
		fns = append(fns, code)
		if old == nil || old["Type"] != lambdaFunctionType {
			continue
		}
		c := maps.Clone(def)
		cp := maps.Clone(props)
		if oc, ok := oldProps["Code"]; ok {
			cp["Code"] = oc
		}
		c["Properties"] = cp
		sameRes[id] = c
	}
	same["Resources"] = sameRes
	if !reflect.DeepEqual(same, deployed) {
		return nil, otherChange(p.Report)
	}
	return fns, ""
}

// functionCode returns the code of the function id whose Code property is
// code: it must name an S3 object that a file asset of the assembly
// publishes.
func functionCode(p *Plan, id string, code any) (FunctionCode, error) {
	m, _ := code.(map[string]any)
	key, _ := m["S3Key"].(string)
	if key == "" {
		return FunctionCode{}, fmt.Errorf("the code of function %s is not an S3 object of the assembly", id)
	}
	for _, fa := range p.Assembly.Files {
		for _, d := range fa.Destinations {
			if p.Env.Resolve(d.Key) != key {
				continue
			}
			body, err := assetBytes(fa)
			if err != nil {
				return FunctionCode{}, err
			}
			sum := sha256.Sum256(body)
			return FunctionCode{
				LogicalID: id, Bucket: p.Env.Resolve(d.Bucket), Key: key,
				CodeSHA256: base64.StdEncoding.EncodeToString(sum[:]),
				Asset:      FileAsset{ID: fa.ID, DisplayName: fa.DisplayName, Path: fa.Path, Packaging: fa.Packaging, Destinations: []Destination{d}},
			}, nil
		}
	}
	return FunctionCode{}, fmt.Errorf("the code of function %s (s3 key %s) is not a file asset of the assembly", id, key)
}

// otherChange says, for one line, what the report shows that a hotswap
// cannot carry: a route, an IAM statement, a resource or an output. A
// route's consequences (the REST API's body, its deployment and stage) go
// unsaid.
func otherChange(r *diff.Report) string {
	more := func(n int, what string) string {
		if n > 1 {
			return fmt.Sprintf(" and %d more %s", n-1, what)
		}
		return ""
	}
	if len(r.Routes) > 0 {
		c := r.Routes[0]
		sign := map[string]string{diff.Add: "+", diff.Remove: "-", diff.Modify: "~"}[c.Action]
		return fmt.Sprintf("a route change (%s %s %s)%s", sign, c.Method, c.Path, more(len(r.Routes), "route changes"))
	}
	if len(r.IAM) > 0 {
		verb := map[string]string{diff.Add: "added to", diff.Remove: "removed from"}[r.IAM[0].Action]
		return fmt.Sprintf("an IAM change (a policy statement %s %s)%s", verb, r.IAM[0].Resource, more(len(r.IAM), "statements"))
	}
	for _, c := range r.Resources {
		switch c.Action {
		case diff.Add:
			return fmt.Sprintf("a new resource %s (%s)", c.LogicalID, c.Type)
		case diff.Remove:
			return fmt.Sprintf("resource %s (%s) is removed", c.LogicalID, c.Type)
		}
		var paths []string
		for _, pc := range c.Properties {
			if !codePath(pc.Path) {
				paths = append(paths, pc.Path)
			}
		}
		if len(paths) > 0 {
			what := "a change"
			if c.Type == lambdaFunctionType {
				what = "a configuration change"
			}
			return fmt.Sprintf("%s of %s (%s: %s)", what, c.LogicalID, c.Type, strings.Join(paths, ", "))
		}
	}
	if len(r.Outputs) > 0 {
		return fmt.Sprintf("stack output %s changes", r.Outputs[0].Name)
	}
	return "the template changes outside function code"
}

// codePath reports whether a property path is in a function's Code.
func codePath(path string) bool { return path == "Code" || strings.HasPrefix(path, "Code.") }

func policyWords(added, removed []string) string {
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "gains "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "loses "+strings.Join(removed, ", "))
	}
	return strings.Join(parts, " and ")
}

func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// Hotswap carries out a plan that Hotswappable accepts by updating the
// code of each function that does not run its new package yet directly
// through the Lambda API, skipping CloudFormation: it publishes the
// packages, calls UpdateFunctionCode with each package's S3 object and
// waits until Lambda reports each update done (LastUpdateStatus). The
// stack's template then no longer says what its functions run; the next
// full deploy reconciles it (see Reconcile).
//
// Before changing anything it checks each function against o.Deployed:
// a function missing from it returns a HotswapError (a full deploy
// records it), and one whose code someone else changed since returns an
// error wrapping ErrCodeChanged unless o.Force.
func (e *Engine) Hotswap(ctx context.Context, p *Plan, o HotswapOptions) (*HotswapResult, error) {
	start := time.Now()
	fns, reason := Hotswappable(p)
	if reason != "" {
		return nil, &HotswapError{Reason: reason}
	}
	phys, err := e.FunctionNames(ctx, p.Stack.ID)
	if err != nil {
		return nil, err
	}
	res := &HotswapResult{Deployed: map[string]DeployedCode{}}
	type work struct {
		FunctionCode
		name string
	}
	var todo []work
	for _, fc := range fns {
		name := phys[fc.LogicalID]
		if name == "" {
			return nil, &HotswapError{Reason: fmt.Sprintf("function %s is not a resource of stack %s", fc.LogicalID, p.Stack.Name)}
		}
		cfg, err := e.Lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		if err != nil {
			return nil, fmt.Errorf("read function %s (%s): %w", fc.LogicalID, name, err)
		}
		actual := aws.ToString(cfg.CodeSha256)
		rec, known := o.Deployed[fc.LogicalID]
		switch {
		case actual == fc.CodeSHA256:
			res.Unchanged++
			res.Deployed[fc.LogicalID] = DeployedCode{CodeSHA256: actual, Hotswapped: rec.Hotswapped && known}
			continue
		case o.Force:
		case !known:
			return nil, &HotswapError{Reason: fmt.Sprintf("this machine has no record of the code it last deployed to function %s (%s)", fc.LogicalID, name)}
		case actual != rec.CodeSHA256:
			return nil, fmt.Errorf("function %s (%s) runs code with SHA-256 %s, not the %s last deployed from this machine: someone else changed it; run a full %s to deploy your version through CloudFormation, or pass --force to hotswap over it: %w", fc.LogicalID, name, actual, rec.CodeSHA256, e.command("deploy"), ErrCodeChanged)
		}
		todo = append(todo, work{fc, name})
	}
	if len(todo) > 0 {
		var assets []FileAsset
		for _, w := range todo {
			if !slices.ContainsFunc(assets, func(a FileAsset) bool { return a.ID == w.Asset.ID && a.Destinations[0] == w.Asset.Destinations[0] }) {
				assets = append(assets, w.Asset)
			}
		}
		if _, err := e.PublishAssets(ctx, assets, p.Env); err != nil {
			return nil, err
		}
		e.printf("Hotswapping %d %s of stack %s through the Lambda API (CloudFormation skipped)...\n", len(todo), wording.Plural(len(todo), "function", "functions"), p.Stack.Name)
		updated := make([]UpdatedFunction, len(todo))
		errs := make([]error, len(todo))
		var wg sync.WaitGroup
		for i, w := range todo {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.Now()
				errs[i] = e.updateCode(ctx, w.LogicalID, w.name, w.Bucket, w.Key)
				updated[i] = UpdatedFunction{LogicalID: w.LogicalID, FunctionName: w.name, Elapsed: time.Since(t)}
			}()
		}
		wg.Wait()
		for i, w := range todo {
			if errs[i] != nil {
				continue
			}
			res.Updated = append(res.Updated, updated[i])
			res.Deployed[w.LogicalID] = DeployedCode{CodeSHA256: w.CodeSHA256, Hotswapped: true}
			e.printf("  updated %s (%s) in %s\n", w.LogicalID, w.name, wording.Seconds(updated[i].Elapsed))
		}
		if err := errors.Join(errs...); err != nil {
			return res, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// updateCode points the function name at the package in s3://bucket/key
// and waits until Lambda has finished updating it.
func (e *Engine) updateCode(ctx context.Context, logicalID, name, bucket, key string) error {
	out, err := e.Lambda.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{
		FunctionName: aws.String(name), S3Bucket: aws.String(bucket), S3Key: aws.String(key),
	})
	if err != nil {
		return fmt.Errorf("update the code of function %s (%s): %w", logicalID, name, err)
	}
	status, reason, code := out.LastUpdateStatus, aws.ToString(out.LastUpdateStatusReason), out.LastUpdateStatusReasonCode
	delay := 100 * time.Millisecond
	for status == lambdatypes.LastUpdateStatusInProgress || status == "" {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("stopped waiting for the code update of function %s (%s): Lambda goes on with it; `aws lambda get-function-configuration --function-name %s` shows how it ends: %w", logicalID, name, name, ctx.Err())
		case <-t.C:
		}
		delay = min(delay*2, time.Second)
		cfg, err := e.Lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		if err != nil {
			return fmt.Errorf("wait for the code update of function %s (%s): %w", logicalID, name, err)
		}
		status, reason, code = cfg.LastUpdateStatus, aws.ToString(cfg.LastUpdateStatusReason), cfg.LastUpdateStatusReasonCode
	}
	if status == lambdatypes.LastUpdateStatusFailed {
		if code != "" {
			reason = string(code) + ": " + reason
		}
		return fmt.Errorf("the code update of function %s (%s) failed: %s", logicalID, name, reason)
	}
	return nil
}

// FunctionNames returns the physical names of the stack's Lambda
// functions by logical id (ListStackResources).
func (e *Engine) FunctionNames(ctx context.Context, stack string) (map[string]string, error) {
	out := map[string]string{}
	pages := cloudformation.NewListStackResourcesPaginator(e.CFN, &cloudformation.ListStackResourcesInput{StackName: aws.String(stack)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list the resources of stack %s: %w", stack, err)
		}
		for _, r := range page.StackResourceSummaries {
			if aws.ToString(r.ResourceType) == lambdaFunctionType {
				out[aws.ToString(r.LogicalResourceId)] = aws.ToString(r.PhysicalResourceId)
			}
		}
	}
	return out, nil
}

// Reconcile runs after a full deploy of the plan: each function that
// deployed records as hotswapped and that does not run the code of its
// template (CloudFormation saw no change to it, so left the hotswapped
// code in place) gets its template's code. It returns the record to keep:
// every function of the template with its template's code.
func (e *Engine) Reconcile(ctx context.Context, p *Plan, deployed map[string]DeployedCode) (map[string]DeployedCode, error) {
	fns, err := TemplateFunctions(p)
	if err != nil {
		return nil, err
	}
	rec := map[string]DeployedCode{}
	var phys map[string]string
	for _, fc := range fns {
		rec[fc.LogicalID] = DeployedCode{CodeSHA256: fc.CodeSHA256}
		if !deployed[fc.LogicalID].Hotswapped {
			continue
		}
		if phys == nil {
			if phys, err = e.FunctionNames(ctx, p.Assembly.StackName); err != nil {
				return nil, err
			}
		}
		name := phys[fc.LogicalID]
		if name == "" {
			continue
		}
		cfg, err := e.Lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
		if err != nil {
			return nil, fmt.Errorf("read function %s (%s): %w", fc.LogicalID, name, err)
		}
		if aws.ToString(cfg.CodeSha256) == fc.CodeSHA256 {
			continue
		}
		if _, err := e.PublishAssets(ctx, []FileAsset{fc.Asset}, p.Env); err != nil {
			return nil, err
		}
		if err := e.updateCode(ctx, fc.LogicalID, name, fc.Bucket, fc.Key); err != nil {
			return nil, err
		}
		e.printf("Reconciled function %s (%s): it ran hotswapped code; it now runs its template's.\n", fc.LogicalID, name)
	}
	return rec, nil
}

// TemplateFunctions returns the code of every Lambda function of the
// plan's synthesized template whose code is a file asset of the assembly.
func TemplateFunctions(p *Plan) ([]FunctionCode, error) {
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal(p.Assembly.Template, &tpl); err != nil {
		return nil, fmt.Errorf("read the template of stack %s: %w", p.Assembly.StackName, err)
	}
	var fns []FunctionCode
	for _, id := range slices.Sorted(maps.Keys(tpl.Resources)) {
		r := tpl.Resources[id]
		if r.Type != lambdaFunctionType {
			continue
		}
		if fc, err := functionCode(p, id, r.Properties["Code"]); err == nil {
			fns = append(fns, fc)
		}
	}
	return fns, nil
}
