package risk

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

func TestReachWidensTheJudgement(t *testing.T) {
	restart := `{"name":"restart_pod","description":"Restarts one pod by deleting it; its controller recreates it."}`
	get := `{"name":"get_pod","description":"Gets one pod of a namespace by its name."}`
	clusterWide := Reach{ClusterWide: true, Findings: []string{"can delete pods in every namespace"}}
	secrets := Reach{Secrets: true, Findings: []string{"can read secrets in every namespace"}}
	for _, c := range []struct {
		name, def    string
		reach        Reach
		blast        string
		minLevel     Level
		exfiltration bool
	}{
		{"a state change of a cluster-wide identity reaches the cluster", restart, clusterWide, "cluster", L4, false},
		{"a read is not widened by rights to change", get, clusterWide, "", L0, false},
		{"a read of an identity that reads every secret may reveal them", get, secrets, "", L0, true},
		{"nothing known widens nothing", restart, Reach{}, "", L0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool, err := tooldef.ParseTool([]byte(c.def))
			if err != nil {
				t.Fatal(err)
			}
			without := Assess(Input{Tool: tool})
			with := Assess(Input{Tool: tool, Server: AssessServer(Posture{Reach: c.reach})})
			wantBlast := c.blast
			if wantBlast == "" {
				wantBlast = without.SEP.BlastRadius
			}
			if with.SEP.BlastRadius != wantBlast {
				t.Errorf("blast radius %s, want %s", with.SEP.BlastRadius, wantBlast)
			}
			if with.Level < c.minLevel || with.Level < without.Level {
				t.Errorf("level %s (without reach %s), want at least %s", with.Level, without.Level, c.minLevel)
			}
			if got := slices.Contains(with.SEP.SideEffects, "data_exfiltration"); got != c.exfiltration {
				t.Errorf("data_exfiltration side effect %v, want %v", got, c.exfiltration)
			}
			// The approval and trust fields follow the level, as for any
			// other judgement; riskLevel grades what the tool does apart from
			// the level, which is never below the band of a high or critical
			// riskLevel.
			band, _ := levelOfRisk(with.SEP.RiskLevel)
			if band >= L4 && with.Level < band || with.SEP.ApprovalRecommendation != approvalFor(with.Level) && with.SEP.ApprovalRecommendation != "multi" ||
				with.SEP.MinTrustLevel < trustFor(with.Level) {
				t.Errorf("SEP fields %+v out of step with level %s", with.SEP, with.Level)
			}
		})
	}
}

func TestParseReach(t *testing.T) {
	r, err := ParseReach("cluster-wide, secrets")
	if err != nil || !r.ClusterWide || !r.Secrets || len(r.Findings) != 2 {
		t.Errorf("ParseReach = %+v, %v", r, err)
	}
	if r, err := ParseReach(""); err != nil || r.Known() {
		t.Errorf("ParseReach(\"\") = %+v, %v", r, err)
	}
	if _, err := ParseReach("root"); err == nil {
		t.Error("an unknown capability must be refused")
	}
}
