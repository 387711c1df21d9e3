package scan

import (
	"reflect"
	"testing"
)

// TestAgentScannerIsNew checks that Agent builds the Scanner New builds from
// the other servers' names, as a caller vetting servers together lists them.
func TestAgentScannerIsNew(t *testing.T) {
	servers := []AgentServer{
		{ID: "a", Tools: []string{"read_file", "send_email", "x"}},
		{ID: "b", Tools: []string{"read_file", "Iist_files", "reаd_file"}},
		{ID: "a", Tools: []string{"list_files"}},
		{ID: "c", Tools: []string{"query", "send_email"}},
		{ID: "d"},
	}
	agent := NewAgent(servers)
	for _, id := range []string{"a", "b", "c", "d", "none"} {
		own := map[string]bool{}
		for _, s := range servers {
			if s.ID == id {
				for _, n := range s.Tools {
					own[n] = true
				}
			}
		}
		var other []string
		for _, s := range servers {
			for _, n := range s.Tools {
				if s.ID != id && !own[n] {
					other = append(other, n)
				}
			}
		}
		got, want := agent.Scanner(id), New(Options{OtherTools: other})
		if got.sh.f1 != want.sh.f1 || got.sh.f2 != want.sh.f2 || !reflect.DeepEqual(got.sh.candidates(), want.sh.candidates()) || !reflect.DeepEqual(got.names, want.names) {
			t.Errorf("server %s: the Agent's Scanner differs from New's", id)
		}
	}
	if s := NewAgent([]AgentServer{{ID: "only", Tools: []string{"a"}}}).Scanner("only"); s.sh != nil || s.names != nil {
		t.Error("a server alone must get a Scanner without other names")
	}
}

// candidates are the names, by length, that the shadower compares a word
// with: what it holds less what it skips.
func (sh *shadower) candidates() [maxByLen][]string {
	var out [maxByLen][]string
	for k, list := range sh.byLen {
		for _, n := range list {
			if !sh.skipped(n.id) {
				out[k] = append(out[k], n.name)
			}
		}
	}
	return out
}
