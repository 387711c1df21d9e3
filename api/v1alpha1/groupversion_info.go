package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the API group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "toolgate.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a
	// runtime.Scheme. It is apimachinery's builder, not controller-runtime's,
	// so that a program that only reads the types (the gate, the CLI) does
	// not link controller-runtime.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers every kind of this package and the list, options
// and status types the API machinery expects of a group version.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&MCPServer{}, &MCPServerList{},
		&ToolPin{}, &ToolPinList{},
		&ToolPolicy{}, &ToolPolicyList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
