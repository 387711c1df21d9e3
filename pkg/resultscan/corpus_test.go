package resultscan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// corpusItem is one line of a corpus file (testdata/README.md).
type corpusItem struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Class   string          `json:"class"`
	Lang    string          `json:"lang"`
	Carrier string          `json:"carrier"`
	Text    *string         `json:"text"`
	Result  json.RawMessage `json:"result"`
	Note    string          `json:"note"`
}

func (it *corpusItem) size() int {
	if it.Text != nil {
		return len(*it.Text)
	}
	return len(it.Result)
}

func loadCorpus(t *testing.T, path string) []corpusItem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []corpusItem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var it corpusItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if (it.Text == nil) == (it.Result == nil) || it.Kind != "attack" && it.Kind != "benign" {
			t.Fatalf("%s:%d (%s): an item has a kind and one of text and result", path, n, it.ID)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}

// agentTools is the catalogue the corpus is judged against: an agent with
// the tools of a code host, a mailbox, a shell, a file system, a bank and a
// chat, as a platform team might give one.
var agentTools = []string{
	"create_issue", "add_comment", "create_pull_request", "merge_pull_request", "delete_repository",
	"delete_branch", "push_files", "create_repository", "list_issues", "search_code",
	"send_email", "read_email", "list_emails", "forward_email", "delete_email",
	"run_command", "execute_command", "shell", "exec", "run_script",
	"read_file", "write_file", "delete_file", "list_directory", "move_file",
	"transfer_funds", "get_balance", "create_payment", "send_message", "post_message",
	"fetch", "browse", "search", "http_request", "query", "execute_sql",
	"create_user", "update_permissions", "get_secret", "set_secret",
}

// judged scans one item as the gate would: a text as the one text of a
// tool result, a whole result as the result of a response.
func judged(s *Scanner, it *corpusItem) Report {
	var r Report
	if it.Text != nil {
		s.Text(&r, "result.content[0].text", *it.Text)
		return r
	}
	msg := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), it.Result...), '}')
	if err := s.Message(&r, msg); err != nil {
		r.Findings = append(r.Findings, Finding{Signal: "unreadable"})
	}
	return r
}

type tally struct{ n, hit int }

func (t tally) pct() float64 {
	if t.n == 0 {
		return 0
	}
	return 100 * float64(t.hit) / float64(t.n)
}

type figures struct {
	attacks, benign tally
	byClass         map[string]*tally
	byLang          map[string]*[2]tally
	bySize          map[string]*[2]tally
	misses, falses  []string
}

func sizeBand(n int) string {
	switch {
	case n < 500:
		return "a <500B"
	case n < 2000:
		return "b 500B-2KB"
	case n < 4096:
		return "c 2-4KB"
	case n < 12288:
		return "d 4-12KB"
	}
	return "e 12-20KB"
}

func measure(items []corpusItem) figures {
	s := New(Options{AgentTools: agentTools})
	f := figures{byClass: map[string]*tally{}, byLang: map[string]*[2]tally{}, bySize: map[string]*[2]tally{}}
	for i := range items {
		it := &items[i]
		r := judged(s, it)
		hit := len(r.Findings) > 0
		k := 0
		tl := &f.attacks
		if it.Kind == "benign" {
			k, tl = 1, &f.benign
		}
		tl.n++
		cl := f.byClass[it.Kind+"/"+it.Class]
		if cl == nil {
			cl = &tally{}
			f.byClass[it.Kind+"/"+it.Class] = cl
		}
		cl.n++
		if f.byLang[it.Lang] == nil {
			f.byLang[it.Lang] = &[2]tally{}
		}
		if f.bySize[sizeBand(it.size())] == nil {
			f.bySize[sizeBand(it.size())] = &[2]tally{}
		}
		f.byLang[it.Lang][k].n++
		f.bySize[sizeBand(it.size())][k].n++
		if hit {
			tl.hit++
			cl.hit++
			f.byLang[it.Lang][k].hit++
			f.bySize[sizeBand(it.size())][k].hit++
		}
		switch {
		case it.Kind == "attack" && !hit:
			f.misses = append(f.misses, it.ID+" "+it.Class+"/"+it.Lang)
		case it.Kind == "benign" && hit:
			var sigs []string
			for _, x := range r.Findings {
				sigs = append(sigs, x.Signal+": "+x.Excerpt)
			}
			f.falses = append(f.falses, it.ID+" "+it.Class+"/"+it.Lang+" "+strings.Join(sigs, " | "))
		}
	}
	return f
}

