package vet

import (
	"fmt"
	"slices"

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
	total := 0
	for _, s := range servers {
		total += len(s.Catalogue.Tools)
	}
	// Made at their size: a report of every tool grown by append cost
	// about as much memory again in the copies it left behind.
	report := Report{Servers: make([]ServerReport, 0, len(servers)), Tools: make([]ToolReport, 0, total)}

	// Which servers offer each tool name offered more than once: a name on
	// two servers lets one shadow the other. Most names are offered once,
	// and are only counted.
	offers := make(map[string]int, total)
	agentServers := make([]scan.AgentServer, len(servers))
	for i, s := range servers {
		names := make([]string, len(s.Catalogue.Tools))
		for j, t := range s.Catalogue.Tools {
			offers[t.Name]++
			names[j] = t.Name
		}
		agentServers[i] = scan.AgentServer{ID: s.Name, Tools: names}
	}
	offeredBy := map[string][]string{}
	for _, s := range servers {
		for _, t := range s.Catalogue.Tools {
			if offers[t.Name] > 1 {
				offeredBy[t.Name] = append(offeredBy[t.Name], s.Name)
			}
		}
	}
	// Each server's tools are scanned for the names of the others (see
	// scan.Agent.Scanner): a server describing its own tool is not
	// shadowing, even when another server uses the same name; that overlap
	// is reported as a name collision instead.
	agent := scan.NewAgent(agentServers)

	// One buffer of texts serves every tool: Scan keeps nothing of it.
	var texts []scan.Text
	for _, s := range servers {
		posture := risk.AssessServer(s.Posture)
		sr := ServerReport{Server: s.Name, Reasons: nonNil(posture.Reasons), Findings: []risk.Finding{}, Tools: len(s.Catalogue.Tools)}
		scanner := agent.Scanner(s.Name)
		// What the catalogue as a whole is about raises what its tools say
		// alone (a secret store's "item" is a secret).
		domain := risk.ReadDomain(s.Catalogue.Tools)
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
			var findings []risk.Finding
			findings, texts = scanTool(scanner, t, texts[:0])
			if len(offeredBy[t.Name]) > 1 {
				findings = append(findings, risk.Finding{
					Signal: "name-collision", Field: "name",
					Excerpt: fmt.Sprintf("%q is also offered by %v", t.Name, without(offeredBy[t.Name], s.Name)),
				})
			}
			// Findings in the server's instructions forfeit the approval-gate
			// credit as the tool's own do.
			gated := s.ApprovalGated[t.Name] && len(sr.Findings) == 0
			a := risk.Assess(risk.Input{Tool: t, Server: posture, Findings: findings, ApprovalGated: gated, Domain: domain})
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

// scanTool scans every string of a definition a client may show the model:
// the name, title and description, both schemas whole, the annotations
// beyond the four hints, _meta, and any top-level field MCP does not define
// (all of them are in the fingerprint, so all of them are read). It
// collects the texts into buf and returns buf for the next tool.
func scanTool(scanner *scan.Scanner, t *tooldef.Tool, buf []scan.Text) ([]risk.Finding, []scan.Text) {
	texts := append(buf, scan.Text{Field: "name", Value: t.Name}, scan.Text{Field: "title", Value: t.Title}, scan.Text{Field: "description", Value: t.Description})
	if title, ok := t.Annotations.Get("title").(string); ok && title != t.Title {
		texts = append(texts, scan.Text{Field: "annotations.title", Value: title})
	}
	texts = scan.AppendSchemaTexts(texts, "inputSchema", t.InputSchema)
	texts = scan.AppendSchemaTexts(texts, "outputSchema", t.OutputSchema)
	// Members in their sorted order, so that findings come out in the same
	// order on every probe.
	for _, m := range t.Annotations.Members() {
		if !slices.Contains(knownAnnotations, m.Key) {
			texts = scan.AppendMemberTexts(texts, "annotations", m.Key, m.Value)
		}
	}
	for _, m := range t.Object.Members() {
		if !slices.Contains(knownParts, m.Key) {
			texts = scan.AppendMemberTexts(texts, "", m.Key, m.Value)
		}
	}
	var out []risk.Finding
	for _, f := range scanner.Scan(texts) {
		out = append(out, risk.Finding(f))
	}
	readOnly := t.Declared["readOnlyHint"] && t.Hint("readOnlyHint")
	notDestructive := t.Declared["destructiveHint"] && !t.Hint("destructiveHint")
	for _, f := range scan.MisleadingAnnotations(t.Name, t.Description, readOnly, notDestructive) {
		out = append(out, risk.Finding(f))
	}
	// Not cleared for the next tool: what it holds beyond the next tool's
	// texts is the catalogues' strings, alive until Vet returns anyway,
	// and one tool's paths, and clearing memory that holds pointers costs
	// a write barrier per word while the collector marks.
	return out, texts
}

// The annotations and the members of a definition scanned on their own
// before the rest of each is scanned as data.
var (
	knownAnnotations = []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	knownParts       = []string{tooldef.PartName, tooldef.PartTitle, tooldef.PartDescription, tooldef.PartInputSchema, tooldef.PartOutputSchema, tooldef.PartAnnotations}
)

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
