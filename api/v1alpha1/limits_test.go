package v1alpha1

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/crdschema"
)

// TestLimitsMatchTheCRDs checks every bound in limits.go against the marker
// it mirrors, as controller-gen wrote it into the CRD.
func TestLimitsMatchTheCRDs(t *testing.T) {
	for _, c := range []struct {
		crd, path, keyword string
		want               int
	}{
		{"toolpins", "spec.toolName", "maxLength", MaxToolNameLength},
		{"mcpservers", "status.tools[].name", "maxLength", MaxToolNameLength},
		{"toolpins", "status.observedDefinition", "maxLength", MaxDefinitionLength},
		{"toolpins", "status.pinned.definition", "maxLength", MaxDefinitionLength},
		{"toolpins", "status.risk.sideEffects", "maxItems", MaxSideEffects},
		{"toolpins", "status.risk.sideEffects[]", "maxLength", MaxSideEffectLength},
		{"toolpins", "status.computedRisk.sideEffects[]", "maxLength", MaxSideEffectLength},
		{"toolpins", "status.risk.floors", "maxItems", MaxFloors},
		{"toolpins", "status.risk.floors[]", "maxLength", MaxFloorLength},
		{"toolpins", "status.risk.reasons", "maxItems", MaxToolReasons},
		{"toolpins", "status.risk.reasons[]", "maxLength", MaxReasonLength},
		{"toolpins", "status.risk.findings", "maxItems", MaxToolFindings},
		{"toolpins", "status.risk.findings[].signal", "maxLength", MaxSignalLength},
		{"toolpins", "status.risk.findings[].field", "maxLength", MaxFieldPathLength},
		{"toolpins", "status.risk.findings[].excerpt", "maxLength", MaxExcerptLength},
		{"mcpservers", "status.risk.reasons", "maxItems", MaxServerReasons},
		{"mcpservers", "status.risk.reasons[]", "maxLength", MaxReasonLength},
		{"mcpservers", "status.risk.findings", "maxItems", MaxServerFindings},
		{"mcpservers", "status.risk.findings[].excerpt", "maxLength", MaxExcerptLength},
		{"mcpservers", "status.tools", "maxItems", MaxToolSummaries},
		{"mcpservers", "status.reach", "maxItems", MaxReachFindings},
		{"mcpservers", "status.reach[]", "maxLength", MaxReachFindingLength},
		{"mcpservers", "status.addresses", "maxItems", MaxAddresses},
		{"mcpservers", "status.addresses[]", "maxLength", MaxAddressLength},
		{"mcpservers", "status.serverInfo.name", "maxLength", MaxServerNameLength},
		{"mcpservers", "status.serverInfo.version", "maxLength", MaxServerVersionLength},
		{"mcpservers", "status.serverInfo.protocolVersion", "maxLength", MaxProtocolVersionLength},
		{"toolpins", "status.pinned.approvers", "maxItems", MaxApprovers},
		{"toolpins", "status.pinned.approvers[]", "maxLength", MaxIdentityLength},
		{"toolpins", "status.decisions[].user", "maxLength", MaxIdentityLength},
		{"toolpins", "status.decisions[].groups", "maxItems", MaxDecisionGroups},
		{"toolpins", "status.decisions[].groups[]", "maxLength", MaxIdentityLength},
		{"toolpins", "status.decisions", "maxItems", MaxDecisions},
		{"toolpins", "spec.override.setBy", "maxLength", MaxIdentityLength},
		{"toolpins", "status.decisions[].uid", "maxLength", MaxIdentityLength},
		{"toolpins", "status.decisions[].credentialID", "maxLength", MaxIdentityLength},
		{"toolpins", "status.pendingCalls", "maxItems", MaxPendingCalls},
		{"toolpins", "status.pendingCalls[].arguments", "maxLength", MaxCallPreviewLength},
		{"toolpins", "status.pendingCalls[].findings", "maxItems", MaxHeldResultFindings},
		{"toolpins", "status.pendingCalls[].findings[].excerpt", "maxLength", MaxExcerptLength},
		{"toolpins", "status.pendingCalls[].findings[].signal", "maxLength", MaxSignalLength},
		{"toolpins", "status.pendingCalls[].findings[].field", "maxLength", MaxFieldPathLength},
		{"toolpolicies", "spec.resultScan.overrides", "maxItems", MaxResultScanOverrides},
		{"toolpins", "status.pendingCalls[].reason", "maxLength", MaxCallReasonLength},
		{"toolpolicies", "spec.argumentRules", "maxItems", MaxArgumentRules},
		{"toolpolicies", "status.argumentRules", "maxItems", MaxArgumentRuleProblems},
		{"toolpins", "status.callHistory", "maxItems", MaxCallHistory},
		{"toolpins", "status.callHistory[].decisions", "maxItems", MaxCallRecordDecisions},
		{"toolpins", "status.change.details", "maxItems", MaxChangeDetails},
		{"toolpins", "status.change.details[]", "maxLength", MaxChangeDetailLength},
		{"toolpins", "status.change.parts", "maxItems", MaxChangeParts},
		{"toolpins", "status.observedOrigin", "maxLength", MaxOriginLength},
		{"toolpins", "status.pinned.origin", "maxLength", MaxOriginLength},
		{"toolpins", "status.change.parts[]", "maxLength", MaxChangePartLength},
		{"toolpolicies", "status.tools", "maxItems", MaxPolicyTools},
		{"toolpolicies", "status.tools[].reason", "maxLength", MaxPolicyReasonLength},
	} {
		t.Run(c.crd+"/"+c.path, func(t *testing.T) {
			node := crdschema.Field(t, c.crd, c.path)
			got := map[string]*int64{"maxLength": node.MaxLength, "maxItems": node.MaxItems}[c.keyword]
			if got == nil {
				t.Fatalf("%s %s has no %s", c.crd, c.path, c.keyword)
			}
			if int(*got) != c.want {
				t.Errorf("%s %s: the CRD says %s %d, limits.go says %d", c.crd, c.path, c.keyword, *got, c.want)
			}
		})
	}
}

