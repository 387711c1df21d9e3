package gateproto

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/clip"
)

// Bounds a configuration must keep. The gate refuses a configuration that
// breaks one: a bug or a compromise on the operator's side must not make
// the gate allocate without limit.
const (
	MaxServers        = 32
	MaxToolsPerServer = 4096
	MaxToolNameLength = 128
	MaxHeaders        = 32
	// MaxAddresses bounds Upstream.Addresses, as MCPServer status does.
	MaxAddresses        = 16
	MaxHeaderBytes      = 16 << 10
	MaxCAPEMBytes       = 64 << 10
	MaxMessageLength    = 1024
	MaxFrameBytes       = 16 << 20
	MaxPolicies         = 64
	MaxArgumentsPreview = 4096
	// MaxURLBytes and MaxServerNameBytes are the MCPServer's own bounds on
	// spec.endpoint.url and spec.tls.serverName.
	MaxURLBytes        = 2048
	MaxServerNameBytes = 253
	// MaxArgumentRules bounds the argument rules of a configuration (and
	// those one tool names); MaxExpressionBytes one rule's expression, as
	// ToolPolicy's schema does.
	MaxArgumentRules = 1024
	// MaxRuleNameLength bounds an argument rule's "policy/rule" name.
	MaxRuleNameLength  = 253 + 1 + 63
	MaxExpressionBytes = 4096
	// MaxAgentLabels bounds Agent.Labels.
	MaxAgentLabels = 64
)

// Duration is a time.Duration that travels as a Go duration string ("10m").
type Duration struct{ time.Duration }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	d.Duration = v
	return nil
}

