package vet

import (
	"fmt"

	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/scan"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Server is one server's catalogue with what is known of its posture.
type Server struct {
	// Name identifies the server in the report (a file name, a
	// namespace/name).
	Name      string
	Catalogue *tooldef.Catalogue
	Posture   risk.Posture
	// ApprovalGated names tools whose every call waits for a human.
	ApprovalGated map[string]bool
}

// Report is the verdict on a set of servers offered to one agent.
type Report struct {
	Servers []ServerReport `json:"servers"`
	Tools   []ToolReport   `json:"tools"`
}

// ServerReport is the verdict on one server's posture and instructions.
type ServerReport struct {
	Server   string         `json:"server"`
	Level    string         `json:"level"`
	Floor    string         `json:"floor,omitempty"`
	Reasons  []string       `json:"reasons"`
	Findings []risk.Finding `json:"findings"`
	Tools    int            `json:"tools"`
}

// ToolReport is the verdict on one tool.
type ToolReport struct {
	Server         string            `json:"server"`
	Name           string            `json:"name"`
	Fingerprint    string            `json:"fingerprint"`
	Parts          map[string]string `json:"parts"`
	Level          string            `json:"level"`
	EffectiveLevel string            `json:"effectiveLevel"`
	Risk           risk.SEP          `json:"risk"`
	Floors         []string          `json:"floors"`
	Reasons        []string          `json:"reasons"`
	Findings       []risk.Finding    `json:"findings"`
	Disagreements  []string          `json:"disagreements"`

	level risk.Level
}

// LevelValue returns the tool's inherent level.
func (t ToolReport) LevelValue() risk.Level { return t.level }

// Vet judges the servers together.
func Vet(servers []Server) Report {
	report := Report{Servers: []ServerReport{}, Tools: []ToolReport{}}

	// Which servers offer each tool name: a name on two servers lets one
	// shadow the other.
	offeredBy := map[string][]string{}
	for _, s := range servers {
		for _, t := range s.Catalogue.Tools {
			offeredBy[t.Name] = append(offeredBy[t.Name], s.Name)
		}
	}

	for _, s := range servers {
		posture := risk.AssessServer(s.Posture)
		sr := ServerReport{Server: s.Name, Reasons: nonNil(posture.Reasons), Findings: []risk.Finding{}, Tools: len(s.Catalogue.Tools)}
		scanner := scan.New(scan.Options{OtherTools: otherTools(servers, s.Name)})
		if s.Catalogue.Instructions != "" {
			for _, f := range scanner.Scan([]scan.Text{{Field: "instructions", Value: s.Catalogue.Instructions}}) {
				sr.Findings = append(sr.Findings, risk.Finding(f))
			}
			// The instructions are judged as a tool's text is: a sensitive
			// path adds one level, any other finding floors the server.
			for _, f := range sr.Findings {
				if f.Signal == scan.SignalSensitivePath {
					posture.Level = min(posture.Level+1, risk.L5)
					posture.Reasons = append(posture.Reasons, "the server's instructions name a sensitive path")
					continue
				}
				posture.Level = risk.L5
				posture.Floor = fmt.Sprintf("poisoning in the server's instructions: %s", f.Signal)
				posture.Reasons = append(posture.Reasons, posture.Floor)
				break
			}
			sr.Reasons = posture.Reasons
		}
		sr.Level, sr.Floor = posture.Level.String(), posture.Floor
		report.Servers = append(report.Servers, sr)

		for _, t := range s.Catalogue.Tools {
			findings := scanTool(scanner, t)
			if len(offeredBy[t.Name]) > 1 {
				findings = append(findings, risk.Finding{
					Signal: "name-collision", Field: "name",
					Excerpt: fmt.Sprintf("%q is also offered by %v", t.Name, without(offeredBy[t.Name], s.Name)),
				})
			}
			// Findings in the server's instructions forfeit the approval-gate
			// credit as the tool's own do.
			gated := s.ApprovalGated[t.Name] && len(sr.Findings) == 0
			a := risk.Assess(risk.Input{Tool: t, Server: posture, Findings: findings, ApprovalGated: gated})
			report.Tools = append(report.Tools, ToolReport{
				Server: s.Name, Name: t.Name, Fingerprint: t.Fingerprint(), Parts: t.PartDigests(),
				Level: a.Level.String(), EffectiveLevel: a.EffectiveLevel.String(), Risk: a.SEP,
				Floors: nonNil(a.Floors), Reasons: nonNil(a.Reasons), Findings: nonNilFindings(a.Findings),
				Disagreements: nonNil(a.Disagreements), level: a.Level,
			})
		}
	}
	return report
}

// scanTool scans every string of a definition the model will read.
func scanTool(scanner *scan.Scanner, t *tooldef.Tool) []risk.Finding {
	texts := []scan.Text{{Field: "title", Value: t.Title}, {Field: "description", Value: t.Description}}
	if title, ok := t.Annotations["title"].(string); ok && title != t.Title {
		texts = append(texts, scan.Text{Field: "annotations.title", Value: title})
	}
	texts = append(texts, scan.SchemaTexts("inputSchema", t.InputSchema)...)
	texts = append(texts, scan.SchemaTexts("outputSchema", t.OutputSchema)...)
	var out []risk.Finding
	for _, f := range scan.NameFindings(t.Name) {
		out = append(out, risk.Finding(f))
	}
	for _, f := range scanner.Scan(texts) {
		out = append(out, risk.Finding(f))
	}
	return out
}

func otherTools(servers []Server, except string) []string {
	var names []string
	for _, s := range servers {
		if s.Name == except {
			continue
		}
		for _, t := range s.Catalogue.Tools {
			names = append(names, t.Name)
		}
	}
	return names
}

func without(list []string, drop string) []string {
	var out []string
	for _, l := range list {
		if l != drop {
			out = append(out, l)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilFindings(f []risk.Finding) []risk.Finding {
	if f == nil {
		return []risk.Finding{}
	}
	return f
}
