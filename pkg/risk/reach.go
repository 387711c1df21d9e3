package risk

import (
	"fmt"
	"strings"
)

// Reach is what a server's own identity may do where it runs, as the
// platform answered when asked (for a server in Kubernetes: access reviews
// of its service account). A tool can do no more than its server may, and
// whatever its parameters say, it may do as much: a state-changing tool of
// a server that may change things in every namespace reaches the cluster.
// The zero value means nothing is known, and widens nothing.
type Reach struct {
	// ClusterWide says the identity may change state in every namespace
	// (delete pods, patch deployments, exec, delete namespaces, grant
	// cluster-wide permissions).
	ClusterWide bool `json:"clusterWide,omitempty"`
	// Secrets says the identity may read secrets in every namespace.
	Secrets bool `json:"secrets,omitempty"`
	// Findings say in words what the identity may do; they become the
	// reasons of the widened judgements.
	Findings []string `json:"findings,omitempty"`
}

// Known says whether the reach widens anything.
func (r Reach) Known() bool { return r.ClusterWide || r.Secrets }

// ParseReach reads the comma-separated capabilities "cluster-wide" and
// "secrets", as the CLI takes them, so that a catalogue scored offline
// meets the same judgement as in the operator.
func ParseReach(s string) (Reach, error) {
	var r Reach
	for _, part := range strings.Split(s, ",") {
		switch strings.TrimSpace(part) {
		case "":
		case "cluster-wide":
			r.ClusterWide = true
			r.Findings = append(r.Findings, "may change state in every namespace")
		case "secrets":
			r.Secrets = true
			r.Findings = append(r.Findings, "may read secrets in every namespace")
		default:
			return Reach{}, fmt.Errorf("reach %q: want cluster-wide or secrets", part)
		}
	}
	return r, nil
}

// widen lays the server's reach over one tool's judgement: it returns the
// blast radius and the reasons to add, and adds the side effects.
func (r Reach) widen(act action, blast string, sideEffects map[string]bool) (string, []string) {
	if !r.Known() {
		return blast, nil
	}
	why := "the server's identity " + strings.Join(r.Findings, "; ")
	switch act.category() {
	case "mutate", "delete", "destroy":
		if r.ClusterWide && blastOrder[blast] < blastOrder["cluster"] {
			return "cluster", []string{"blast radius cluster: " + why}
		}
	default:
		if r.Secrets && !sideEffects["data_exfiltration"] {
			sideEffects["data_exfiltration"] = true
			return blast, []string{"may reveal secrets: " + why}
		}
	}
	return blast, nil
}