var (
	fingerprintRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	levelRE       = regexp.MustCompile(`^L[0-5]$`)
	dns1123RE     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	serverNameRE  = regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$`)
)

// SplitServerID splits "namespace/name", checking both halves are names a
// Kubernetes object can have.
func SplitServerID(id string) (namespace, name string, err error) {
	ns, n, ok := strings.Cut(id, "/")
	if !ok || len(ns) > 63 || !dns1123RE.MatchString(ns) || len(n) > 253 || !serverNameRE.MatchString(n) {
		return "", "", fmt.Errorf("server id %q is not \"namespace/name\"", id)
	}
	return ns, n, nil
}

// Validate checks a configuration whole. The error names the field.
func (c *Config) Validate() error {
	if c == nil {
		return errors.New("config: missing")
	}
	if c.Version != Version {
		return fmt.Errorf("config.version %q: this gate speaks %q", c.Version, Version)
	}
	if c.Revision == "" {
		return errors.New("config.revision: empty")
	}
	if want := c.ComputeRevision(); c.Revision != want {
		return fmt.Errorf("config.revision %q does not match the content (%q)", c.Revision, want)
	}
	// The pod is named in every audit line: a name no pod can have would
	// make the audit trail point nowhere.
	if len(c.Namespace) > 63 || !dns1123RE.MatchString(c.Namespace) {
		return fmt.Errorf("config.namespace %q: not a namespace name", c.Namespace)
	}
	if !isObjectName(c.Pod) {
		return fmt.Errorf("config.pod %q: not a pod name", c.Pod)
	}
	if c.Mode != ModeEnforce && c.Mode != ModeAudit {
		return fmt.Errorf("config.mode %q: want %s or %s", c.Mode, ModeEnforce, ModeAudit)
	}
	if c.ApprovalTimeout.Duration < 0 {
		return fmt.Errorf("config.approvalTimeout %s: negative", c.ApprovalTimeout)
	}
	if len(c.Policies) > MaxPolicies {
		return fmt.Errorf("config.policies: %d entries, at most %d", len(c.Policies), MaxPolicies)
	}
	policies := make(map[string]bool, len(c.Policies))
	for i, p := range c.Policies {
		if !isObjectName(p) {
			return fmt.Errorf("config.policies[%d] %q: not a ToolPolicy name", i, p)
		}
		if policies[p] {
			return fmt.Errorf("config.policies[%d] %q: duplicate", i, p)
		}
		policies[p] = true
	}
	if len(c.Servers) > MaxServers {
		return fmt.Errorf("config.servers: %d entries, at most %d", len(c.Servers), MaxServers)
	}
	seen := map[string]bool{}
	for i := range c.Servers {
		s := &c.Servers[i]
		if err := s.validate(); err != nil {
			return fmt.Errorf("config.servers[%d]: %w", i, err)
		}
		if seen[s.ID] {
			return fmt.Errorf("config.servers[%d].id %q: duplicate", i, s.ID)
		}
		seen[s.ID] = true
	}
	return c.validateArguments()
}

// validateArguments checks what a configuration says of calls' arguments:
// the agent's identity, the ceiling and approval level a call's arguments
// are measured against, and the argument rules each tool names.
func (c *Config) validateArguments() error {
	for field, l := range map[string]string{"config.ceiling": c.Ceiling, "config.approvalLevel": c.ApprovalLevel} {
		if l != "" && !levelRE.MatchString(l) {
			return fmt.Errorf("%s %q: want L0 … L5", field, l)
		}
	}
	if a := c.Agent; a != nil {
		if len(a.ServiceAccount) > 253 {
			return errors.New("config.agent.serviceAccount: longer than 253 bytes")
		}
		if len(a.Labels) > MaxAgentLabels {
			return fmt.Errorf("config.agent.labels: %d entries, at most %d", len(a.Labels), MaxAgentLabels)
		}
		for k, v := range a.Labels {
			if len(k) > 317 || len(v) > 63 {
				return fmt.Errorf("config.agent.labels[%q]: longer than a label can be", clip.String(k, 64))
			}
		}
	}
	if len(c.ArgumentRules) > MaxArgumentRules {
		return fmt.Errorf("config.argumentRules: %d entries, at most %d", len(c.ArgumentRules), MaxArgumentRules)
	}
	rules := make(map[string]bool, len(c.ArgumentRules))
	for i := range c.ArgumentRules {
		r := &c.ArgumentRules[i]
		if err := r.validate(); err != nil {
			return fmt.Errorf("config.argumentRules[%d]: %w", i, err)
		}
		if rules[r.Name] {
			return fmt.Errorf("config.argumentRules[%d].name %q: duplicate", i, r.Name)
		}
		rules[r.Name] = true
	}
	for i := range c.Servers {
		for j := range c.Servers[i].Tools {
			t := &c.Servers[i].Tools[j]
			if len(t.Rules) > MaxArgumentRules {
				return fmt.Errorf("config.servers[%d].tools[%d].rules: %d entries, at most %d", i, j, len(t.Rules), MaxArgumentRules)
			}
			for k, r := range t.Rules {
				if !rules[r.Rule] {
					return fmt.Errorf("config.servers[%d].tools[%d].rules[%d] %q: no such argument rule", i, j, k, clip.String(r.Rule, 128))
				}
				if len(r.Problem) > MaxMessageLength {
					return fmt.Errorf("config.servers[%d].tools[%d].rules[%d].problem: longer than %d bytes", i, j, k, MaxMessageLength)
				}
			}
		}
	}
	return nil
}

func (r *ArgumentRule) validate() error {
	policy, name, ok := strings.Cut(r.Name, "/")
	switch {
	case !ok || !isObjectName(policy) || len(name) > 63 || !dns1123RE.MatchString(name):
		return fmt.Errorf("name %q: want \"policy/rule\"", clip.String(r.Name, 128))
	case r.Expression == "" || len(r.Expression) > MaxExpressionBytes:
		return fmt.Errorf("rule %q: expression: want 1 to %d bytes", r.Name, MaxExpressionBytes)
	case len(r.Message) > MaxMessageLength:
		return fmt.Errorf("rule %q: message: longer than %d bytes", r.Name, MaxMessageLength)
	}
	switch r.Action {
	case RuleRefuse, RuleHold:
		if r.Level != "" {
			return fmt.Errorf("rule %q: level with action %s", r.Name, r.Action)
		}
	case RuleRaiseLevel:
		if !levelRE.MatchString(r.Level) {
			return fmt.Errorf("rule %q: level %q: want L0 … L5", r.Name, r.Level)
		}
	default:
		return fmt.Errorf("rule %q: action %q: want %s, %s or %s", r.Name, r.Action, RuleRefuse, RuleHold, RuleRaiseLevel)
	}
	return nil
}

func (s *Server) validate() error {
	if _, _, err := SplitServerID(s.ID); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	if len(s.Message) > MaxMessageLength {
		return fmt.Errorf("message: longer than %d bytes", MaxMessageLength)
	}
	switch {
	case s.Ready && s.Upstream == nil:
		return errors.New("upstream: a ready server needs one")
	case !s.Ready && s.Upstream != nil:
		return errors.New("upstream: set on a server that is not ready")
	case !s.Ready && s.Reason != ReasonNotAdmitted && s.Reason != ReasonServerNotReady:
		return fmt.Errorf("reason %q: a server that is not ready is %s or %s", s.Reason, ReasonNotAdmitted, ReasonServerNotReady)
	case s.Ready && s.Reason != "":
		return fmt.Errorf("reason %q: set on a ready server", s.Reason)
	}
	if s.Upstream != nil {
		if err := s.Upstream.validate(); err != nil {
			return fmt.Errorf("upstream.%w", err)
		}
	}
	if in := s.Instructions; in != nil {
		switch {
		case !s.Ready:
			return errors.New("instructions: set on a server that is not ready")
		case in.None && in.Fingerprint != "":
			return errors.New("instructions: both none and a fingerprint")
		case !in.None && !fingerprintRE.MatchString(in.Fingerprint):
			return fmt.Errorf("instructions.fingerprint %q: want sha256: and 64 hex digits, or none", in.Fingerprint)
		}
	}
	if !s.MessageAction.Valid() {
		return fmt.Errorf("messageAction %q: want %s, %s, %s or %s", s.MessageAction, FindingRecord, FindingRedact, FindingWithhold, FindingHold)
	}
	if len(s.Tools) > MaxToolsPerServer {
		return fmt.Errorf("tools: %d entries, at most %d", len(s.Tools), MaxToolsPerServer)
	}
	names := make(map[string]bool, len(s.Tools))
	for i := range s.Tools {
		t := &s.Tools[i]
		if err := t.validate(s.Ready); err != nil {
			return fmt.Errorf("tools[%d]: %w", i, err)
		}
		if names[t.Name] {
			return fmt.Errorf("tools[%d].name %q: duplicate", i, t.Name)
		}
		names[t.Name] = true
	}
	return nil
}

func (u *Upstream) validate() error {
	if len(u.URL) > MaxURLBytes {
		return fmt.Errorf("url: longer than %d bytes", MaxURLBytes)
	}
	p, err := url.Parse(u.URL)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("url %q: want an absolute http or https URL", u.URL)
	}
	if u.Transport != "StreamableHTTP" && u.Transport != "SSE" {
		return fmt.Errorf("transport %q: want StreamableHTTP or SSE", u.Transport)
	}
	if len(u.Headers) > MaxHeaders {
		return fmt.Errorf("headers: %d entries, at most %d", len(u.Headers), MaxHeaders)
	}
	size := 0
	canonical := make(map[string]bool, len(u.Headers))
	for k, v := range u.Headers {
		size += len(k) + len(v)
		if err := CheckHeader(k, v); err != nil {
			return fmt.Errorf("headers: %w", err)
		}
		// The gate sets each header with http.Header.Set: two names that
		// differ only in case would leave it to map order which credential
		// the server receives.
		ck := http.CanonicalHeaderKey(k)
		if canonical[ck] {
			return fmt.Errorf("headers: %q is given twice", ck)
		}
		canonical[ck] = true
	}
	if size > MaxHeaderBytes {
		return fmt.Errorf("headers: %d bytes, at most %d", size, MaxHeaderBytes)
	}
	if len(u.CAPEM) > MaxCAPEMBytes {
		return fmt.Errorf("caPEM: %d bytes, at most %d", len(u.CAPEM), MaxCAPEMBytes)
	}
	// A CA that holds no certificate would make the gate refuse the
	// configuration at Apply; refusing it here keeps the two in step.
	if u.CAPEM != "" && !x509.NewCertPool().AppendCertsFromPEM([]byte(u.CAPEM)) {
		return errors.New("caPEM: holds no PEM certificate")
	}
	if len(u.ServerName) > MaxServerNameBytes || strings.ContainsFunc(u.ServerName, isSpaceOrControl) {
		return fmt.Errorf("serverName %q: want a host name of at most %d bytes", u.ServerName, MaxServerNameBytes)
	}
	if u.Timeout.Duration < 0 {
		return fmt.Errorf("timeout %s: negative", u.Timeout)
	}
	if len(u.Addresses) > MaxAddresses {
		return fmt.Errorf("addresses: %d entries, at most %d", len(u.Addresses), MaxAddresses)
	}
	for i, a := range u.Addresses {
		if ip, err := netip.ParseAddr(a); err != nil || ip.Zone() != "" {
			return fmt.Errorf("addresses[%d] %q: want an IP address", i, a)
		}
	}
	return nil
}

// reservedHeaders are the headers the gate or Go's HTTP client set
// themselves: framing and hop-by-hop headers, and the MCP headers the gate
// relays from the agent. A configured value would override them, and the
// server would then read a message other than the one the gate judged.
var reservedHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true, "Upgrade": true,
	"Accept": true, "Content-Type": true, "Last-Event-Id": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Mcp-Method": true, "Mcp-Name": true,
}

// CheckHeader reports whether name and value may be sent to a server as a
// credential: name an RFC 9110 token that the gate does not set itself,
// value without control characters (a CR or LF would split the request).
// The operator checks a Secret's headers with it, so that a header the gate
// would refuse makes one server not ready rather than the whole
// configuration invalid.
func CheckHeader(name, value string) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !isTokenChar(r) }) {
		return fmt.Errorf("%q is not a valid HTTP header name", name)
	}
	ck := http.CanonicalHeaderKey(name)
	if reservedHeaders[ck] || strings.HasPrefix(ck, "Mcp-Param-") {
		return fmt.Errorf("%q is set by the gate itself", ck)
	}
	for i := 0; i < len(value); i++ {
		if b := value[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return fmt.Errorf("the value of %q holds a control character", name)
		}
	}
	return nil
}

func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

// isObjectName reports whether s is a Kubernetes object name (a DNS
// subdomain).
func isObjectName(s string) bool { return len(s) <= 253 && serverNameRE.MatchString(s) }

func (t *Tool) validate(serverReady bool) error {
	if t.Name == "" || len(t.Name) > MaxToolNameLength {
		return fmt.Errorf("name %q: want 1 to %d bytes", t.Name, MaxToolNameLength)
	}
	if len(t.Category) > 64 || len(t.BlastRadius) > 64 || len(t.Reversibility) > 64 {
		return fmt.Errorf("tool %q: category, blastRadius or reversibility longer than 64 bytes", t.Name)
	}
	if len(t.Message) > MaxMessageLength || len(t.ApprovalRule) > MaxMessageLength {
		return fmt.Errorf("tool %q: message or approvalRule longer than %d bytes", t.Name, MaxMessageLength)
	}
	if t.Pin != "" && !isObjectName(t.Pin) {
		return fmt.Errorf("pin %q: not a ToolPin name", t.Pin)
	}
	if t.Fingerprint != "" && !fingerprintRE.MatchString(t.Fingerprint) {
		return fmt.Errorf("fingerprint %q: want sha256: and 64 hex digits", t.Fingerprint)
	}
	for field, l := range map[string]string{"level": t.Level, "effectiveLevel": t.EffectiveLevel} {
		if l != "" && !levelRE.MatchString(l) {
			return fmt.Errorf("%s %q: want L0 … L5", field, l)
		}
	}
	if !t.ResultAction.Valid() {
		return fmt.Errorf("tool %q: resultAction %q: want %s, %s, %s or %s", t.Name, t.ResultAction, FindingRecord, FindingRedact, FindingWithhold, FindingHold)
	}
	switch t.Decision {
	case DecisionExposed, DecisionApprovalGated:
		if !serverReady {
			return fmt.Errorf("tool %q: %s on a server that is not ready", t.Name, t.Decision)
		}
		if t.Fingerprint == "" || t.Level == "" {
			return fmt.Errorf("tool %q: %s needs a fingerprint and a level", t.Name, t.Decision)
		}
		if t.Reason != "" || t.AuditForwardable {
			return fmt.Errorf("tool %q: %s with a withholding reason", t.Name, t.Decision)
		}
		if t.Decision == DecisionApprovalGated && (t.ApprovalRule == "" || t.Pin == "") {
			return fmt.Errorf("tool %q: gated without the rule that gated it or its pin", t.Name)
		}
	case DecisionWithheld:
		if t.Reason == "" {
			return fmt.Errorf("tool %q: withheld without a reason", t.Name)
		}
		if !knownReasons[t.Reason] {
			return fmt.Errorf("reason %q: not a reason this gate knows", t.Reason)
		}
		if t.AuditForwardable && (t.Fingerprint == "" || !serverReady) {
			return fmt.Errorf("tool %q: audit-forwardable without a fingerprint on a ready server", t.Name)
		}
	default:
		return fmt.Errorf("decision %q: want %s, %s or %s", t.Decision, DecisionExposed, DecisionApprovalGated, DecisionWithheld)
	}
	return nil
}

// knownReasons are the reasons a tool may be withheld for; the audit line
// records one, and a reviewer must be able to read it.
var knownReasons = map[Reason]bool{
	ReasonNotAdmitted: true, ReasonServerNotReady: true, ReasonNotListed: true, ReasonRemoved: true,
	ReasonRejected: true, ReasonAwaitingReview: true, ReasonPoisoning: true, ReasonAboveCeiling: true,
	ReasonTrustLevel: true,
}

// ComputeRevision is a digest of the configuration's content, Revision
// aside: the operator stamps it, the gate checks it, and a push whose
// revision is unchanged changes nothing.
func (c *Config) ComputeRevision() string {
	cp := *c
	cp.Revision = ""
	b, err := json.Marshal(&cp)
	if err != nil { // every field marshals; this is unreachable
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Server returns the server with the given ID, or nil.
func (c *Config) Server(id string) *Server {
	for i := range c.Servers {
		if c.Servers[i].ID == id {
			return &c.Servers[i]
		}
	}
	return nil
}

// MaxCallRequestBytes bounds a CallRequest as sent: the arguments'
// preview and, on a held result, MaxFindings findings at their bounds with
// every character JSON-escaped.
const MaxCallRequestBytes = 64 << 10

// Bounds of the findings a gate sends, those of the ToolPin's status that
// shows them.
const (
	MaxFindings            = 8
	MaxFindingSignalBytes  = 64
	MaxFindingFieldBytes   = 512
	MaxFindingExcerptBytes = 256
	// MaxFindingReportBytes bounds a FindingReport as sent.
	MaxFindingReportBytes = 32 << 10
	// MaxMethodBytes bounds FindingReport.Method.
	MaxMethodBytes = 64
)

var (
	signalRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	methodRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9/_.-]{0,63}$`)
)

