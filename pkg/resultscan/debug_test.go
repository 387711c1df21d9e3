package resultscan

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

var roleNames = []string{"addr", "you", "override", "rules", "prior", "neg", "tell", "user", "act", "send", "read", "urgent", "secret", "convo", "tool", "auth", "memory", "mention", "please", "decode", "url", "append", "voc", "modal", "follow", "deictic", "void", "verb", "machine", "permit", "task", "told", "all"}

func (r role) String() string {
	var out []string
	for i, n := range roleNames {
		if r&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// TestDebugItems prints how the scan reads the corpus items named in
// RESULTSCAN_DEBUG (comma-separated ids): every sentence it judged, with
// the roles of its words, and the hits.
func TestDebugItems(t *testing.T) {
	ids := os.Getenv("RESULTSCAN_DEBUG")
	if ids == "" {
		t.Skip("RESULTSCAN_DEBUG names no items")
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[id] = true
	}
	debugSentence = func(c *pass, start, end int, all role, fl tokFlag, inAddr, inMarker bool) {
		var ws []string
		for _, tk := range c.toks {
			if tk.roles != 0 || tk.fl&(fAgentTool|fDest) != 0 {
				ws = append(ws, fmt.Sprintf("%s[%v|%x]", c.text[tk.start:tk.end], tk.roles, tk.fl))
			}
		}
		fmt.Printf("  S addr=%v mk=%v dir=%v voc=%v: %q\n     %s\n", inAddr, inMarker, c.directive(), first2(c.addressee()), clipS(c.text[start:end], 160), strings.Join(ws, " "))
	}
	debugHits = func(c *pass, hs []hit) {
		for _, m := range c.mentions {
			fmt.Printf("  mention at %d: %q\n", m, clipS(c.text[m:], 30))
		}
		for _, h := range hs {
			fmt.Printf("  hit %s strong=%v quoted=%v mention=%v: %q\n", signalNames[h.sig], h.strong, h.quoted, c.mentionNear(h.start, h.end), clipS(c.text[h.start:max(h.start, h.end)], 100))
		}
	}
	debugRule = func(c *pass, start int, sig signal, strong bool) {
		_, _, line, _ := runtime.Caller(2)
		fmt.Printf("  rule at rules.go:%d %s strong=%v: %q\n", line, signalNames[sig], strong, clipS(c.text[start:], 80))
	}
	defer func() { debugSentence, debugHits, debugRule = nil, nil, nil }()
	s := New(Options{AgentTools: agentTools})
	for _, it := range loadCorpus(t, "testdata/dev.jsonl") {
		if !want[it.ID] {
			continue
		}
		fmt.Printf("== %s %s/%s: %s\n", it.ID, it.Class, it.Lang, it.Note)
		r := judged(s, &it)
		for _, f := range r.Findings {
			fmt.Printf("  -> %s %s\n", f.Signal, f.Excerpt)
		}
	}
}

func clipS(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func first2(a, b bool) string { return fmt.Sprintf("%v/%v", a, b) }
