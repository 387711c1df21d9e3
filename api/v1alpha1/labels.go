package v1alpha1

// Labels toolgate puts on every ToolPin, so that pins can be listed by
// server, level and state with a label selector. The operator owns them and
// restores them when someone else changes them.
const (
	// LabelServer is the name of the pin's MCPServer (set when the name
	// fits a label value).
	LabelServer = "toolgate.dev/server"
	// LabelLevel is the pin's applied level, L0 … L5.
	LabelLevel = "toolgate.dev/level"
	// LabelState is the pin's state.
	LabelState = "toolgate.dev/state"
)

// LabelCredentials marks, with the value "true", the Secrets an MCPServer
// may take credentials from. The operator reads no other Secret: otherwise
// anyone allowed to create an MCPServer could have it send any Secret of
// the namespace to a URL of their choosing.
const LabelCredentials = "toolgate.dev/credentials"

// LabelInjection marks, with the value InjectionEnabled, the namespaces
// whose pods run behind the gate: the agent namespaces. Their service
// accounts never decide on tools.
const LabelInjection = "toolgate.dev/injection"

// InjectionEnabled is the value of LabelInjection that opts a namespace in.
const InjectionEnabled = "enabled"

// LabelInject on a pod, with the value InjectOptOut, keeps the gate out of
// that pod in an opted-in namespace. Setting it is guarded: only identities
// the operator is configured to trust may create such a pod there.
const LabelInject = "toolgate.dev/inject"

// InjectOptOut is the value of LabelInject that opts a pod out.
const InjectOptOut = "false"

// AnnotationInjected records on a pod what the injector added (the gate's
// image and the configuration revision), so that injecting twice changes
// nothing and an operator can tell which gate a pod runs.
const AnnotationInjected = "toolgate.dev/injected"

// AnnotationOperatorCA holds, on an injected pod, the PEM CA of the
// operator's serving certificate; the downward API projects it as a file
// for the gate. A pod can mount no Secret or ConfigMap of the operator's
// namespace, and the CA is public. The injection guard policy refuses any
// change of it after creation.
const AnnotationOperatorCA = "toolgate.dev/operator-ca"

// AnnotationOperatorURL holds, on an injected pod, the operator's gate
// endpoint; the downward API projects it beside the gate's token, and the
// gate presents its token to that endpoint alone, whatever its command
// line says. The injection guard policy refuses any change of it after
// creation.
const AnnotationOperatorURL = "toolgate.dev/operator-url"