// RenderExcerpt makes s fit Finding.Excerpt (and Finding.Field): every
// invalid byte, control character and invisible or format character is
// written as an escape (\n, \x1b, \u200b, \U000e0041), so the person
// deciding sees what was hidden and a terminal showing it is not driven
// by it; then the text is cut on a rune boundary to limit bytes, ending in
// clip.Marker when cut.
func RenderExcerpt(s string, limit int) string {
	var out strings.Builder
	for i := 0; i < len(s) && out.Len() <= limit; {
		r, sz := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && sz <= 1:
			fmt.Fprintf(&out, `\x%02x`, s[i])
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\t':
			out.WriteString(`\t`)
		case r == '\r':
			out.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			fmt.Fprintf(&out, `\x%02x`, r)
		case isShowable(r):
			out.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&out, `\U%08x`, r)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		i += sz
	}
	return clip.String(out.String(), limit)
}

// isShowable reports whether r reads as itself: a graphic character or
// the plain space, and not a line or paragraph separator.
func isShowable(r rune) bool {
	return r == ' ' || (unicode.IsGraphic(r) && !unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf))
}

// checkShowable refuses a text that RenderExcerpt would have changed for
// its characters: the operator stores findings in status and a person
// reads them in a terminal.
func checkShowable(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range s {
		if !isShowable(r) {
			return fmt.Errorf("holds the character %U unescaped (see RenderExcerpt)", r)
		}
	}
	return nil
}

