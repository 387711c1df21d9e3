package v1alpha1

import "time"

// Defaults of the API, as named constants. Each mirrors a
// +kubebuilder:default marker (the API server applies the marker; code
// that reads an object the API server did not default, such as a test's or
// an old object's, applies the constant), and TestDefaultsMatchTheCRDs
// checks every one against the generated CRDs.
const (
	// DefaultTransport is MCPServer spec.transport's default.
	DefaultTransport = TransportStreamableHTTP
	// DefaultCatalogTrust is MCPServer spec.catalogTrust's default.
	DefaultCatalogTrust = CatalogTrustUnknown
	// DefaultFirstUse is MCPServer spec.firstUse's default.
	DefaultFirstUse = FirstUseTrust
	// DefaultServicePath is MCPServer spec.endpoint.service.path's default.
	DefaultServicePath = "/mcp"
	// DefaultServiceScheme is MCPServer spec.endpoint.service.scheme's
	// default.
	DefaultServiceScheme = "http"
	// DefaultProbeInterval is MCPServer spec.probe.interval's default.
	DefaultProbeInterval = 5 * time.Minute
	// DefaultProbeTimeout is MCPServer spec.probe.timeout's default.
	DefaultProbeTimeout = 30 * time.Second
	// DefaultMaxTools is MCPServer spec.probe.maxTools's default.
	DefaultMaxTools = 500
	// DefaultConsumersFrom is MCPServer spec.consumers.from's default.
	DefaultConsumersFrom = NamespacesFromSame

	// DefaultMaxLevel is the ceiling of a ToolPolicy that leaves
	// spec.maxLevel out, unless the operator is started with another
	// (--default-max-level). It is not a CRD default, so that the
	// operator's setting reaches policies already stored.
	DefaultMaxLevel = LevelModerate
	// DefaultAgentTrustLevel is ToolPolicy spec.agentTrustLevel's default.
	DefaultAgentTrustLevel = 2
	// DefaultPolicyMode is ToolPolicy spec.mode's default.
	DefaultPolicyMode = PolicyEnforce
	// DefaultArgumentFloors is ToolPolicy spec.argumentFloors' default.
	DefaultArgumentFloors = ArgumentFloorsEnabled
	// DefaultApprovalTimeout is ToolPolicy spec.approval.timeout's default.
	DefaultApprovalTimeout = 10 * time.Minute
)
