package deploy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Artifact types of a cloud assembly's manifest.json that the engine reads.
const (
	artifactStack         = "aws:cloudformation:stack"
	artifactAssetManifest = "cdk:asset-manifest"
)

// Assembly is what the engine needs of one stack of a cloud assembly: its
// template, its deployment properties and its file assets. It is read from
// the standard files (manifest.json, <stack>.assets.json, the template) as
// plain JSON.
type Assembly struct {
	// Dir is the cloud assembly directory.
	Dir string
	// StackName is the CloudFormation stack name.
	StackName string
	// TemplatePath is the template file; Template its bytes.
	TemplatePath string
	Template     []byte
	// TemplateObjectURL is the manifest's stackTemplateAssetObjectUrl
	// (s3://bucket/key with placeholders), or "".
	TemplateObjectURL string
	// Tags are the stack tags the manifest declares.
	Tags map[string]string
	// TerminationProtection is the manifest's terminationProtection.
	TerminationProtection bool
	// Files are the file assets of the stack's asset manifests, sorted by id.
	Files []FileAsset
}

// FileAsset is one file asset and where it goes.
type FileAsset struct {
	// ID is the asset's id in the asset manifest (its source hash).
	ID string
	// DisplayName is the asset's display name, or its id.
	DisplayName string
	// Path is the absolute path of the source; Packaging is "file" (the
	// file as is) or "zip" (the directory zipped).
	Path, Packaging string
	// Destinations are the S3 locations, placeholders not yet resolved.
	Destinations []Destination
}

// Destination is an S3 location of an asset manifest, possibly holding
// ${AWS::AccountId}, ${AWS::Region} and ${AWS::Partition}.
type Destination struct {
	Bucket, Key, Region string
}

type manifestJSON struct {
	Version   string                  `json:"version"`
	Artifacts map[string]artifactJSON `json:"artifacts"`
}

type artifactJSON struct {
	Type         string          `json:"type"`
	Properties   json.RawMessage `json:"properties"`
	Dependencies []string        `json:"dependencies"`
	DisplayName  string          `json:"displayName"`
}

type stackPropsJSON struct {
	TemplateFile                string            `json:"templateFile"`
	StackName                   string            `json:"stackName"`
	StackTemplateAssetObjectURL string            `json:"stackTemplateAssetObjectUrl"`
	Tags                        map[string]string `json:"tags"`
	TerminationProtection       bool              `json:"terminationProtection"`
	AdditionalDependencies      []string          `json:"additionalDependencies"`
}

type assetManifestPropsJSON struct {
	File string `json:"file"`
}

type assetsJSON struct {
	Version string                   `json:"version"`
	Files   map[string]fileAssetJSON `json:"files"`
}

type fileAssetJSON struct {
	DisplayName string `json:"displayName"`
	Source      struct {
		Path       string   `json:"path"`
		Packaging  string   `json:"packaging"`
		Executable []string `json:"executable"`
	} `json:"source"`
	Destinations map[string]struct {
		BucketName string `json:"bucketName"`
		ObjectKey  string `json:"objectKey"`
		Region     string `json:"region"`
	} `json:"destinations"`
}