// Validate checks one finding; the error names the field.
func (f *Finding) Validate() error {
	switch {
	case !signalRE.MatchString(f.Signal):
		return fmt.Errorf("signal %q: want 1 to %d of A-Z a-z 0-9 . _ -", f.Signal, MaxFindingSignalBytes)
	case len(f.Field) > MaxFindingFieldBytes:
		return fmt.Errorf("field: longer than %d bytes", MaxFindingFieldBytes)
	case len(f.Excerpt) > MaxFindingExcerptBytes:
		return fmt.Errorf("excerpt: longer than %d bytes", MaxFindingExcerptBytes)
	}
	if err := checkShowable(f.Field); err != nil {
		return fmt.Errorf("field: %w", err)
	}
	if err := checkShowable(f.Excerpt); err != nil {
		return fmt.Errorf("excerpt: %w", err)
	}
	return nil
}

func validateFindings(prefix string, fs []Finding) error {
	if len(fs) == 0 || len(fs) > MaxFindings {
		return fmt.Errorf("%s: %d entries, want 1 to %d", prefix, len(fs), MaxFindings)
	}
	for i := range fs {
		if err := fs[i].Validate(); err != nil {
			return fmt.Errorf("%s[%d].%w", prefix, i, err)
		}
	}
	return nil
}

