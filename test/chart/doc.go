// Package chart tests the Helm chart charts/toolgate: helm lint --strict in
// both certificate modes, golden files of helm template for the default
// values and the cert-manager values, and what the rendered objects must
// say whatever their formatting (the generated RBAC and CRDs match config/,
// the operator runs under the restricted Pod Security profile, the
// certificate is wired in each mode), the values the schema and the
// templates refuse, the install notes of each mode, and that
// docs/install.md's values table names every value.
//
// The tests run the helm CLI that hack/helm.sh builds (make helm), found
// through TOOLGATE_HELM or in its cache; without it they skip, unless
// TOOLGATE_REQUIRE_HELM is set, as CI does. Run with -update to rewrite the
// golden files.
package chart
