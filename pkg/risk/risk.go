package risk

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Level is a rung of the ladder L0 (verified) … L5 (critical).
type Level int

// The six levels.
const (
	L0 Level = iota
	L1
	L2
	L3
	L4
	L5
)

// String renders a level as "L0" … "L5".
func (l Level) String() string {
	if l >= L0 && l <= L5 {
		return [...]string{"L0", "L1", "L2", "L3", "L4", "L5"}[l]
	}
	return fmt.Sprintf("L%d", int(l))
}

// ParseLevel reads "L0" … "L5".
func ParseLevel(s string) (Level, error) {
	if len(s) == 2 && (s[0] == 'L' || s[0] == 'l') && s[1] >= '0' && s[1] <= '5' {
		return Level(s[1] - '0'), nil
	}
	return 0, fmt.Errorf("level %q is not one of L0, L1, L2, L3, L4, L5", s)
}

// RiskLevelOf maps a level to SEP-2793's riskLevel: L0–L2 low, L3 medium,
// L4 high, L5 critical.
func RiskLevelOf(l Level) string {
	switch {
	case l >= L5:
		return "critical"
	case l == L4:
		return "high"
	case l == L3:
		return "medium"
	}
	return "low"
}

// levelOfRisk maps SEP-2793's riskLevel to the lowest level of its band.
func levelOfRisk(r string) (Level, bool) {
	switch r {
	case "low":
		return L1, true
	case "medium":
		return L3, true
	case "high":
		return L4, true
	case "critical":
		return L5, true
	}
	return 0, false
}

// Posture is what is known of the server a tool comes from. The zero value
// means "unknown": no posture rule fires on it.
type Posture struct {
	// URL of the server, for remote servers; empty for unknown or stdio.
	URL string
	// Transport is "stdio", "streamable-http" or "sse"; empty if unknown.
	Transport string
	// Authenticated says the client presents credentials to the server.
	Authenticated bool
	// Trust is Unknown, Community, Vendor or Internal; empty means Unknown.
	Trust string
	// InCluster is true for a server reached through a cluster Service.
	InCluster bool
	// Reach is what the server's own identity may do where it runs.
	Reach Reach
}

// Transports a Posture names.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// ServerAssessment is the risk of a server's posture.
type ServerAssessment struct {
	Level   Level
	Floor   string
	Reasons []string
	// Reach is the posture's, carried to the judgement of each tool.
	Reach Reach
}

// AssessServer scores a server's posture: transport, authentication, host
// and catalogue trust. A remote, unauthenticated server at a host that is
// not known to be local or in-cluster is floored at L5.
func AssessServer(p Posture) ServerAssessment {
	a := ServerAssessment{Reach: p.Reach}
	raise := func(l Level, why string) {
		if l > a.Level {
			a.Level = l
		}
		a.Reasons = append(a.Reasons, why)
	}
	// Any trust value but the three known ones is Unknown, for the floor
	// below as for the score.
	trust := p.Trust
	switch trust {
	case "Internal", "Vendor", "Community":
	default:
		trust = "Unknown"
	}
	switch trust {
	case "Internal":
		a.Reasons = append(a.Reasons, "catalogue trust Internal")
	case "Vendor":
		raise(L1, "catalogue trust Vendor")
	case "Community":
		raise(L2, "catalogue trust Community")
	default:
		raise(L3, "catalogue trust Unknown")
	}
	if p.URL == "" {
		return a
	}
	u, err := url.Parse(p.URL)
	if err != nil || u.Host == "" {
		raise(L5, "server URL cannot be parsed")
		a.Floor = "server URL cannot be parsed"
		return a
	}
	local := isLocalHost(strings.ToLower(u.Hostname())) || p.InCluster
	if u.Scheme == "http" && !local {
		raise(L4, "plain HTTP to a remote host")
	}
	if p.Transport == TransportSSE {
		raise(L2, "deprecated SSE transport")
	}
	if !p.Authenticated {
		if !local && trust == "Unknown" {
			a.Floor = "remote unauthenticated server at an unknown host"
			raise(L5, a.Floor)
		} else {
			raise(L2, "no authentication")
		}
	}
	return a
}

func isLocalHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".svc") || strings.HasSuffix(host, ".svc.cluster.local") || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return false
}

// SEP holds the SEP-2793 fields of a judgement.
type SEP struct {
	RiskLevel              string   `json:"riskLevel"`
	Category               string   `json:"category"`
	BlastRadius            string   `json:"blastRadius"`
	Reversibility          string   `json:"reversibility"`
	SideEffects            []string `json:"sideEffects"`
	ApprovalRecommendation string   `json:"approvalRecommendation"`
	MinTrustLevel          int      `json:"minTrustLevel"`
}

// Finding is a poisoning scan hit, as the scoring sees it.
type Finding struct {
	Signal  string `json:"signal"`
	Field   string `json:"field"`
	Excerpt string `json:"excerpt"`
}

// Input is everything the judgement of one tool uses.
type Input struct {
	Tool *tooldef.Tool
	// Server is the server's posture judgement (AssessServer).
	Server ServerAssessment
	// Findings are the poisoning scan's hits on the tool.
	Findings []Finding
	// ApprovalGated says every call of the tool waits for a human; it earns
	// the one-band credit shown as EffectiveLevel.
	ApprovalGated bool
	// Domain is what the tool's catalogue as a whole is about (ReadDomain):
	// it names a category or raises, never lowers.
	Domain Domain
}

// Assessment is the judgement of one tool.
type Assessment struct {
	Level          Level
	EffectiveLevel Level
	SEP            SEP
	Floors         []string
	Reasons        []string
	// Disagreements list declared metadata that claims less risk than
	// toolgate infers; they never lower the judgement.
	Disagreements []string
	Findings      []Finding
}
