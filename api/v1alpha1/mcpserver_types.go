package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Transport is the MCP transport used to reach a server.
// +kubebuilder:validation:Enum=StreamableHTTP;SSE
type Transport string

// MCP transports toolgate speaks.
const (
	TransportStreamableHTTP Transport = "StreamableHTTP"
	TransportSSE            Transport = "SSE"
)

// CatalogTrust is how far the server's catalogue is trusted before review.
// +kubebuilder:validation:Enum=Unknown;Community;Vendor;Internal
type CatalogTrust string

// Catalogue trust values, from least to most trusted.
const (
	CatalogTrustUnknown   CatalogTrust = "Unknown"
	CatalogTrustCommunity CatalogTrust = "Community"
	CatalogTrustVendor    CatalogTrust = "Vendor"
	CatalogTrustInternal  CatalogTrust = "Internal"
)

// FirstUseMode says what happens to a tool seen for the first time.
// +kubebuilder:validation:Enum=TrustOnFirstUse;Review
type FirstUseMode string

// First-use modes.
const (
	// FirstUseTrust pins a new tool's fingerprint at once (trust on first use).
	FirstUseTrust FirstUseMode = "TrustOnFirstUse"
	// FirstUseReview holds every new tool until a human approves it.
	FirstUseReview FirstUseMode = "Review"
)

// NamespacesFrom selects which namespaces may consume a server.
// +kubebuilder:validation:Enum=Same;All;Selector
type NamespacesFrom string

// Consumer namespace selections.
const (
	NamespacesFromSame     NamespacesFrom = "Same"
	NamespacesFromAll      NamespacesFrom = "All"
	NamespacesFromSelector NamespacesFrom = "Selector"
)

// MCPServerSpec is what a user declares about an MCP server.
type MCPServerSpec struct {
	// endpoint is where the server listens: an in-cluster Service or a URL.
	// +required
	Endpoint MCPEndpoint `json:"endpoint"`

	// transport is the MCP transport. StreamableHTTP unless the server only
	// speaks the older SSE transport.
	// +optional
	// +kubebuilder:default=StreamableHTTP
	Transport Transport `json:"transport,omitempty"`

	// auth holds the credentials toolgate presents to the server.
	// +optional
	Auth *MCPServerAuth `json:"auth,omitempty"`

	// tls configures how toolgate verifies an https endpoint.
	// +optional
	TLS *MCPServerTLS `json:"tls,omitempty"`

	// catalogTrust is how far the server's catalogue is trusted: Unknown
	// (the default), Community, Vendor or Internal. It feeds the server's
	// risk score; it never exempts a tool from pinning or review.
	// +optional
	// +kubebuilder:default=Unknown
	CatalogTrust CatalogTrust `json:"catalogTrust,omitempty"`

	// firstUse says what happens to a tool seen for the first time:
	// TrustOnFirstUse pins it at once, Review holds it until a human approves.
	// +optional
	// +kubebuilder:default=TrustOnFirstUse
	FirstUse FirstUseMode `json:"firstUse,omitempty"`

	// probe sets how often and how patiently the server is probed, and the
	// bounds a probe enforces.
	// +optional
	// +kubebuilder:default={}
	Probe ProbeSpec `json:"probe,omitempty"`

	// consumers says which namespaces' ToolPolicies may use this server.
	// By default only the server's own namespace.
	// +optional
	// +kubebuilder:default={}
	Consumers ConsumerSpec `json:"consumers,omitempty"`

	// serviceAccount is the identity an in-cluster server acts as. When set,
	// toolgate asks the API server what that identity may do and raises the
	// blast radius of the server's mutating tools to match.
	// +optional
	ServiceAccount *ServiceAccountReference `json:"serviceAccount,omitempty"`
}

// MCPEndpoint is exactly one of an in-cluster Service or a URL.
// +kubebuilder:validation:XValidation:rule="has(self.service) != has(self.url)",message="set exactly one of endpoint.service and endpoint.url"
type MCPEndpoint struct {
	// service is a Service in the MCPServer's namespace.
	// +optional
	Service *ServiceEndpoint `json:"service,omitempty"`

	// url is an http or https URL of the server's MCP endpoint.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="endpoint.url must be an absolute http:// or https:// URL with a host"
	URL string `json:"url,omitempty"`
}

