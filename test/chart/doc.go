// Package chart tests the Helm chart charts/toolgate: helm lint --strict in
// both certificate modes, golden files of helm template for the default,
// cert-manager, external-operator and monitoring values, and what the rendered objects must
// say whatever their formatting (the generated RBAC and CRDs match config/,
// the operator runs under the restricted Pod Security profile, the
// certificate is wired in each mode), the values the schema and the
// templates refuse, each with the message that names the rule broken, the
// install notes of each mode, and that docs/install.md's values table names
// every value. With the monitoring values it checks the alerts and the
// Grafana dashboard: every expression parses and passes the checks of
// promtool check rules (hack/tools/promcheck, Prometheus' own parsers in a
// module of their own), every metric they read is one the operator or the
// gate registers, and every alert's runbook is a section of
// docs/operations.md, which names every metric registered.
//
// The tests run the helm CLI that hack/helm.sh builds (make helm), found
// through TOOLGATE_HELM or in its cache; without it they skip, unless
// TOOLGATE_REQUIRE_HELM is set, as CI does. Run with -update to rewrite the
// golden files.
package chart