// Valid reports whether a is an action this gate knows, the empty action
// (Record) included.
func (a FindingAction) Valid() bool {
	switch a {
	case "", FindingRecord, FindingRedact, FindingWithhold, FindingHold:
		return true
	}
	return false
}

// Validate checks a FindingReport whole; the error names the field.
func (r *FindingReport) Validate() error {
	switch {
	case r == nil:
		return errors.New("report: missing")
	case r.Version != Version:
		return fmt.Errorf("report.version %q: this operator speaks %q", r.Version, Version)
	case len(r.Tool) > MaxToolNameLength:
		return fmt.Errorf("report.tool: longer than %d bytes", MaxToolNameLength)
	case !methodRE.MatchString(r.Method):
		return fmt.Errorf("report.method %q: want an MCP method name of at most %d bytes", r.Method, MaxMethodBytes)
	case r.Action != FindingRecord && r.Action != FindingRedact && r.Action != FindingWithhold:
		// A held result is reported by opening it at CallsPath.
		return fmt.Errorf("report.action %q: want %s, %s or %s", r.Action, FindingRecord, FindingRedact, FindingWithhold)
	}
	if _, _, err := SplitServerID(r.Server); err != nil {
		return fmt.Errorf("report.server: %w", err)
	}
	if r.Tool != "" {
		if err := checkShowable(r.Tool); err != nil {
			return fmt.Errorf("report.tool: %w", err)
		}
	}
	return validateFindings("report.findings", r.Findings)
}

var callIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Validate checks a CallRequest whole. It says nothing of whether the call
// may be held: the operator checks that against the pod's configuration.
func (r *CallRequest) Validate() error {
	switch {
	case r == nil:
		return errors.New("call: missing")
	case r.Version != Version:
		return fmt.Errorf("call.version %q: this operator speaks %q", r.Version, Version)
	case !callIDRE.MatchString(r.CallID):
		return fmt.Errorf("call.callID %q: want 1 to 64 of A-Z a-z 0-9 . _ -", r.CallID)
	case r.Tool == "" || len(r.Tool) > MaxToolNameLength:
		return fmt.Errorf("call.tool: want 1 to %d bytes", MaxToolNameLength)
	case !isObjectName(r.Pin):
		return fmt.Errorf("call.pin %q: not a ToolPin name", r.Pin)
	case !fingerprintRE.MatchString(r.Fingerprint):
		return fmt.Errorf("call.fingerprint %q: want sha256: and 64 hex digits", r.Fingerprint)
	case !fingerprintRE.MatchString(r.ArgumentsDigest):
		return fmt.Errorf("call.argumentsDigest %q: want sha256: and 64 hex digits", r.ArgumentsDigest)
	case len(r.ArgumentsPreview) > MaxArgumentsPreview:
		return fmt.Errorf("call.argumentsPreview: longer than %d bytes", MaxArgumentsPreview)
	}
	if _, _, err := SplitServerID(r.Server); err != nil {
		return fmt.Errorf("call.server: %w", err)
	}
	switch {
	case r.HeldBy != HeldByDesignation && r.HeldBy != HeldByRule && r.HeldBy != HeldByLevel:
		return fmt.Errorf("call.heldBy %q: want empty, %q or %q", r.HeldBy, HeldByRule, HeldByLevel)
	case r.HeldBy == HeldByRule && r.Rule == "", len(r.Rule) > MaxRuleNameLength:
		return fmt.Errorf("call.rule: a call held by a rule names it, in at most %d bytes", MaxRuleNameLength)
	case r.HeldBy == HeldByLevel && !levelRE.MatchString(r.Level), r.Level != "" && !levelRE.MatchString(r.Level):
		return fmt.Errorf("call.level %q: want L0 … L5", r.Level)
	case len(r.Reason) > MaxMessageLength:
		return fmt.Errorf("call.reason: longer than %d bytes", MaxMessageLength)
	case r.Kind == CallKindResult && r.HeldBy != HeldByDesignation:
		return errors.New("call.heldBy: a result is held by its findings")
	}
	switch r.Kind {
	case CallKindCall:
		if r.ResultDigest != "" || len(r.Findings) > 0 {
			return errors.New("call.resultDigest, call.findings: set on a call, not a result")
		}
	case CallKindResult:
		if !fingerprintRE.MatchString(r.ResultDigest) {
			return fmt.Errorf("call.resultDigest %q: want sha256: and 64 hex digits", r.ResultDigest)
		}
		return validateFindings("call.findings", r.Findings)
	default:
		return fmt.Errorf("call.kind %q: want empty (a call) or %q", r.Kind, CallKindResult)
	}
	return nil
}