// ServiceEndpoint is a Service port and path in the MCPServer's namespace.
type ServiceEndpoint struct {
	// name of the Service.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// port is the Service port number.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// path is the HTTP path of the MCP endpoint.
	// +optional
	// +kubebuilder:default=/mcp
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && !self.contains(' ') && !self.contains('?') && !self.contains('#')",message="endpoint.service.path must be an absolute path such as /mcp, without spaces, query or fragment"
	Path string `json:"path,omitempty"`

	// scheme is http or https.
	// +optional
	// +kubebuilder:default=http
	// +kubebuilder:validation:Enum=http;https
	Scheme string `json:"scheme,omitempty"`
}

// MCPServerAuth holds references to the credentials toolgate presents.
// +kubebuilder:validation:XValidation:rule="has(self.bearerToken) || has(self.headersFrom)",message="auth needs bearerToken or headersFrom; omit auth for a server without authentication"
type MCPServerAuth struct {
	// bearerToken is a key of a Secret whose value is sent as
	// "Authorization: Bearer <value>".
	// +optional
	BearerToken *KeyReference `json:"bearerToken,omitempty"`

	// headersFrom names a Secret whose every key is an HTTP header name and
	// whose value is that header's value.
	// +optional
	HeadersFrom *LocalObjectReference `json:"headersFrom,omitempty"`
}

// MCPServerTLS configures server verification for https endpoints.
type MCPServerTLS struct {
	// ca is the certificate authority bundle (PEM) that signs the server's
	// certificate. Without it the system roots are used.
	// +optional
	CA *CASource `json:"ca,omitempty"`

	// serverName overrides the name checked against the server's certificate.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServerName string `json:"serverName,omitempty"`
}

// CASource is a PEM bundle in exactly one of a Secret or a ConfigMap.
// +kubebuilder:validation:XValidation:rule="has(self.secret) != has(self.configMap)",message="set exactly one of tls.ca.secret and tls.ca.configMap"
type CASource struct {
	// secret is a key of a Secret in the MCPServer's namespace.
	// +optional
	Secret *KeyReference `json:"secret,omitempty"`

	// configMap is a key of a ConfigMap in the MCPServer's namespace.
	// +optional
	ConfigMap *KeyReference `json:"configMap,omitempty"`
}

// ProbeSpec bounds and schedules probes.
//
// Every rule that converts a duration first checks that it is one, so that a
// value such as "5 minutes" is answered by the format rule of its field
// rather than by a CEL conversion error.
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || !has(self.timeout) || !self.interval.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || !self.timeout.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || duration(self.timeout) < duration(self.interval)",message="probe.timeout must be shorter than probe.interval"
type ProbeSpec struct {
	// interval between two probes. At least 10s.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="probe.interval must be a duration such as 30s, 5m or 1h"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('10s') && duration(self) <= duration('24h'))",message="probe.interval must be between 10s and 24h"
	Interval *metav1.Duration `json:"interval,omitempty"`

	// timeout bounds one whole probe: connect, initialize and every page of
	// tools/list.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="probe.timeout must be a duration such as 30s, 5m or 1h"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) >= duration('1s') && duration(self) <= duration('5m'))",message="probe.timeout must be between 1s and 5m"
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// maxTools is the most tools a catalogue may have. A server that offers
	// more is reported TooLarge and none of its tools is trusted.
	// +optional
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5000
	MaxTools int32 `json:"maxTools,omitempty"`

	// clientInfo is the name and version the probe gives the server in
	// initialize. A server can tell a client by them, and one that knows
	// the probe's could show it clean instructions and tools and agents
	// others. Unset, the probe says what an agent built on the MCP Python
	// SDK says when its author named nothing (name "mcp", version "0.1.0"),
	// an identity many agents share; set it to what this server's agents
	// send.
	// +optional
	ClientInfo *ProbeClientInfo `json:"clientInfo,omitempty"`
}

// ProbeClientInfo is the identity the probe gives a server, as an MCP
// client's Implementation.
type ProbeClientInfo struct {
	// name the probe gives in clientInfo.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`

	// version the probe gives in clientInfo.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Version string `json:"version"`
}