func (f figures) report(t *testing.T, name string, details bool) {
	t.Logf("%s: attacks caught %d/%d (%.1f%%), benign look-alikes flagged %d/%d (%.1f%%)",
		name, f.attacks.hit, f.attacks.n, f.attacks.pct(), f.benign.hit, f.benign.n, f.benign.pct())
	keys := func(m any) []string {
		var out []string
		switch m := m.(type) {
		case map[string]*tally:
			for k := range m {
				out = append(out, k)
			}
		case map[string]*[2]tally:
			for k := range m {
				out = append(out, k)
			}
		}
		sort.Strings(out)
		return out
	}
	var b strings.Builder
	for _, k := range keys(f.byClass) {
		c := f.byClass[k]
		fmt.Fprintf(&b, "  %-40s %3d/%-3d %5.1f%%\n", k, c.hit, c.n, c.pct())
	}
	for _, k := range keys(f.byLang) {
		c := f.byLang[k]
		fmt.Fprintf(&b, "  lang %-6s caught %3d/%-3d flagged %3d/%-3d\n", k, c[0].hit, c[0].n, c[1].hit, c[1].n)
	}
	for _, k := range keys(f.bySize) {
		c := f.bySize[k]
		fmt.Fprintf(&b, "  size %-10s caught %3d/%-3d flagged %3d/%-3d\n", k[2:], c[0].hit, c[0].n, c[1].hit, c[1].n)
	}
	t.Log("\n" + b.String())
	if details {
		t.Logf("missed:\n  %s", strings.Join(f.misses, "\n  "))
		t.Logf("flagged look-alikes:\n  %s", strings.Join(f.falses, "\n  "))
	}
}

// The targets on the development set: at least 95% of the attacks caught
// and at most 1% of the look-alikes flagged. The scan meets them; a change
// that loses either fails here.
const (
	floorCaught  = 96.0
	ceilFlagged  = 1.0
	targetCaught = 95.0
	targetFlag   = 1.0
)

// TestDevelopmentCorpus measures the scan on the set it was tuned
// against, and holds it to its floors.
func TestDevelopmentCorpus(t *testing.T) {
	if _, err := os.Stat("testdata/dev.jsonl"); err != nil {
		t.Skip("no development corpus")
	}
	f := measure(loadCorpus(t, "testdata/dev.jsonl"))
	f.report(t, "development set", testing.Verbose())
	if f.attacks.n < 300 || f.benign.n < 300 {
		t.Fatalf("the development set holds %d attacks and %d look-alikes; it must hold 300 of each", f.attacks.n, f.benign.n)
	}
	if f.attacks.pct() < floorCaught || f.benign.pct() > ceilFlagged {
		t.Errorf("caught %.1f%% (floor %.0f%%), flagged %.1f%% of look-alikes (ceiling %.0f%%)", f.attacks.pct(), floorCaught, f.benign.pct(), ceilFlagged)
	}
	if f.attacks.pct() < targetCaught || f.benign.pct() > targetFlag {
		t.Logf("short of the targets: %.0f%% caught, at most %.0f%% flagged", targetCaught, targetFlag)
	}
}

// TestBlindSet measures the scan on the set written by someone who read
// neither the scan nor the development set (testdata/README.md). It is a
// measurement, not a target to tune against: it asserts only that the set
// is what it says, and logs the figures; docs/risk-model.md reports the
// first run's.
func TestBlindSet(t *testing.T) {
	if _, err := os.Stat("testdata/blind.jsonl"); err != nil {
		t.Skip("no blind set")
	}
	items := loadCorpus(t, "testdata/blind.jsonl")
	f := measure(items)
	if f.attacks.n < 100 || f.benign.n < 100 {
		t.Fatalf("the blind set holds %d attacks and %d look-alikes", f.attacks.n, f.benign.n)
	}
	f.report(t, "blind set", testing.Verbose() && os.Getenv("RESULTSCAN_BLIND_DETAILS") != "")
}