// TestDefaultsMatchTheCRDs checks every default in defaults.go against the
// marker it mirrors.
func TestDefaultsMatchTheCRDs(t *testing.T) {
	for _, c := range []struct {
		crd, path string
		want      any
	}{
		{"mcpservers", "spec.transport", string(DefaultTransport)},
		{"mcpservers", "spec.catalogTrust", string(DefaultCatalogTrust)},
		{"mcpservers", "spec.firstUse", string(DefaultFirstUse)},
		{"mcpservers", "spec.endpoint.service.path", DefaultServicePath},
		{"mcpservers", "spec.endpoint.service.scheme", DefaultServiceScheme},
		{"mcpservers", "spec.probe.interval", DefaultProbeInterval},
		{"mcpservers", "spec.probe.timeout", DefaultProbeTimeout},
		{"mcpservers", "spec.probe.maxTools", float64(DefaultMaxTools)},
		{"mcpservers", "spec.consumers.from", string(DefaultConsumersFrom)},
		{"toolpolicies", "spec.agentTrustLevel", float64(DefaultAgentTrustLevel)},
		{"toolpolicies", "spec.mode", string(DefaultPolicyMode)},
		{"toolpolicies", "spec.approval.timeout", DefaultApprovalTimeout},
	} {
		t.Run(c.crd+"/"+c.path, func(t *testing.T) {
			node := crdschema.Field(t, c.crd, c.path)
			if node.Default == nil {
				t.Fatalf("%s %s has no default", c.crd, c.path)
			}
			var got any
			if err := json.Unmarshal(node.Default.Raw, &got); err != nil {
				t.Fatal(err)
			}
			if want, isDuration := c.want.(time.Duration); isDuration {
				s, _ := got.(string)
				d, err := time.ParseDuration(s)
				if err != nil || d != want {
					t.Errorf("%s %s: the CRD's default is %v, defaults.go says %s", c.crd, c.path, got, want)
				}
				return
			}
			if got != c.want {
				t.Errorf("%s %s: the CRD's default is %v, defaults.go says %v", c.crd, c.path, got, c.want)
			}
		})
	}
}
