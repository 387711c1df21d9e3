// Package injector serves the mutating admission webhook that puts the
// gate into agent pods: it reads what a pod's admission needs (its
// namespace's labels and the namespace's ToolPolicies, from the manager's
// informer cache), asks internal/inject whether and what to inject, and
// answers with a JSON patch.
//
// The API server filters before calling it (the webhook configuration's
// namespace and object selectors in config/webhook/injection), so pods of
// other namespaces and opted-out pods never reach it; the handler decides
// again from the same labels, so a selector edited by hand cannot make it
// inject the operator's or a system namespace.
//
// It owns no decision (internal/inject does) and does not guard the
// opt-out label: the ValidatingAdmissionPolicy in config/policy does,
// because an opted-out pod is exactly the pod that never reaches this
// webhook.
package injector
