package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// DefaultOperatorNamespace stands for the operator's namespace when
// Options.OperatorNamespace is empty.
const DefaultOperatorNamespace = "toolgate-system"

// manifestNamespace is the placeholder namespace of config/, as
// kustomize's convention has it.
const manifestNamespace = "system"

// installPolicies creates every object of config/policy, with the
// placeholder namespace replaced by ns: what an installation applies.
func (e *Env) installPolicies(ns string) error {
	if ns == "" {
		ns = DefaultOperatorNamespace
	}
	ctx := context.Background()
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	files, err := filepath.Glob(filepath.Join(RepoRoot(), "config", "policy", "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("no manifests in config/policy")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			if u.GetNamespace() == manifestNamespace {
				u.SetNamespace(ns)
			}
			if pns, ok, _ := unstructured.NestedString(u.Object, "spec", "paramRef", "namespace"); ok && pns == manifestNamespace {
				if err := unstructured.SetNestedField(u.Object, ns, "spec", "paramRef", "namespace"); err != nil {
					return err
				}
			}
			if err := e.Client.Create(ctx, u); err != nil {
				return fmt.Errorf("%s: creating %s %s: %w", f, u.GetKind(), u.GetName(), err)
			}
		}
	}
	return nil
}
