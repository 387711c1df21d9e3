package crdschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Field returns the schema of a field of one of toolgate's CRDs ("mcpservers",
// "toolpins", "toolpolicies"), by a dotted path from the object's root such
// as "status.risk.findings"; "[]" after a name steps into an array's items.
func Field(tb testing.TB, crd, path string) *apiextensionsv1.JSONSchemaProps {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases", "toolgate.dev_"+crd+".yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &def); err != nil {
		tb.Fatalf("%s: %v", crd, err)
	}
	node := def.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, step := range strings.Split(path, ".") {
		name, items := strings.CutSuffix(step, "[]")
		next, ok := node.Properties[name]
		if !ok {
			tb.Fatalf("%s has no field %s (in %s)", crd, name, path)
		}
		node = &next
		if items {
			if node.Items == nil || node.Items.Schema == nil {
				tb.Fatalf("%s %s is not an array", crd, name)
			}
			node = node.Items.Schema
		}
	}
	return node
}

// Validate checks value, marshalled to JSON, against the schema of a field
// as the API server would, and returns what it refuses.
func Validate(tb testing.TB, crd, path string, value any) field.ErrorList {
	tb.Helper()
	return Validator(tb, crd, path)(value)
}

// Validator is Validate for many values of one field: it reads the schema
// once.
func Validator(tb testing.TB, crd, path string) func(value any) field.ErrorList {
	tb.Helper()
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(Field(tb, crd, path), &internal, nil); err != nil {
		tb.Fatal(err)
	}
	validator, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		tb.Fatal(err)
	}
	return func(value any) field.ErrorList {
		raw, err := json.Marshal(value)
		if err != nil {
			return field.ErrorList{field.InternalError(field.NewPath(path), err)}
		}
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return field.ErrorList{field.InternalError(field.NewPath(path), err)}
		}
		return validation.ValidateCustomResource(field.NewPath(path), generic, validator)
	}
}