// Validate checks a CallOutcome against the request it answers. An
// approval counts only when it names this call and exactly its arguments;
// req must be the request as sent, but a request that is missing or
// malformed never lets an outcome pass.
func (o *CallOutcome) Validate(req *CallRequest) error {
	switch {
	case o == nil:
		return errors.New("outcome: missing")
	case req == nil:
		return errors.New("outcome: answers no request")
	case !callIDRE.MatchString(o.CallID):
		return fmt.Errorf("outcome.callID %q: want 1 to 64 of A-Z a-z 0-9 . _ -", o.CallID)
	case o.CallID != req.CallID:
		return fmt.Errorf("outcome.callID %q answers another call than %q", o.CallID, req.CallID)
	case o.Verdict != CallApproved && o.Verdict != CallRejected && o.Verdict != CallExpired:
		return fmt.Errorf("outcome.verdict %q: want %s, %s or %s", o.Verdict, CallApproved, CallRejected, CallExpired)
	case o.ArgumentsDigest != "" && !fingerprintRE.MatchString(o.ArgumentsDigest):
		return fmt.Errorf("outcome.argumentsDigest %q: want sha256: and 64 hex digits", o.ArgumentsDigest)
	case o.Verdict == CallApproved && o.ArgumentsDigest == "":
		return errors.New("outcome.argumentsDigest: an approval must name the arguments it covers")
	case o.Verdict == CallApproved && o.ArgumentsDigest != req.ArgumentsDigest:
		return fmt.Errorf("outcome.argumentsDigest %q: the approval covers other arguments than %q", o.ArgumentsDigest, req.ArgumentsDigest)
	case o.ResultDigest != "" && !fingerprintRE.MatchString(o.ResultDigest):
		return fmt.Errorf("outcome.resultDigest %q: want sha256: and 64 hex digits", o.ResultDigest)
	case o.Verdict == CallApproved && req.Kind == CallKindResult && o.ResultDigest == "":
		return errors.New("outcome.resultDigest: a release must name the result it covers")
	case o.Verdict == CallApproved && o.ResultDigest != req.ResultDigest:
		return fmt.Errorf("outcome.resultDigest %q: the release covers another result than %q", o.ResultDigest, req.ResultDigest)
	case len(o.By) > MaxMessageLength || len(o.Comment) > MaxMessageLength:
		return fmt.Errorf("outcome: by or comment longer than %d bytes", MaxMessageLength)
	}
	return nil
}