// ConsumerSpec selects the namespaces whose ToolPolicies may use a server.
// +kubebuilder:validation:XValidation:rule="(has(self.from) && self.from == 'Selector') == has(self.selector)",message="consumers.selector is required when consumers.from is Selector, and allowed only then"
type ConsumerSpec struct {
	// from is Same (the MCPServer's namespace), All, or Selector.
	// +optional
	// +kubebuilder:default=Same
	From NamespacesFrom `json:"from,omitempty"`

	// selector picks consumer namespaces by label when from is Selector.
	// The label kubernetes.io/metadata.name selects namespaces by name.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// ServiceAccountReference names the ServiceAccount an in-cluster server runs as.
type ServiceAccountReference struct {
	// namespace of the ServiceAccount; the MCPServer's namespace if empty.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// name of the ServiceAccount.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// MCPServerStatus is what toolgate observed of the server.
type MCPServerStatus struct {
	// conditions are the server's state: Ready summarises; Reachable says
	// whether the last probe got a valid catalogue; GateBypassable whether
	// agents could call the server without the credentials only their gates
	// hold.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// serverInfo is what the server said of itself in initialize.
	// +optional
	ServerInfo *ServerInfo `json:"serverInfo,omitempty"`

	// risk is the server's own risk, from its posture.
	// +optional
	Risk *ServerRisk `json:"risk,omitempty"`

	// toolCount is the number of tools in the last catalogue.
	// +optional
	ToolCount int32 `json:"toolCount,omitempty"`

	// highestLevel is the highest level among the server's tools.
	// +optional
	HighestLevel Level `json:"highestLevel,omitempty"`

	// tools summarises each tool, highest level first, up to 100 entries;
	// the ToolPins hold the whole record.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Tools []ToolSummary `json:"tools,omitempty"`

	// reach is what the server's ServiceAccount may do in the cluster.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=256
	Reach []string `json:"reach,omitempty"`

	// lastProbeTime is when the last probe finished.
	// +optional
	LastProbeTime *metav1.Time `json:"lastProbeTime,omitempty"`

	// addresses are the IP addresses the endpoint's host resolved to when
	// the server was last probed successfully, sorted (the host itself when
	// the URL names an address). Gates dial only these and never resolve
	// the host themselves, so nothing an agent's pod holds (its /etc/hosts,
	// its resolver) decides where the server's credentials go. A new
	// address reaches the gates with the next probe.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=45
	Addresses []string `json:"addresses,omitempty"`
}

// ServerInfo is the server's self-description from initialize.
type ServerInfo struct {
	// name the server gave.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name,omitempty"`

	// version the server gave.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Version string `json:"version,omitempty"`

	// protocolVersion negotiated in initialize.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	ProtocolVersion string `json:"protocolVersion,omitempty"`

	// instructionsFingerprint is the SHA-256 of the instructions the probe
	// read and scanned ("sha256:" and the hex digest of their exact UTF-8
	// text), so a change of instructions is visible; empty when the server
	// sent none. Gates compare what the server sends agents with it.
	// +optional
	InstructionsFingerprint Fingerprint `json:"instructionsFingerprint,omitempty"`
}

// ServerRisk is the risk of the server's posture.
type ServerRisk struct {
	// level of the server's posture.
	// +required
	Level Level `json:"level"`

	// reasons that raised it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=512
	Reasons []string `json:"reasons,omitempty"`

	// findings of the poisoning scan over the server's instructions.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Findings []Finding `json:"findings,omitempty"`
}

// ToolSummary is one line of a server's catalogue.
type ToolSummary struct {
	// name of the tool, exactly as the server sent it.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`

	// level of the tool.
	// +required
	Level Level `json:"level"`

	// category of the tool.
	// +optional
	Category Category `json:"category,omitempty"`

	// state of its pin.
	// +optional
	State PinState `json:"state,omitempty"`

	// pin is the name of the tool's ToolPin.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Pin string `json:"pin,omitempty"`
}

// MCPServer is an MCP server that agents in the cluster may use. toolgate
// probes it, scores the server and each of its tools, and pins each tool in
// a ToolPin.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tgserver;tgsrv,categories=toolgate
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Trust",type=string,JSONPath=`.spec.catalogTrust`
// +kubebuilder:printcolumn:name="Tools",type=integer,JSONPath=`.status.toolCount`
// +kubebuilder:printcolumn:name="Highest",type=string,JSONPath=`.status.highestLevel`
// +kubebuilder:printcolumn:name="Server Risk",type=string,JSONPath=`.status.risk.level`
// +kubebuilder:printcolumn:name="Bypassable",type=string,JSONPath=`.status.conditions[?(@.type=="GateBypassable")].status`
// +kubebuilder:printcolumn:name="Bypass Reason",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="GateBypassable")].reason`
// +kubebuilder:printcolumn:name="Last Probe",type=date,JSONPath=`.status.lastProbeTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MCPServer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the user declares.
	// +required
	Spec MCPServerSpec `json:"spec"`

	// status is what toolgate observed.
	// +optional
	Status MCPServerStatus `json:"status,omitempty"`
}

// MCPServerList is a list of MCPServers.
//
// +kubebuilder:object:root=true
type MCPServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MCPServer `json:"items"`
}
