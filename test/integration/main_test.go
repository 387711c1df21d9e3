package integration

import (
	"context"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, func(e *testenv.Env) (func(), error) {
		env = e
		return nil, nil
	}))
}

// testContext returns a context that ends with the test or after a minute.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// deleteOnCleanup deletes obj when the test ends. It uses its own context:
// the test's context is already cancelled when cleanups run.
func deleteOnCleanup(t *testing.T, obj client.Object) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := env.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleaning up %s: %v", client.ObjectKeyFromObject(obj), err)
		}
	})
}

// fromYAML turns a manifest into an unstructured object, so that test cases
// read like what a user would apply.
func fromYAML(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatalf("test manifest is not YAML: %v\n%s", err, manifest)
	}
	return &unstructured.Unstructured{Object: obj}
}