// ReadAssembly reads the stack named stackName from the cloud assembly in
// dir. An empty stackName is accepted when the assembly holds one stack.
func ReadAssembly(dir, stackName string) (*Assembly, error) {
	mpath := filepath.Join(dir, "manifest.json")
	var m manifestJSON
	if err := readJSON(mpath, &m); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no cloud assembly in %s (manifest.json missing): run `framework synth` first: %w", dir, err)
		}
		return nil, err
	}
	var ids []string
	for id, a := range m.Artifacts {
		if a.Type == artifactStack {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var id string
	var props stackPropsJSON
	for _, cand := range ids {
		var p stackPropsJSON
		if err := json.Unmarshal(m.Artifacts[cand].Properties, &p); err != nil {
			return nil, fmt.Errorf("%s: artifact %q: properties: %w", mpath, cand, err)
		}
		name := p.StackName
		if name == "" {
			name = cand
		}
		if stackName == "" || name == stackName {
			if id != "" {
				return nil, fmt.Errorf("%s: several stacks (%s); name the one to deploy", mpath, strings.Join(ids, ", "))
			}
			id, props = cand, p
			props.StackName = name
		}
	}
	if id == "" {
		if stackName == "" {
			return nil, fmt.Errorf("%s: no CloudFormation stack in the cloud assembly", mpath)
		}
		return nil, fmt.Errorf("%s: no stack %q in the cloud assembly (stacks: %s)", mpath, stackName, strings.Join(ids, ", "))
	}
	if props.TemplateFile == "" {
		return nil, fmt.Errorf("%s: stack %q has no templateFile", mpath, id)
	}
	a := &Assembly{
		Dir:                   dir,
		StackName:             props.StackName,
		TemplatePath:          filepath.Join(dir, props.TemplateFile),
		TemplateObjectURL:     props.StackTemplateAssetObjectURL,
		Tags:                  props.Tags,
		TerminationProtection: props.TerminationProtection,
	}
	tpl, err := os.ReadFile(a.TemplatePath)
	if err != nil {
		return nil, fmt.Errorf("read template of stack %s: %w", a.StackName, err)
	}
	if !json.Valid(tpl) {
		return nil, fmt.Errorf("template %s of stack %s is not valid JSON", a.TemplatePath, a.StackName)
	}
	a.Template = tpl

	// The stack's asset manifests are the asset-manifest artifacts it depends on.
	deps := append(append([]string{}, m.Artifacts[id].Dependencies...), props.AdditionalDependencies...)
	seen := map[string]bool{}
	for _, dep := range deps {
		art, ok := m.Artifacts[dep]
		if !ok || art.Type != artifactAssetManifest || seen[dep] {
			continue
		}
		seen[dep] = true
		var ap assetManifestPropsJSON
		if err := json.Unmarshal(art.Properties, &ap); err != nil || ap.File == "" {
			return nil, fmt.Errorf("%s: asset manifest artifact %q has no file", mpath, dep)
		}
		files, err := readAssets(dir, filepath.Join(dir, ap.File))
		if err != nil {
			return nil, err
		}
		a.Files = append(a.Files, files...)
	}
	slices.SortFunc(a.Files, func(x, y FileAsset) int { return strings.Compare(x.ID, y.ID) })
	return a, nil
}

func readAssets(dir, path string) ([]FileAsset, error) {
	var am assetsJSON
	if err := readJSON(path, &am); err != nil {
		return nil, err
	}
	var out []FileAsset
	for id, f := range am.Files {
		if f.Source.Path == "" {
			if len(f.Source.Executable) > 0 {
				return nil, fmt.Errorf("%s: asset %s is built by a command (%s); only file assets are supported", path, id, strings.Join(f.Source.Executable, " "))
			}
			return nil, fmt.Errorf("%s: asset %s has no source path", path, id)
		}
		pkg := strings.ToLower(f.Source.Packaging)
		if pkg == "" {
			pkg = "file"
		}
		if pkg != "file" && pkg != "zip" {
			return nil, fmt.Errorf("%s: asset %s: unknown packaging %q (want file or zip)", path, id, f.Source.Packaging)
		}
		fa := FileAsset{ID: id, DisplayName: f.DisplayName, Path: filepath.Join(dir, f.Source.Path), Packaging: pkg}
		if fa.DisplayName == "" {
			fa.DisplayName = id
		}
		for _, k := range slices.Sorted(maps.Keys(f.Destinations)) {
			d := f.Destinations[k]
			if d.BucketName == "" || d.ObjectKey == "" {
				return nil, fmt.Errorf("%s: asset %s destination %s lacks bucketName or objectKey", path, id, k)
			}
			fa.Destinations = append(fa.Destinations, Destination{Bucket: d.BucketName, Key: d.ObjectKey, Region: d.Region})
		}
		out = append(out, fa)
	}
	return out, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

// Env is the account, region and partition asset manifest placeholders
// resolve to.
type Env struct {
	Account, Region, Partition string
}

// Resolve replaces ${AWS::AccountId}, ${AWS::Region} and ${AWS::Partition} in s.
func (e Env) Resolve(s string) string {
	return strings.NewReplacer(
		"${AWS::AccountId}", e.Account,
		"${AWS::Region}", e.Region,
		"${AWS::Partition}", e.Partition,
	).Replace(s)
}

// partitionOf returns the AWS partition of a region.
func partitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	case strings.HasPrefix(region, "us-iso-"):
		return "aws-iso"
	case strings.HasPrefix(region, "us-isob-"):
		return "aws-iso-b"
	}
	return "aws"
}
