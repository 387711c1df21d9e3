package gateproto

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Bounds a configuration must keep. The gate refuses a configuration that
// breaks one: a bug or a compromise on the operator's side must not make
// the gate allocate without limit.
const (
	MaxServers          = 32
	MaxToolsPerServer   = 4096
	MaxToolNameLength   = 128
	MaxHeaders          = 32
	MaxHeaderBytes      = 16 << 10
	MaxCAPEMBytes       = 64 << 10
	MaxMessageLength    = 1024
	MaxFrameBytes       = 16 << 20
	MaxPolicies         = 64
	MaxArgumentsPreview = 4096
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
	if c.Mode != ModeEnforce && c.Mode != ModeAudit {
		return fmt.Errorf("config.mode %q: want %s or %s", c.Mode, ModeEnforce, ModeAudit)
	}
	if len(c.Policies) > MaxPolicies {
		return fmt.Errorf("config.policies: %d entries, at most %d", len(c.Policies), MaxPolicies)
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
	}
	if s.Upstream != nil {
		if err := s.Upstream.validate(); err != nil {
			return fmt.Errorf("upstream.%w", err)
		}
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
	for k, v := range u.Headers {
		size += len(k) + len(v)
		if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("headers: %q is not a valid HTTP header", k)
		}
	}
	if size > MaxHeaderBytes {
		return fmt.Errorf("headers: %d bytes, at most %d", size, MaxHeaderBytes)
	}
	if len(u.CAPEM) > MaxCAPEMBytes {
		return fmt.Errorf("caPEM: %d bytes, at most %d", len(u.CAPEM), MaxCAPEMBytes)
	}
	return nil
}

func (t *Tool) validate(serverReady bool) error {
	if t.Name == "" || len(t.Name) > MaxToolNameLength {
		return fmt.Errorf("name %q: want 1 to %d bytes", t.Name, MaxToolNameLength)
	}
	if len(t.Message) > MaxMessageLength || len(t.ApprovalRule) > MaxMessageLength {
		return fmt.Errorf("tool %q: message or approvalRule longer than %d bytes", t.Name, MaxMessageLength)
	}
	if t.Fingerprint != "" && !fingerprintRE.MatchString(t.Fingerprint) {
		return fmt.Errorf("fingerprint %q: want sha256: and 64 hex digits", t.Fingerprint)
	}
	for field, l := range map[string]string{"level": t.Level, "effectiveLevel": t.EffectiveLevel} {
		if l != "" && !levelRE.MatchString(l) {
			return fmt.Errorf("%s %q: want L0 … L5", field, l)
		}
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
		if t.AuditForwardable && (t.Fingerprint == "" || !serverReady) {
			return fmt.Errorf("tool %q: audit-forwardable without a fingerprint on a ready server", t.Name)
		}
	default:
		return fmt.Errorf("decision %q: want %s, %s or %s", t.Decision, DecisionExposed, DecisionApprovalGated, DecisionWithheld)
	}
	return nil
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

// MaxCallRequestBytes bounds a CallRequest as sent.
const MaxCallRequestBytes = 16 << 10

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
	case r.Pin == "" || len(r.Pin) > 253 || !serverNameRE.MatchString(r.Pin):
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
	return nil
}

// Validate checks a CallOutcome against the request it answers.
func (o *CallOutcome) Validate(req *CallRequest) error {
	switch {
	case o == nil:
		return errors.New("outcome: missing")
	case o.CallID != req.CallID:
		return fmt.Errorf("outcome.callID %q answers another call than %q", o.CallID, req.CallID)
	case o.Verdict != CallApproved && o.Verdict != CallRejected && o.Verdict != CallExpired:
		return fmt.Errorf("outcome.verdict %q: want %s, %s or %s", o.Verdict, CallApproved, CallRejected, CallExpired)
	case o.Verdict == CallApproved && o.ArgumentsDigest != req.ArgumentsDigest:
		return fmt.Errorf("outcome.argumentsDigest %q: the approval covers other arguments than %q", o.ArgumentsDigest, req.ArgumentsDigest)
	case len(o.By) > MaxMessageLength || len(o.Comment) > MaxMessageLength:
		return fmt.Errorf("outcome: by or comment longer than %d bytes", MaxMessageLength)
	}
	return nil
}
